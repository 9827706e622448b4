/**
 * The versions' lifecycle after `headers.config.ts` was validated. Pure and free of ajv: the build and
 * the Pages Function both reason with it.
 */

/** `2026-11-01T00:00:00Z`: the one published date form (dates.ts), at the precision HTTP headers carry. */
export { isoSeconds } from './dates.ts';

export interface CachePolicy {
  /** Seconds. */
  maxAge: number;
  /** Seconds. */
  staleWhileRevalidate: number;
}

export interface VersionLifecycle {
  /** `v1`, `v2`… */
  version: string;
  published: Date;
  /** The successor's publication, when there is a successor. */
  deprecated?: Date;
  /** The withdrawal instant; only superseded versions have one. */
  sunset?: Date;
  /** Absolute address of the documentation sent as the `rel="deprecation"` link. */
  documentation: string;
}

export interface Lifecycle {
  /** Versions published at the build time, oldest first; the last one is current. */
  versions: VersionLifecycle[];
  /** Declared versions dated after the build time, left out until a build on or after their date. */
  scheduled: VersionLifecycle[];
  cache: CachePolicy;
}

export type VersionState = 'current' | 'deprecated' | 'withdrawn';

/**
 * The API contract (docs/api.md, Versions): current until a newer version is published, deprecated from then until the sunset,
 * withdrawn from the sunset instant on (RFC 8594: the resource stops answering at that time).
 */
export function versionState(
  dates: { deprecated?: Date | undefined; sunset?: Date | undefined },
  now: Date,
): VersionState {
  if (dates.sunset && now.getTime() >= dates.sunset.getTime()) return 'withdrawn';
  if (dates.deprecated && now.getTime() >= dates.deprecated.getTime()) return 'deprecated';
  return 'current';
}

export function currentVersion(lifecycle: Lifecycle): VersionLifecycle {
  const current = lifecycle.versions.at(-1);
  if (!current) throw new Error('a lifecycle has at least one published version');
  return current;
}

/**
 * The same day of the month and time, `months` calendar months later, in UTC. A day the target month
 * lacks rolls over into the next month: 29 February 2028 plus 12 months is 1 March 2029, never
 * 28 February, so a period computed with it is never shorter than the months it promises.
 */
export function addMonths(date: Date, months: number): Date {
  const later = new Date(date.getTime());
  later.setUTCMonth(later.getUTCMonth() + months);
  return later;
}

/** The contract's minimum period a superseded version keeps being served (docs/api.md, Versions). */
export const MINIMUM_DEPRECATION_MONTHS = 12;
