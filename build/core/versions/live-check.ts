import {
  addMonths,
  isoSeconds,
  type Lifecycle,
  MINIMUM_DEPRECATION_MONTHS,
  type VersionLifecycle,
  versionState,
} from '../edge/lifecycle.ts';
import {
  apiPath,
  MANIFEST_PATH,
  type ManifestVersion,
  type VersionManifest,
} from '../edge/version-manifest.ts';
import type { Problem } from '../errors.ts';
import { compareText } from '../text-order.ts';
import { configuredForm, PUBLISHED_DATE_RULE } from './published-record.ts';

/**
 * The live site is the ledger: what clients were actually told lives in the deployed
 * `/api/versions.json` and bodies, not in `headers.config.ts`, which any edit can rewrite (a version
 * deleted, dates backdated). A build given the live site carries its announcements forward and refuses
 * a configuration that would break a promise clients already received. Pure: the CLI fetches.
 */
export interface LiveSite {
  /** The site's address, ending in `/`. */
  url: string;
  /** What it serves at `/api/versions.json`; `null` when nothing is live there yet (a first deploy). */
  manifest: VersionManifest | null;
  /** The index bodies it serves (200), by version. */
  bodies: Record<string, unknown>;
}

export const LIVE_RULES = {
  kept: 'published-version-kept',
  publishedDate: PUBLISHED_DATE_RULE,
  minimumPeriod: 'sunset-min-12-months',
  noSkip: 'deprecated-before-withdrawn',
  sunsetNotEarlier: 'sunset-not-earlier',
  fields: 'fields-kept',
} as const;

/** A path on the live site, resolved like the build's own addresses: relative to the site address. */
export function liveAddress(live: LiveSite, path: string): string {
  return new URL(path.replace(/^\//, ''), live.url).href;
}

/**
 * When each deprecated version's deprecation was first published, the instant its `Deprecation` header
 * and `deprecated_at` announce: the live site's record when it has one; the day of this build when the
 * live site still serves the version as current (clients see the deprecation from this deploy on,
 * whatever date the configuration gives the successor); the configuration's date otherwise (nothing
 * live, or the version was never live here). The day, like the configured dates: midnight UTC, or the
 * successor's configured instant when that is later the same day. So a release deployed in the
 * afternoon of the day the configuration names announces that day, as the configuration said.
 */
export function announceFromLive(lifecycle: Lifecycle, live: LiveSite, now: Date): Lifecycle {
  const manifest = live.manifest;
  if (!manifest) return lifecycle;
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const versions = lifecycle.versions.map((version): VersionLifecycle => {
    const onLive = manifest.versions.find((v) => v.version === version.version);
    if (!version.deprecated || !onLive) return version;
    const announced = onLive.deprecated_at
      ? new Date(onLive.deprecated_at)
      : new Date(Math.max(today.getTime(), version.deprecated.getTime()));
    return { ...version, deprecated: announced };
  });
  return { ...lifecycle, versions };
}

export interface LiveComparison {
  /** The lifecycle this build publishes, after `announceFromLive`. */
  lifecycle: Lifecycle;
  /** The bodies this build would publish, by version. */
  bodies: Record<string, object>;
}

export interface LiveCheckContext {
  now: Date;
  /** `headers.config.ts`, for messages. */
  file: string;
  /** Field paths (`content[].image`) the operator accepts losing in this deploy. */
  allowDroppedFields?: readonly string[];
}

/** Every way this build would break a promise the live site made; empty when it keeps them all. */
export function compareWithLive(live: LiveSite, next: LiveComparison, ctx: LiveCheckContext): Problem[] {
  const manifest = live.manifest;
  if (!manifest) return [];
  const listed = liveAddress(live, MANIFEST_PATH);
  const problems: Problem[] = [];
  const problem = (field: string, rule: string, message: string, hint: string) =>
    problems.push({
      code: 'lifecycle_invalid',
      file: ctx.file,
      field,
      message: `${message} (rule: ${rule})`,
      hint,
    });

  for (const onLive of manifest.versions) {
    const name = onLive.version;
    const version = next.lifecycle.versions.find((v) => v.version === name);
    if (!version) {
      const scheduled = next.lifecycle.scheduled.find((v) => v.version === name);
      problem(
        `versions.${name}${scheduled ? '.published' : ''}`,
        LIVE_RULES.kept,
        scheduled
          ? `${name} is published on the live site (${listed} lists it) and is now dated ${isoSeconds(scheduled.published)}, after the build time, so it would disappear`
          : `${name} is published on the live site (${listed} lists it) and is missing from ${ctx.file}, so its routes would answer 404 instead of its deprecation or 410 Gone`,
        scheduled
          ? `keep ${name}'s publication date (${onLive.published_at})`
          : `keep ${name} in ${ctx.file} for good: published ${onLive.published_at}${onLive.sunset_at ? `, sunset ${onLive.sunset_at}` : ''}`,
      );
      continue;
    }
    if (version.published.getTime() !== Date.parse(onLive.published_at)) {
      problem(
        `versions.${name}.published`,
        LIVE_RULES.publishedDate,
        `${name} is published on the live site since ${onLive.published_at} (${listed}) and is now dated ${isoSeconds(version.published)}; clients were given ${onLive.published_at}`,
        `set ${name}'s published back to '${configuredForm(onLive.published_at)}' in ${ctx.file}: a publication date clients have seen is kept`,
      );
    }
    const liveState = versionState(liveDates(onLive), ctx.now);
    const state = versionState(version, ctx.now);
    const announced = version.deprecated;
    const sunset = version.sunset;
    const earliest = announced && addMonths(announced, MINIMUM_DEPRECATION_MONTHS);
    const since = onLive.deprecated_at
      ? `the live site first published its deprecation (${isoSeconds(announced ?? new Date(onLive.deprecated_at))}, ${listed})`
      : `the day of this deploy, which first publishes its deprecation (${announced ? isoSeconds(announced) : '?'}): the live site (${listed}) serves ${name} as current`;
    if (liveState === 'current' && state === 'withdrawn' && sunset) {
      problem(
        `versions.${name}.sunset`,
        LIVE_RULES.noSkip,
        `${name} is current on the live site (${listed}) and its sunset ${isoSeconds(sunset)} has passed, so this deploy would take it from current straight to withdrawn (410 Gone); a version is deprecated for at least 12 months first`,
        `set ${name}'s sunset on or after ${earliest ? isoSeconds(earliest) : '12 months from now'} (12 months after the day of this deploy, which first publishes its deprecation)`,
      );
    } else if (sunset && earliest && sunset.getTime() < earliest.getTime()) {
      problem(
        `versions.${name}.sunset`,
        LIVE_RULES.minimumPeriod,
        `${name}'s sunset ${isoSeconds(sunset)} is earlier than 12 months after ${since}`,
        `set ${name}'s sunset on or after ${isoSeconds(earliest)}`,
      );
    }
    const liveSunset = onLive.sunset_at ? new Date(onLive.sunset_at) : undefined;
    if (liveSunset && sunset && sunset.getTime() < liveSunset.getTime()) {
      problem(
        `versions.${name}.sunset`,
        LIVE_RULES.sunsetNotEarlier,
        `${name}'s sunset ${isoSeconds(sunset)} is earlier than the one the live site announces (${onLive.sunset_at}, ${listed}); clients were told ${onLive.sunset_at}`,
        `keep ${name}'s sunset on or after ${onLive.sunset_at}: a sunset may move later, never earlier`,
      );
    }
  }
  problems.push(...droppedFields(live, next, ctx));
  return problems;
}

function liveDates(version: ManifestVersion): { deprecated?: Date; sunset?: Date } {
  return {
    ...(version.deprecated_at && { deprecated: new Date(version.deprecated_at) }),
    ...(version.sunset_at && { sunset: new Date(version.sunset_at) }),
  };
}

/**
 * The shape guard compares schema files; this compares what clients actually receive. A field the live
 * version's bodies carry and the new ones lack entirely is a field removed from a published version,
 * whatever the schema still lists (a serializer that stopped emitting `image`).
 */
function droppedFields(live: LiveSite, next: LiveComparison, ctx: LiveCheckContext): Problem[] {
  const allowed = ctx.allowDroppedFields ?? [];
  const problems: Problem[] = [];
  for (const [version, liveBody] of Object.entries(live.bodies).sort(([a], [b]) => compareText(a, b))) {
    const body = next.bodies[version];
    if (!body) continue; // withdrawn by this build; the lifecycle rules judge that
    const before = fieldPaths(liveBody);
    const after = fieldPaths(body);
    const address = liveAddress(live, apiPath(version));
    for (const [field, count] of before) {
      if (after.has(field) || field.endsWith('[]')) continue;
      const parent = parentOf(field);
      if (parent !== '' && !after.has(parent)) continue; // the outermost missing field says it all
      if (allowed.some((a) => field === a || field.startsWith(`${a}.`) || field.startsWith(`${a}[]`)))
        continue;
      const items = field.includes('[]') ? (before.get(parent) ?? 0) : 0;
      problems.push({
        code: 'schema_changed',
        file: address,
        field,
        message: `${
          items > 0
            ? `the live ${version} has it on ${count} of its ${items} items; this build would publish it on none`
            : `the live ${version} has it; this build would publish ${version} without it`
        }; a published version never loses a field (rule: ${LIVE_RULES.fields})`,
        hint: `restore it in ${version}'s serializer: an incompatible change is a new version. If the content itself no longer has it (the items that had it were removed or lost it), accept it for this deploy with --allow-dropped-field ${field}`,
      });
    }
  }
  return problems;
}

/** Every key path a JSON value carries (`content[].image`), with how many times it occurs. */
export function fieldPaths(value: unknown): Map<string, number> {
  const paths = new Map<string, number>();
  const visit = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      for (const item of node) {
        paths.set(`${path}[]`, (paths.get(`${path}[]`) ?? 0) + 1);
        visit(item, `${path}[]`);
      }
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        if (child === undefined) continue;
        const at = path === '' ? key : `${path}.${key}`;
        paths.set(at, (paths.get(at) ?? 0) + 1);
        visit(child, at);
      }
    }
  };
  visit(value, '');
  return paths;
}

function parentOf(field: string): string {
  const dot = field.lastIndexOf('.');
  return dot === -1 ? '' : field.slice(0, dot);
}
