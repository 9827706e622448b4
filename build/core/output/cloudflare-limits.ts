/**
 * Cloudflare Pages' documented limits on the routing files. Past them Pages silently ignores rules
 * (or refuses the deploy), so the build refuses first.
 */
export const PAGES_LIMITS = {
  /** `_headers`: rules (a path line and its header lines). */
  headerRules: 100,
  /** `_headers`: characters per line. */
  headerLineLength: 2000,
  /** `_redirects`: rules without splats or placeholders. */
  staticRedirects: 2000,
  /** `_redirects`: rules with a splat or a placeholder. */
  dynamicRedirects: 100,
  /** `_redirects`: characters per rule. */
  redirectLineLength: 1000,
  /** `_routes.json`: include and exclude rules together. */
  routeRules: 100,
  /** `_routes.json`: characters per rule. */
  routeLength: 100,
} as const;

/** The statuses a `_redirects` rule may carry; a 410 rule is rejected (hence the Function). */
export const REDIRECT_STATUSES: readonly number[] = [200, 301, 302, 303, 307, 308];

/** Cloudflare's limits on what a deployment uploads and runs, per plan (Workers Free / Workers Paid). */
export interface DeployLimits {
  /** Bytes per static asset (one file of the output folder). */
  assetBytes: number;
  /** Files per Pages deployment. */
  files: number;
  /** The Functions' Worker, gzip-compressed, as Cloudflare measures it at upload. */
  workerGzipBytes: number;
  /**
   * The embedded backend's data module, uncompressed: past this its evaluation at startup and the heap
   * it keeps leave too little of an isolate (1 s to start, 128 MB of memory). Measured: see
   * EMBEDDED_MODULE_BYTES in build/core/mcp/choose-backend.ts.
   */
  embeddedModuleBytes: number;
}

const MIB = 1024 * 1024;

export const PLAN_LIMITS: Record<'free' | 'paid', Omit<DeployLimits, 'embeddedModuleBytes'>> = {
  free: { assetBytes: 25 * MIB, files: 20_000, workerGzipBytes: 3 * MIB },
  paid: { assetBytes: 25 * MIB, files: 100_000, workerGzipBytes: 10 * MIB },
};
