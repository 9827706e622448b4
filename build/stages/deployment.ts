import { relative } from 'node:path';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import type { DeployLimits } from '../core/output/cloudflare-limits.ts';
import { type DeploymentFigures, deployLimits, deploymentProblems } from '../core/output/deploy-limits.ts';
import type { Rendered } from '../core/output/render.ts';
import { type McpOutput, mcpOutput } from './mcp-output.ts';
import { textBytes } from './output/output-text.ts';
import { PRIVATE_DIR } from './output/place.ts';
import type { RowSpool } from './row-spool.ts';
import type { Setup } from './setup.ts';
import { servedOutput } from './wrangler-config.ts';
import { countOtherFiles, hasMcpModule } from './write-private.ts';

export interface Deployment {
  mcp: McpOutput;
  /** Whether this build writes the MCP data (see BuildOptions.writeMcpData), and the folder it belongs to. */
  mcpData: { written: boolean; served: string };
  figures: DeploymentFigures;
  warnings: Problem[];
}

/**
 * The MCP backend and its output, and every limit Cloudflare would otherwise enforce at upload or at
 * the first request. Throws the limits passed.
 */
export async function planDeployment(
  setup: Setup,
  rendered: Rendered,
  options: {
    limits?: Partial<DeployLimits>;
    dryRun?: boolean;
    writeMcpData?: boolean;
    fromNothing?: boolean;
    parallelThreshold?: number;
    spool?: () => RowSpool | undefined;
    asLeft?: (path: string, bytes: number) => boolean;
  },
): Promise<Deployment> {
  const { root, config, configPath, outDir } = setup;
  const limits = deployLimits(config.plan, options.limits);
  const mcp = await mcpOutput(rendered.mcp, {
    config,
    configFile: configPath,
    root,
    limits,
    fileOf: (pos) => rendered.mcp.items[pos]?.facts.file ?? `item ${pos}`,
    ...(options.fromNothing && { fromNothing: true }),
    ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
    ...(options.spool && { spool: options.spool }),
    ...(options.asLeft && { asLeft: options.asLeft }),
  });
  const figures: DeploymentFigures = {
    plan: config.plan,
    limits,
    files: rendered.files.map((f) => ({ path: f.path, bytes: textBytes(f) })),
    otherFiles: await countOtherFiles(root, outDir, setup.staticDir),
    workerGzipBytes: mcp.workerGzipBytes,
    items: rendered.mcp.items.length,
    outDir: relative(root, outDir) || '.',
  };
  const overLimits = [...mcp.problems, ...deploymentProblems(figures, configPath)];
  if (overLimits.length > 0) throw new ContentIndexError(overLimits);
  const served = await servedOutput(root);
  const mcpData = {
    // With no data yet (a fresh clone), this build's is the only one the Function can bundle.
    written:
      !options.dryRun && (options.writeMcpData ?? (outDir === served.path || !(await hasMcpModule(root)))),
    served: served.path,
  };
  const warnings: Problem[] = [];
  if (!options.dryRun && !mcpData.written && !served.declared) {
    // Likely the folder this site deploys, undeclared: say how to make /mcp follow it.
    const shown = relative(root, outDir) || '.';
    warnings.push({
      code: 'config_invalid',
      file: served.file,
      field: 'pages_build_output_dir',
      message: `is not set, so the /mcp data in ${PRIVATE_DIR}/ belongs to the build of ${relative(root, served.path) || '.'}; this build into ${shown} left it as it was`,
      hint: `if ${shown} is the folder you deploy, set pages_build_output_dir = "${shown}" in ${served.file} (Cloudflare Pages reads it too)`,
    });
  }
  return { mcp, mcpData, figures, warnings };
}
