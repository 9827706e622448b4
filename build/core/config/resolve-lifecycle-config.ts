import { isoSeconds, readDate } from '../edge/dates.ts';
import {
  addMonths,
  type Lifecycle,
  MINIMUM_DEPRECATION_MONTHS,
  type VersionLifecycle,
  versionState,
} from '../edge/lifecycle.ts';
import { ContentIndexError, type Problem } from '../errors.ts';
import type { SerializerRegistry } from '../serializers/registry.ts';
import { ajvProblems } from '../validation/_ajv.ts';
import { builtInValidator } from '../validation/validators.ts';
import { DEFAULT_CACHE_CONTROL, type HeadersConfigInput } from './lifecycle-config.ts';
import { siteUrl } from './site-config.ts';

export interface ResolveHeadersContext {
  /** The configuration file, for messages. */
  file: string;
  /** The build time: which versions are published, deprecated or withdrawn. */
  now: Date;
  serializers: SerializerRegistry;
  /** The site address and its documentation, for relative and default documentation links. */
  site: string;
  documentation: string;
}

export interface ResolvedHeaders {
  lifecycle: Lifecycle;
  warnings: Problem[];
}

/**
 * The rules that keep the API contract's promise (docs/api.md, Versions; docs/versions.md). Each problem names its rule, so an
 * author can look it up in the README and a script can match it.
 */
export const LIFECYCLE_RULES = {
  order: 'version-order',
  oneCurrent: 'one-current',
  published: 'published-version-required',
  sunsetNeedsSuccessor: 'sunset-needs-successor',
  sunsetAfterDeprecation: 'sunset-after-deprecation',
  minimumPeriod: 'sunset-min-12-months',
  serializer: 'serializer-required',
} as const;

/** Validates `headers.config.ts` and derives the lifecycle. Throws ContentIndexError naming the rule broken. */
export function resolveHeadersConfig(input: unknown, ctx: ResolveHeadersContext): ResolvedHeaders {
  const validateShape = builtInValidator('lifecycle-config');
  if (!validateShape(input)) {
    throw new ContentIndexError(ajvProblems(validateShape, { file: ctx.file, code: 'config_invalid' }));
  }
  const config = input as HeadersConfigInput;
  const problems: Problem[] = [];
  const problem = (field: string, rule: string, message: string, hint: string) =>
    problems.push({
      code: 'lifecycle_invalid',
      file: ctx.file,
      field,
      message: `${message} (rule: ${rule})`,
      hint,
    });

  const declared: VersionLifecycle[] = [];
  for (const [version, entry] of Object.entries(config.versions)) {
    const read = { published: readDate(entry.published), sunset: entry.sunset && readDate(entry.sunset) };
    for (const key of ['published', 'sunset'] as const) {
      const date = read[key];
      if (date && !date.ok)
        problems.push({
          code: 'config_invalid',
          file: ctx.file,
          field: `versions.${version}.${key}`,
          message: date.message,
        });
    }
    if (!read.published.ok || (read.sunset && !read.sunset.ok)) continue;
    const published = new Date(read.published.time);
    const sunset = read.sunset ? new Date(read.sunset.time) : undefined;
    const lifecycle: VersionLifecycle = {
      version,
      published,
      documentation: entry.documentation ? siteUrl(ctx.site, entry.documentation) : ctx.documentation,
    };
    if (sunset) lifecycle.sunset = sunset;
    declared.push(lifecycle);
  }
  if (problems.length > 0) throw new ContentIndexError(problems);

  declared.sort((a, b) => a.published.getTime() - b.published.getTime() || number(a) - number(b));
  for (const [index, version] of declared.entries()) {
    const successor = declared[index + 1];
    const name = version.version;
    if (successor) version.deprecated = successor.published;
    if (successor && number(successor) < number(version)) {
      problem(
        `versions.${successor.version}.published`,
        LIFECYCLE_RULES.order,
        `${successor.version} is published before ${name}`,
        'a higher version number is a newer version: publish it after the versions it replaces',
      );
    }
    if (successor && successor.published.getTime() === version.published.getTime()) {
      problem(
        `versions.${successor.version}.published`,
        LIFECYCLE_RULES.oneCurrent,
        `${name} and ${successor.version} are both published at ${isoSeconds(version.published)}, so two versions would be current`,
        `publish ${successor.version} after ${name}; it deprecates ${name} from that instant`,
      );
    } else if (successor && !version.sunset) {
      const earliest = isoSeconds(addMonths(successor.published, MINIMUM_DEPRECATION_MONTHS));
      problem(
        `versions.${name}.sunset`,
        LIFECYCLE_RULES.oneCurrent,
        `${name} has no sunset although ${successor.version} replaces it, so ${name} and ${successor.version} would both stay current`,
        `give ${name} a sunset on or after ${earliest} (12 months after ${successor.version}'s publication)`,
      );
    }
    if (!successor && version.sunset) {
      problem(
        `versions.${name}.sunset`,
        LIFECYCLE_RULES.sunsetNeedsSuccessor,
        `${name} is the latest version and has a sunset, but no version replaces it`,
        `remove ${name}'s sunset, or publish its successor first (the sunset belongs with the successor's publication)`,
      );
    }
    if (successor && version.sunset) {
      const earliest = addMonths(successor.published, MINIMUM_DEPRECATION_MONTHS);
      if (version.sunset.getTime() < successor.published.getTime()) {
        problem(
          `versions.${name}.sunset`,
          LIFECYCLE_RULES.sunsetAfterDeprecation,
          `${name}'s sunset ${isoSeconds(version.sunset)} is before its deprecation at ${isoSeconds(successor.published)} (${successor.version}'s publication); RFC 9745 section 4: the Sunset must not be earlier than the Deprecation`,
          `set ${name}'s sunset on or after ${isoSeconds(earliest)}`,
        );
      } else if (version.sunset.getTime() < earliest.getTime()) {
        problem(
          `versions.${name}.sunset`,
          LIFECYCLE_RULES.minimumPeriod,
          `${name}'s sunset ${isoSeconds(version.sunset)} is earlier than 12 months after ${successor.version}'s publication (${isoSeconds(successor.published)}); the API promises to serve a superseded version for at least 12 months`,
          `set ${name}'s sunset on or after ${isoSeconds(earliest)}`,
        );
      }
    }
    const withdrawn = versionState(version, ctx.now) === 'withdrawn';
    if (!withdrawn && !ctx.serializers[name]) {
      problem(
        `versions.${name}`,
        LIFECYCLE_RULES.serializer,
        `${name} has no serializer, so it cannot be published`,
        `add build/core/serializers/${name}.ts and its schema and register them in build/core/serializers/registry.ts, or remove ${name}`,
      );
    }
  }
  const published = declared.filter((v) => v.published.getTime() <= ctx.now.getTime());
  const first = declared[0];
  if (published.length === 0 && first) {
    problem(
      `versions.${first.version}.published`,
      LIFECYCLE_RULES.published,
      `no version is published at the build time ${isoSeconds(ctx.now)}; the first, ${first.version}, is dated ${isoSeconds(first.published)}`,
      `date ${first.version}'s publication on or before today`,
    );
  }
  if (problems.length > 0) throw new ContentIndexError(problems);

  const scheduled = declared.filter((v) => !published.includes(v));
  // A scheduled successor neither deprecates nor withdraws anything yet: the current version stays
  // current, with no sunset in effect, until a build on or after the successor's date publishes it.
  const last = published.at(-1);
  if (last && scheduled.length > 0) {
    delete last.deprecated;
    delete last.sunset;
  }
  const warnings: Problem[] = scheduled.map((v) => ({
    code: 'lifecycle_invalid',
    file: ctx.file,
    field: `versions.${v.version}.published`,
    message: `${v.version} is dated ${isoSeconds(v.published)}, after the build time: it is left out until a build on or after that date`,
  }));
  const cache = {
    maxAge: config.cacheControl?.maxAge ?? DEFAULT_CACHE_CONTROL.maxAge,
    staleWhileRevalidate:
      config.cacheControl?.staleWhileRevalidate ?? DEFAULT_CACHE_CONTROL.staleWhileRevalidate,
  };
  return { lifecycle: { versions: published, scheduled, cache }, warnings };
}

function number(version: VersionLifecycle): number {
  return Number(version.version.slice(1));
}
