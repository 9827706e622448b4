import type { CloudflarePlan, McpBackendName } from '../config/site-config.ts';
import type { Problem } from '../errors.ts';
import type { DeployLimits } from '../output/cloudflare-limits.ts';
import { formatSize, PLAN_NAME, workerProblem } from '../output/deploy-limits.ts';

/**
 * The embedded backend's ceiling: the largest data module (uncompressed) that an isolate loads well
 * within its limits. Measured (`npm run bench`, docs/performance.md; one thread, an upper bound): the
 * global scope costs about 90 ms of CPU plus 31 ms per MiB of module (the module's evaluation, the
 * search index's load, the warm-up), and keeps about 14 MiB of heap plus 5.2 MiB per MiB. At 8 MiB that
 * is about 340 ms of the 1 s a Worker may take to start and 55 MiB of the 128 MB an isolate has,
 * leaving the rest to requests; on the synthetic sites, about 6,400 items.
 */
export const EMBEDDED_MODULE_BYTES = 8 * 1024 * 1024;

/**
 * The Functions' Worker without the MCP data, compressed (the /api and /mcp Functions, the MCP SDK,
 * MiniSearch, wrangler's router). The build adds the data module's compressed size to it; deploy then
 * compiles the real Worker and checks it exactly. tests/mcp/limits.test.ts keeps this figure honest.
 */
export const FUNCTIONS_CODE_GZIP_BYTES = 180 * 1024;

export interface EmbeddedSize {
  /** The module's bytes, or (when `atLeast`) a lower bound worked out without building the search index. */
  moduleBytes: number;
  moduleGzipBytes?: number;
  atLeast?: boolean;
}

export interface BackendChoice {
  backend: 'embedded' | 'd1';
  /** Why, in a few words, for the build report. */
  reason: string;
  /** Set when the configured backend cannot serve this site within the limits. */
  problem?: Problem;
}

/**
 * Embedded while the data fits (the module's ceiling and the plan's Worker size); past that, `auto`
 * picks D1 and `embedded` is refused with the limit it passed.
 */
export function chooseBackend(
  configured: McpBackendName,
  size: EmbeddedSize | undefined,
  context: { items: number; plan: CloudflarePlan; limits: DeployLimits; configFile: string },
): BackendChoice {
  if (configured === 'd1' || size === undefined) return { backend: 'd1', reason: 'configured' };
  const { items, plan, limits, configFile } = context;
  const over = size.moduleBytes > limits.embeddedModuleBytes;
  const workerGzipBytes =
    size.moduleGzipBytes === undefined ? undefined : FUNCTIONS_CODE_GZIP_BYTES + size.moduleGzipBytes;
  const tooBig =
    workerGzipBytes === undefined
      ? undefined
      : workerProblem(workerGzipBytes, items, plan, limits, configFile);
  if (!over && !tooBig) {
    const share = `${formatSize(size.moduleBytes)} of the ${formatSize(limits.embeddedModuleBytes)} embedded ceiling`;
    return { backend: 'embedded', reason: configured === 'auto' ? `auto: ${share}` : share };
  }
  const limit = over
    ? `the data module ${size.atLeast ? 'would be at least' : 'would be'} ${formatSize(size.moduleBytes)}, past the embedded ceiling of ${formatSize(limits.embeddedModuleBytes)} (what an isolate loads within its 1 s startup and 128 MB memory limits, with room left for requests)`
    : `the Worker would be about ${formatSize(workerGzipBytes ?? 0)} compressed, over the ${PLAN_NAME[plan]}'s ${formatSize(limits.workerGzipBytes)}`;
  if (configured === 'auto') return { backend: 'd1', reason: `auto: ${limit}` };
  return {
    backend: 'embedded',
    reason: 'over the limits',
    problem:
      !over && tooBig
        ? tooBig
        : {
            code: 'deploy_limit',
            file: configFile,
            field: 'mcp.backend',
            message: `embedded: with ${items.toLocaleString('en-US')} items ${limit}`,
            hint: `set mcp: { backend: 'd1' } (or 'auto') in ${configFile} to serve /mcp from Cloudflare D1 (see docs/mcp.md)`,
          },
  };
}
