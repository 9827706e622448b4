import { dateMs } from '../edge/dates.ts';
import type { Lifecycle } from '../edge/lifecycle.ts';
import { ContentIndexError } from '../errors.ts';
import type { LeftOut } from './model.ts';

/** Facts about the sources that only the Node side can read (environment, git), handed to the core. */
export interface SourceDates {
  /** `SOURCE_DATE_EPOCH` (reproducible-builds.org), when it is set. */
  sourceDateEpoch?: Date;
  /** When the last commit that touched the content or the configuration was made, in a git checkout. */
  lastCommit?: Date;
}

/**
 * The index's `generated`: when the published content last changed, not when the build ran, so that a
 * rebuild of unchanged sources (the daily scheduled one) writes the same bytes and keeps every ETag.
 * It is the newest of `SOURCE_DATE_EPOCH`, the last content commit, every published file's `date` (or
 * Hugo's `publishDate`, when later), every expired page's `expiryDate`, and every published API
 * version's publication and deprecation, and never later than the build's clock. The dates are what make
 * a scheduled change move it: a future-dated post whose day has come, a page that expired, a version
 * published on its date.
 */
export function generatedAt(
  /**
   * The date (and Hugo's `publishDate`) of every published translation that has one, or the latest of
   * each item's, and the {@link expiredDates}.
   */
  dates: Iterable<string | undefined>,
  versions: Lifecycle['versions'],
  sources: SourceDates,
  now: Date,
): Date {
  let newest = Number.NEGATIVE_INFINITY;
  const consider = (time: number) => {
    if (time > newest) newest = time;
  };
  if (sources.sourceDateEpoch) consider(sources.sourceDateEpoch.getTime());
  if (sources.lastCommit) consider(sources.lastCommit.getTime());
  for (const date of dates) if (date) consider(dateMs(date));
  for (const version of versions) {
    consider(version.published.getTime());
    // The day a deprecation is first announced, which can be after the successor's publication (the
    // live check carries it), the deprecated body changes: `versions.deprecation` appears.
    if (version.deprecated && version.deprecated <= now) consider(version.deprecated.getTime());
  }
  // Clocks disagree (a commit made on a machine ahead of this one): `generated` never claims the future.
  return Number.isFinite(newest) ? new Date(Math.min(newest, now.getTime())) : now;
}

/**
 * The dates of left-out pages that `generated` considers: an expired page's `expiryDate` once passed
 * (Hugo's), when the index lost it.
 */
export function expiredDates(leftOut: readonly LeftOut[], now: Date): string[] {
  const at = now.getTime();
  return leftOut.flatMap((left) =>
    left.reason === 'expired' && left.date && Date.parse(left.date) <= at ? [left.date] : [],
  );
}

/**
 * Whether `generated` follows the clock: a date past `now` (a future-dated item built with `future`, a
 * commit from a machine ahead of this one) makes it `now`, so every later build writes another one.
 */
export function generatedFollowsClock(
  dates: Iterable<string | undefined>,
  sources: SourceDates,
  now: Date,
): boolean {
  const at = now.getTime();
  for (const date of dates) if (date && dateMs(date) > at) return true;
  for (const date of [sources.sourceDateEpoch, sources.lastCommit])
    if (date && date.getTime() > at) return true;
  return false;
}

/**
 * Reads `SOURCE_DATE_EPOCH` as the reproducible-builds specification defines it: a whole number of
 * seconds since 1970-01-01T00:00:00Z. A malformed value fails the build instead of being ignored.
 */
export function parseSourceDateEpoch(value: string | undefined): Date | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  const date = new Date(seconds * 1000);
  if (!Number.isSafeInteger(seconds) || Number.isNaN(date.getTime())) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: 'environment variable SOURCE_DATE_EPOCH',
        message: `must be a whole number of seconds since 1970-01-01T00:00:00Z, got ${JSON.stringify(value)}`,
        hint: 'e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct), or unset it',
      },
    ]);
  }
  return date;
}
