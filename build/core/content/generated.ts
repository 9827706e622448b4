import type { Lifecycle } from '../edge/lifecycle.ts';
import { ContentIndexError } from '../errors.ts';
import type { ContentModel } from './model.ts';

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
  model: ContentModel,
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
  for (const entry of model.entries) {
    for (const translation of Object.values(entry.translations)) {
      if (translation?.date) consider(Date.parse(translation.date));
      // A page published later than its date (Hugo's publishDate) changed the index when it came out.
      if (translation?.publishDate) consider(Date.parse(translation.publishDate));
    }
  }
  // So did a page that expired (Hugo's expiryDate): the index lost it then.
  for (const left of model.leftOut) {
    if (left.reason === 'expired' && left.date && Date.parse(left.date) <= now.getTime())
      consider(Date.parse(left.date));
  }
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
