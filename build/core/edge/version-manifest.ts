import { isoSeconds, type Lifecycle } from './lifecycle.ts';

/**
 * `api/versions.json`: the lifecycle as clients and the Pages Function read it. Clients learn from it
 * which versions exist and when each one stops answering; the Function decides 200, 410 or 404 with it
 * at request time, so a sunset takes effect without a rebuild. Pure and free of ajv (Functions import it).
 */
export const MANIFEST_PATH = 'api/versions.json';

export interface ManifestVersion {
  version: string;
  /** Address of the version's index route. */
  url: string;
  /** Paths this version publishes on the site, e.g. `/api/v1/content.json`. */
  routes: string[];
  published_at: string;
  /**
   * When the deprecation was first published on the site (the next version's publication there, as the
   * `Deprecation` header says); the live check carries it from deploy to deploy and counts the 12 months
   * from it. `null` for the current version.
   */
  deprecated_at: string | null;
  /** When the version is withdrawn (410 Gone from then on); `null` for the current version. */
  sunset_at: string | null;
  /** Where the change is described (the `rel="deprecation"` link). */
  documentation: string;
}

export interface VersionManifest {
  /** The current (latest published) version. */
  current: string;
  current_url: string;
  /** The site's documentation. */
  documentation: string;
  /**
   * The API reference page the build writes (`/docs/`); each problem `type` is an anchor on it. Absent
   * from manifests written before it existed (a live site deployed by an older version), whose
   * `documentation` was that page.
   */
  reference?: string;
  cache_control: { max_age: number; stale_while_revalidate: number };
  /** Every published version, withdrawn ones included, oldest first. */
  versions: ManifestVersion[];
}

/** The site path of a version's file: the same on every host the build output is deployed to. */
export function apiPath(version: string, file = 'content.json'): string {
  return `/api/${version}/${file}`;
}

export function apiUrl(site: string, version: string, file = 'content.json'): string {
  return new URL(apiPath(version, file).slice(1), site).href;
}

export const VERSION_FILES = ['content.json', 'schema.json'] as const;

export function buildManifest(
  lifecycle: Lifecycle,
  site: string,
  documentation: string,
  reference: string,
): VersionManifest {
  const current = lifecycle.versions.at(-1);
  if (!current) throw new Error('a lifecycle has at least one published version');
  return {
    current: current.version,
    current_url: apiUrl(site, current.version),
    documentation,
    reference,
    cache_control: {
      max_age: lifecycle.cache.maxAge,
      stale_while_revalidate: lifecycle.cache.staleWhileRevalidate,
    },
    versions: lifecycle.versions.map((v) => ({
      version: v.version,
      url: apiUrl(site, v.version),
      routes: VERSION_FILES.map((file) => apiPath(v.version, file)),
      published_at: isoSeconds(v.published),
      deprecated_at: v.deprecated ? isoSeconds(v.deprecated) : null,
      sunset_at: v.sunset ? isoSeconds(v.sunset) : null,
      documentation: v.documentation,
    })),
  };
}

/** The Function's reading of the manifest: enough checking to fail clearly on a broken deploy. */
export function parseManifest(value: unknown): VersionManifest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Partial<VersionManifest>;
  if (typeof m.current !== 'string' || typeof m.current_url !== 'string') return undefined;
  if (typeof m.documentation !== 'string' || !Array.isArray(m.versions)) return undefined;
  if (typeof m.cache_control?.max_age !== 'number') return undefined;
  const ok = m.versions.every(
    (v) => typeof v?.version === 'string' && Array.isArray(v.routes) && typeof v.url === 'string',
  );
  return ok ? (m as VersionManifest) : undefined;
}
