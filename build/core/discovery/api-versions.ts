import type { VersionState } from '../edge/lifecycle.ts';

/** Where a version of the API (the segment after /api/) is in its lifecycle (docs/api.md, Versions). */
export type ApiVersionState = VersionState;

/** What the discovery documents need to know about one published version. */
export interface ApiVersion {
  /** `v1`, `v2`… */
  name: string;
  state: ApiVersionState;
  /** ISO 8601 withdrawal date of a deprecated or withdrawn version, for the documentation. */
  sunset?: string;
}

/** The one current version; the unversioned alias follows it. */
export function currentVersion(versions: readonly ApiVersion[]): ApiVersion {
  const current = versions.filter((v) => v.state === 'current');
  const [only] = current;
  if (current.length !== 1 || !only) {
    throw new Error(`expected exactly one current API version, got ${current.length}`);
  }
  return only;
}
