import type { CloudflarePlan, McpBackendName } from '../config/site-config.ts';
import type { Problem } from '../errors.ts';
import { groupDigits } from '../group-digits.ts';
import type { DeployLimits } from '../output/cloudflare-limits.ts';
import { formatSize, PLAN_NAME, workerProblem } from '../output/deploy-limits.ts';

/**
 * The Functions' Worker without the MCP data, compressed (the /api and /mcp Functions, the MCP SDK,
 * the stemmers, wrangler's router). The build adds the data module's compressed size to it; deploy then
 * compiles the real Worker and checks it exactly. tests/mcp/limits.test.ts keeps this figure honest.
 */
export const FUNCTIONS_CODE_GZIP_BYTES = 180 * 1024;

export interface EmbeddedSize {
  /** The module's bytes, or (when `atLeast`) a lower bound worked out without building the search index. */
  moduleBytes: number;
  moduleGzipBytes?: number;
  atLeast?: boolean;
  /** With `atLeast`: the bound counts the texts of this many items only, the first to pass the ceiling. */
  counted?: number;
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
  context: {
    items: number;
    plan: CloudflarePlan;
    limits: DeployLimits;
    configFile: string;
    bodies?: boolean;
  },
): BackendChoice {
  if (configured === 'd1' || size === undefined) return { backend: 'd1', reason: 'configured' };
  const { items, plan, limits, configFile, bodies = false } = context;
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
    ? `the data module ${size.atLeast ? 'would be at least' : 'would be'} ${formatSize(size.moduleBytes)}${size.counted === undefined ? '' : ` (the texts of its first ${groupDigits(size.counted)} of ${groupDigits(items)} items alone)`}, past the embedded ceiling of ${formatSize(limits.embeddedModuleBytes)} (what an isolate loads within its 1 s startup and 128 MB memory limits, with room left for requests)`
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
            message: `embedded: with ${groupDigits(items)} items ${limit}`,
            hint: `set mcp: { backend: 'd1' } (or 'auto') in ${configFile} to serve /mcp from Cloudflare D1 (see docs/mcp.md)${bodies ? ", or mcp: { bodies: false } to index titles, descriptions and tags only (the bodies' text is most of the module)" : ''}`,
          },
  };
}
