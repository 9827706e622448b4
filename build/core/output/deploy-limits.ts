import type { CloudflarePlan } from '../config/site-config.ts';
import type { Problem } from '../errors.ts';
import { groupDigits } from '../group-digits.ts';
import { type DeployLimits, EMBEDDED_MODULE_BYTES, PLAN_LIMITS } from './cloudflare-limits.ts';

/** The plan's limits; tests inject smaller ones instead of building giant fixtures. */
export function deployLimits(plan: CloudflarePlan, overrides: Partial<DeployLimits> = {}): DeployLimits {
  return { ...PLAN_LIMITS[plan], embeddedModuleBytes: EMBEDDED_MODULE_BYTES, ...overrides };
}

export const PLAN_NAME: Record<CloudflarePlan, string> = { free: 'free plan', paid: 'Workers Paid plan' };

/** What the build measured of a deployment, for the limits and the report's headroom line. */
export interface DeploymentFigures {
  plan: CloudflarePlan;
  limits: DeployLimits;
  /** The files the build writes into the output folder. */
  files: readonly { path: string; bytes: number }[];
  /** Files already in the output folder that the build does not own (the author's): they are uploaded too. */
  otherFiles: number;
  /** The Functions' Worker, compressed: the tool's code plus the MCP data module (an estimate; deploy measures it exactly). */
  workerGzipBytes: number;
  items: number;
  /** The output folder as the user named it, for messages. */
  outDir: string;
}

export interface Headroom {
  plan: CloudflarePlan;
  largest?: { path: string; bytes: number; limit: number };
  files: { count: number; limit: number };
  worker: { gzipBytes: number; limit: number };
}

export function headroom(figures: DeploymentFigures): Headroom {
  const largest = [...figures.files].sort((a, b) => b.bytes - a.bytes)[0];
  return {
    plan: figures.plan,
    ...(largest && {
      largest: { path: largest.path, bytes: largest.bytes, limit: figures.limits.assetBytes },
    }),
    files: { count: figures.files.length + figures.otherFiles, limit: figures.limits.files },
    worker: { gzipBytes: figures.workerGzipBytes, limit: figures.limits.workerGzipBytes },
  };
}

/**
 * Cloudflare refuses a deployment past these (or fails at the first request): the build refuses first,
 * saying which limit, by how much, and the way out.
 */
export function deploymentProblems(figures: DeploymentFigures, configFile: string): Problem[] {
  const { limits, plan } = figures;
  const problems: Problem[] = [];
  for (const file of figures.files) {
    if (file.bytes <= limits.assetBytes) continue;
    const over = `is ${formatSize(file.bytes)}, over Cloudflare Pages' limit of ${formatSize(limits.assetBytes)} per file`;
    if (/(^|\/)content\.json$/.test(file.path) && figures.items > 0) {
      // The index is served whole, in one GET: its size is the site's ceiling, not something to split.
      const perItem = file.bytes / figures.items;
      const ceiling = Math.floor(limits.assetBytes / perItem);
      problems.push({
        code: 'deploy_limit',
        file: `${figures.outDir}/${file.path}`,
        message: `${over}: the API serves the whole index in one GET, so this is the site's ceiling, about ${groupDigits(ceiling)} items at this site's ${groupDigits(Math.round(perItem))} bytes per item (it has ${groupDigits(figures.items)})`,
        hint: 'shorten what every item carries (descriptions are the usual bulk), or publish fewer items (drafts, older ones)',
      });
    } else {
      problems.push({
        code: 'deploy_limit',
        file: `${figures.outDir}/${file.path}`,
        message: over,
        hint: 'Cloudflare Pages refuses larger files at upload',
      });
    }
  }
  const count = figures.files.length + figures.otherFiles;
  if (count > limits.files) {
    problems.push({
      code: 'deploy_limit',
      file: figures.outDir,
      message: `would hold ${groupDigits(count)} files (${groupDigits(figures.files.length)} written by the build, ${groupDigits(figures.otherFiles)} of your own), over the ${PLAN_NAME[plan]}'s ${groupDigits(limits.files)} files per deployment`,
      hint:
        plan === 'free'
          ? `remove files from the output folder, or set plan: 'paid' in ${configFile} if the account is on Workers Paid (${groupDigits(PLAN_LIMITS.paid.files)} files)`
          : 'remove files from the output folder',
    });
  }
  return problems;
}

/** The Worker size limit, for the embedded backend (its data is part of the Worker). */
export function workerProblem(
  workerGzipBytes: number,
  items: number,
  plan: CloudflarePlan,
  limits: DeployLimits,
  configFile: string,
): Problem | undefined {
  if (workerGzipBytes <= limits.workerGzipBytes) return undefined;
  return {
    code: 'deploy_limit',
    file: configFile,
    field: 'mcp.backend',
    message: `embedded: with the data of ${groupDigits(items)} items the Functions' Worker would be about ${formatSize(workerGzipBytes)} compressed, over the ${PLAN_NAME[plan]}'s ${formatSize(limits.workerGzipBytes)} Worker limit`,
    hint: `set mcp: { backend: 'd1' } (or 'auto') in ${configFile} to serve /mcp from Cloudflare D1 (see docs/mcp.md)`,
  };
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
