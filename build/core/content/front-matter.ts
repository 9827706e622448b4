import type { ValidateFunction } from 'ajv';
import frontMatterSchema from '../../schemas/front-matter.schema.json' with { type: 'json' };
import { AS_WRITTEN, addressSegment, type UrlStyle } from '../config/route-pattern.ts';
import { readDate } from '../edge/dates.ts';
import type { ContentType } from '../edge/languages.ts';
import type { Problem } from '../errors.ts';
import { ajvProblems } from '../validation/_ajv.ts';
import { builtInValidator } from '../validation/validators.ts';
import type { SourceFile } from './model.ts';
import { isPlaceholder } from './scaffold.ts';
import { SLUG_HINT, slugProblem } from './slug.ts';

/** Front matter after validation: the keys content-index reads, with their checked types. */
export interface FrontMatter {
  title: string;
  description?: string;
  image?: string;
  /** As written until validated; then the published form, `2025-03-14T00:00:00Z` (dates.ts). */
  date?: string;
  draft?: boolean;
  slug?: string;
  technologies?: string[];
  tags?: string[];
  translationKey?: string;
}

export const KNOWN_KEYS = Object.keys(frontMatterSchema.properties);

function getValidators(): Record<ContentType, ValidateFunction> {
  const other = builtInValidator('front-matter-other');
  return { post: other, tip: other, project: builtInValidator('front-matter-project') };
}

/**
 * Keys Hugo (or its built-in templates) reads that content-index does not. They are never typo hints:
 * `images` is Hugo's Open Graph list, not a misspelt `image`.
 */
const HUGO_KEYS = new Set(
  [
    'aliases',
    'audio',
    'build',
    'cascade',
    'categories',
    'expiryDate',
    'headless',
    'images',
    'isCJKLanguage',
    'keywords',
    'lastmod',
    'layout',
    'linkTitle',
    'markup',
    'menu',
    'menus',
    'outputs',
    'params',
    'publishDate',
    'resources',
    'series',
    'sitemap',
    'summary',
    'type',
    'url',
    'videos',
    'weight',
  ].map((k) => k.toLowerCase()),
);

export interface FoldedKeys {
  data: unknown;
  /** Keys that name a key already given under another spelling (`Title` after `title`). */
  repeated: { key: string; of: string }[];
}

/**
 * Hugo reads front-matter keys case-insensitively (`Title`, `DATE`): the keys content-index reads (and
 * `extra`, e.g. the layout's language field) are renamed to their spelling here. Other keys are kept
 * as written. The object is copied only when a key is renamed.
 */
export function createKeyFolder(extra: readonly string[] = []): (data: unknown) => FoldedKeys {
  const canonical = new Map([...KNOWN_KEYS, ...extra].map((k) => [k.toLowerCase(), k]));
  return (data) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return { data, repeated: [] };
    const keys = Object.keys(data);
    if (keys.every((k) => (canonical.get(k.toLowerCase()) ?? k) === k)) return { data, repeated: [] };
    const out: Record<string, unknown> = {};
    const repeated: FoldedKeys['repeated'] = [];
    const source = data as Record<string, unknown>;
    // Spelled as written first, so `title` wins over a later `Title` and the later one is reported.
    for (const key of keys) {
      const name = canonical.get(key.toLowerCase()) ?? key;
      if (Object.hasOwn(out, name)) repeated.push({ key, of: name });
      else out[name] = source[key];
    }
    return { data: out, repeated };
  };
}

export type FrontMatterResult =
  | {
      ok: true;
      data: FrontMatter;
      warnings: Problem[];
      /** The date's calendar day as written (in its own offset, not UTC): YYYY-MM-DD, for `{year}` routes. */
      day?: string;
    }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

export function validateFrontMatter(file: SourceFile, urls: UrlStyle = AS_WRITTEN): FrontMatterResult {
  const data = file.data;
  const validate = getValidators()[file.type];
  const lineOf = (key: string) => file.lines[key];
  // A key that is missing has no line of its own: point at the front matter's opening line.
  const lineOfOrStart = (key: string) => lineOf(key) ?? 1;
  const warnings = typoWarnings(file);
  const problems: Problem[] = [];
  const typos = new Set<Problem>();
  if (!validate(data)) {
    for (const p of ajvProblems(validate, { file: file.path, lineOf: lineOfOrStart })) {
      // A missing key next to a near-miss is almost always a typo: point at the line that has it.
      const typo =
        p.code === 'field_required' ? warnings.find((w) => w.hint === didYouMean(p.field ?? '')) : undefined;
      if (!typo) {
        problems.push(p);
        continue;
      }
      typos.add(typo);
      problems.push({
        ...p,
        line: typo.line,
        hint: `\`${typo.field}\` looks like a typo: did you mean \`${p.field}\`?`,
      });
    }
  }
  const fields = data as Partial<Record<keyof FrontMatter, unknown>>;
  if (typeof fields.slug === 'string' && fields.slug !== '') {
    const made = addressSegment(fields.slug, urls);
    const why = slugProblem(made);
    if (why)
      problems.push({
        code: 'field_invalid',
        file: file.path,
        line: lineOfOrStart('slug'),
        field: 'slug',
        message: `must be one URL path segment${made === fields.slug ? '' : ` once made an address (${JSON.stringify(made)})`}: ${why}`,
        hint: SLUG_HINT,
      });
  }
  problems.push(...unprintable(file, fields, lineOfOrStart));
  if (fields.draft !== true) problems.push(...placeholders(file, fields, lineOfOrStart));
  const remaining = warnings.filter((w) => !typos.has(w));
  if (problems.length > 0) return { ok: false, problems, warnings: remaining };
  const checked = { ...(data as FrontMatter) };
  // Every published date has one form, whatever form the author wrote.
  let day: string | undefined;
  if (checked.date !== undefined) {
    const date = readDate(checked.date);
    if (date.ok) {
      day = checked.date.slice(0, 10);
      checked.date = date.published;
    }
  }
  return { ok: true, data: checked, warnings: remaining, ...(day !== undefined && { day }) };
}

/** C0 controls but the tab, DEL and C1 controls: in published text they would be published as is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/;
/** Line feed, carriage return, NEL (a C1 control that breaks lines) and Unicode's line and paragraph separators. */
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;

/**
 * The text fields the index publishes, and what one value is called in a message when it must be one
 * line. A description may run over lines. The slug has its own rule (slug.ts), which refuses them all.
 */
const PUBLISHED_TEXT = {
  title: 'a title',
  description: undefined,
  image: 'an image address',
  technologies: 'a technology',
  tags: 'a tag',
} as const;

/** Control characters in published text, and line breaks where one line is expected, with the field. */
function unprintable(
  file: SourceFile,
  fields: Partial<Record<keyof FrontMatter, unknown>>,
  lineOf: (key: string) => number,
): Problem[] {
  const problems: Problem[] = [];
  for (const [key, oneLine] of Object.entries(PUBLISHED_TEXT)) {
    const value = fields[key as keyof typeof PUBLISHED_TEXT];
    const values = Array.isArray(value) ? value : [value];
    values.forEach((text, i) => {
      if (typeof text !== 'string') return;
      const field = Array.isArray(value) ? `${key}.${i}` : key;
      const lineBreak = oneLine === undefined ? -1 : text.search(LINE_BREAK);
      const control = lineBreak >= 0 ? lineBreak : text.search(CONTROL);
      if (control < 0) return;
      const code = `U+${(text.codePointAt(control) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
      problems.push({
        code: 'field_invalid',
        file: file.path,
        line: lineOf(key),
        field,
        ...(lineBreak >= 0
          ? {
              message: `contains a line break (${code}) at character ${control + 1}; ${oneLine} is one line`,
              hint: 'write it on one line (a YAML > or | block keeps a line break at its end: use >- or |-, or a quoted value)',
            }
          : {
              message: `contains a control character (${code}) at character ${control + 1}, which would be published as is`,
              hint: 'remove it: published text holds printable characters only (a tab is allowed)',
            }),
      });
    });
  }
  return problems;
}

/** A title or description still as `content-index new` wrote it would publish the scaffold's text. */
function placeholders(
  file: SourceFile,
  fields: Partial<Record<keyof FrontMatter, unknown>>,
  lineOf: (key: string) => number,
): Problem[] {
  const problems: Problem[] = [];
  for (const key of ['title', 'description'] as const) {
    const value = fields[key];
    if (typeof value !== 'string' || !isPlaceholder(key, value)) continue;
    problems.push({
      code: 'field_invalid',
      file: file.path,
      line: lineOf(key),
      field: key,
      message: `is still the placeholder ${JSON.stringify(value)} that \`content-index new\` wrote`,
      hint: `write the ${key} of this page, or keep draft: true until it is ready`,
    });
  }
  return problems;
}

/** Unknown keys are allowed (real sites carry many), but one that is a near-miss of a known key gets a hint. */
function typoWarnings(file: SourceFile): Problem[] {
  const data = file.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const warnings: Problem[] = [];
  for (const key of Object.keys(data)) {
    if (KNOWN_KEYS.includes(key) || HUGO_KEYS.has(key.toLowerCase())) continue;
    const match = closestKnownKey(key);
    if (!match) continue;
    const warning: Problem = {
      code: 'field_invalid',
      file: file.path,
      field: key,
      message: 'is not a key content-index reads',
      hint: didYouMean(match),
    };
    const line = file.lines[key];
    if (line !== undefined) warning.line = line;
    warnings.push(warning);
  }
  return warnings;
}

function didYouMean(key: string): string {
  return `did you mean \`${key}\`?`;
}

function closestKnownKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const known of KNOWN_KEYS) {
    const limit = known.length <= 4 ? 1 : 2;
    const distance = editDistance(lower, known.toLowerCase(), limit);
    if (distance <= limit && (!best || distance < best.distance)) best = { key: known, distance };
  }
  return best?.key;
}

/** Optimal-string-alignment distance (adjacent swaps count as one edit), stopping early past `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
