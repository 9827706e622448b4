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
  /**
   * The largest D1 database (500 MB on Workers Free, 10 GB on Workers Paid). The import's SQL is a lower
   * bound of the tables it makes (their indexes and the full-text index come on top): an import larger
   * than this cannot fit, which is what indexing long bodies of many items can reach.
   */
  d1DatabaseBytes: number;
}

const MIB = 1024 * 1024;

/**
 * The embedded backend's ceiling: the largest data module (uncompressed) that an isolate loads well
 * within its limits and the startup target (300 ms). The module is mostly string literals (entries,
 * the search index, body texts), which V8 must scan when it compiles the module: about 20–40 ms of CPU
 * per MiB (the search index's own load is a few milliseconds, body texts are never parsed), on top of
 * about 100 ms for the rest of the global scope (docs/performance.md). On the synthetic sites, about
 * 8,000 items without bodies and 500 with (their bodies are about 14 KB of text an item).
 */
export const EMBEDDED_MODULE_BYTES = 8 * 1024 * 1024;

export const PLAN_LIMITS: Record<'free' | 'paid', Omit<DeployLimits, 'embeddedModuleBytes'>> = {
  free: { assetBytes: 25 * MIB, files: 20_000, workerGzipBytes: 3 * MIB, d1DatabaseBytes: 500_000_000 },
  paid: {
    assetBytes: 25 * MIB,
    files: 100_000,
    workerGzipBytes: 10 * MIB,
    d1DatabaseBytes: 10_000_000_000,
  },
};
