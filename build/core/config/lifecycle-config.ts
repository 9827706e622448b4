/** One API version as an author declares it in `headers.config.ts`. */
export interface VersionInput {
  /**
   * When the version is (or was) published: `2026-03-01` (midnight UTC) or `2026-03-01T09:00:00Z`.
   * Publishing a version deprecates the one before it from that instant.
   */
  published: string;
  /**
   * Only for a superseded version: the withdrawal instant, sent as `Sunset`; from then on its routes
   * answer 410 Gone. At least 12 months after the successor's publication (docs/api.md, Versions).
   */
  sunset?: string;
  /**
   * Where the change and the migration are described; sent as the `rel="deprecation"` link while the
   * version is deprecated. Absolute, or relative to the site. Default: the site's documentation.
   */
  documentation?: string;
}

/** Cache-Control of every API response, in seconds. */
export interface CacheControlInput {
  /** How long clients and shared caches may reuse a response without asking. Default: 300. */
  maxAge?: number;
  /** How long after that a cache may still answer while it revalidates in the background. Default: 3600. */
  staleWhileRevalidate?: number;
}

/** What an author writes in `headers.config.ts`: the versions' lifecycle and the header policy. */
export interface HeadersConfigInput {
  /** Every version ever published, by name (`v1`, `v2`…), including withdrawn ones (they answer 410). */
  versions: Record<string, VersionInput>;
  cacheControl?: CacheControlInput;
}

export const DEFAULT_CACHE_CONTROL = { maxAge: 300, staleWhileRevalidate: 3600 } as const;

/** Identity helper that gives `headers.config.ts` type checking and editor completion. */
export function defineHeaders(config: HeadersConfigInput): HeadersConfigInput {
  return config;
}
