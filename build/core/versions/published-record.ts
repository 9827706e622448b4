import { isoSeconds, type Lifecycle } from '../edge/lifecycle.ts';
import type { Problem } from '../errors.ts';

/**
 * `versions.lock.json`: the site's own record of every API version it has published. It lives in the
 * site's repository, beside `headers.config.ts`, because that is the one place a build always sees:
 * the tool's schema snapshots describe what the tool can publish, not what this site did, and the
 * live site is not reachable from every build. The build adds a version the first time it publishes
 * it and never removes one; a version listed here must stay declared (and published) in
 * `headers.config.ts`, so its routes keep answering (deprecation, then 410 Gone) and never turn 404.
 */
export const PUBLISHED_RECORD_FILE = 'versions.lock.json';

export const PUBLISHED_RULE = 'published-version-kept';
/** A version's publication date, once clients have it (`published_at`), is not rewritten. */
export const PUBLISHED_DATE_RULE = 'published-date-kept';

/** How to write an instant back into headers.config.ts: the day alone when it is midnight UTC. */
export function configuredForm(iso: string): string {
  const published = isoSeconds(new Date(iso));
  return published.endsWith('T00:00:00Z') ? published.slice(0, 10) : published;
}

export interface PublishedRecord {
  /** Version name → when it was first recorded as published (the configured publication date). */
  versions: Record<string, { published_at: string }>;
}

const NOTE =
  'Written by content-index build: every API version this site has published. Commit it. A version listed here must stay in headers.config.ts (rule published-version-kept); remove a line by hand only for a version that was never deployed.';

export function emptyRecord(): PublishedRecord {
  return { versions: {} };
}

/** Reads the file's JSON; `undefined` when it is not a record (the caller reports the file). */
export function parsePublishedRecord(value: unknown): PublishedRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const versions = (value as { versions?: unknown }).versions;
  if (typeof versions !== 'object' || versions === null || Array.isArray(versions)) return undefined;
  const record = emptyRecord();
  for (const [name, entry] of Object.entries(versions)) {
    const published = (entry as { published_at?: unknown } | null)?.published_at;
    if (!/^v[1-9][0-9]*$/.test(name) || typeof published !== 'string' || Number.isNaN(Date.parse(published)))
      return undefined;
    record.versions[name] = { published_at: published };
  }
  return record;
}

/**
 * Every recorded version must still be declared and published at the build time. A version dated
 * after the build time is left out of the build, so moving a recorded version's date into the future
 * would make it disappear just as surely as deleting it.
 */
export function checkPublishedRecord(
  record: PublishedRecord,
  lifecycle: Lifecycle,
  ctx: { file: string; now: Date },
): Problem[] {
  const problems: Problem[] = [];
  for (const [name, { published_at }] of Object.entries(record.versions)) {
    const declared = lifecycle.versions.find((v) => v.version === name);
    if (declared && declared.published.getTime() !== Date.parse(published_at)) {
      problems.push({
        code: 'lifecycle_invalid',
        file: ctx.file,
        field: `versions.${name}.published`,
        message: `${name} was published on ${isoSeconds(new Date(published_at))} (${PUBLISHED_RECORD_FILE} records it) and is now dated ${isoSeconds(declared.published)}; clients were given ${isoSeconds(new Date(published_at))} (rule: ${PUBLISHED_DATE_RULE})`,
        hint: `set ${name}'s published back to '${configuredForm(published_at)}' in ${ctx.file}: a publication date clients have seen is kept. Only if ${name} was never deployed, delete its entry from ${PUBLISHED_RECORD_FILE} by hand`,
      });
    }
    if (declared) continue;
    const scheduled = lifecycle.scheduled.find((v) => v.version === name);
    const where = `${PUBLISHED_RECORD_FILE} records it`;
    problems.push({
      code: 'lifecycle_invalid',
      file: ctx.file,
      field: `versions.${name}${scheduled ? '.published' : ''}`,
      message: scheduled
        ? `${name} was published (${where}) and is now dated ${isoSeconds(scheduled.published)}, after the build time ${isoSeconds(ctx.now)}, so it would disappear until then (rule: ${PUBLISHED_RULE})`
        : `${name} was published (${where}) and is missing from ${ctx.file}, so its routes would answer 404 instead of its deprecation or 410 Gone (rule: ${PUBLISHED_RULE})`,
      hint: scheduled
        ? `keep ${name}'s publication date on or before today (it was recorded as ${published_at})`
        : `keep ${name} in ${ctx.file} for good, with its publication date (${published_at}) and, once superseded, its sunset: a withdrawn version answers 410 Gone. Only if ${name} was never deployed, delete its entry from ${PUBLISHED_RECORD_FILE} by hand`,
    });
  }
  return problems;
}

/** The record with every version this build publishes added; existing entries are never rewritten. */
export function recordPublished(
  record: PublishedRecord,
  lifecycle: Lifecycle,
): { record: PublishedRecord; added: string[] } {
  const versions = { ...record.versions };
  const added: string[] = [];
  for (const version of lifecycle.versions) {
    if (versions[version.version]) continue;
    versions[version.version] = { published_at: isoSeconds(version.published) };
    added.push(version.version);
  }
  return { record: { versions }, added };
}

/** The file's bytes: versions in number order, so the same record is always the same text. */
export function renderPublishedRecord(record: PublishedRecord): string {
  const names = Object.keys(record.versions).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  const versions = Object.fromEntries(names.map((name) => [name, record.versions[name]]));
  return `${JSON.stringify({ $comment: NOTE, versions }, null, 2)}\n`;
}
