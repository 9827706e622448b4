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
   * EMBEDDED_MODULE_BYTES below.
   */
  embeddedModuleBytes: number;
}

const MIB = 1024 * 1024;

/**
 * The embedded backend's ceiling: the largest data module (uncompressed) that an isolate loads well
 * within its limits. Measured (`npm run bench`, docs/performance.md; one thread, an upper bound): the
 * global scope costs about 90 ms of CPU plus 31 ms per MiB of module (the module's evaluation, the
 * search index's load, the warm-up), and keeps about 14 MiB of heap plus 5.2 MiB per MiB. At 8 MiB that
 * is about 340 ms of the 1 s a Worker may take to start and 55 MiB of the 128 MB an isolate has,
 * leaving the rest to requests; on the synthetic sites, about 6,400 items.
 */
export const EMBEDDED_MODULE_BYTES = 8 * 1024 * 1024;

export const PLAN_LIMITS: Record<'free' | 'paid', Omit<DeployLimits, 'embeddedModuleBytes'>> = {
  free: { assetBytes: 25 * MIB, files: 20_000, workerGzipBytes: 3 * MIB },
  paid: { assetBytes: 25 * MIB, files: 100_000, workerGzipBytes: 10 * MIB },
};
