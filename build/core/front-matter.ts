import type { ValidateFunction } from 'ajv';
import frontMatterSchema from '../schemas/front-matter.schema.json' with { type: 'json' };
import { ajvProblems, createAjv } from './_ajv.ts';
import type { Problem } from './errors.ts';
import type { ContentType } from './languages.ts';
import type { SourceFile } from './model.ts';

/** Front matter after validation: the keys content-index reads, with their checked types. */
export interface FrontMatter {
  title: string;
  description?: string;
  image?: string;
  /** ISO 8601 (a date-only value means midnight UTC). */
  date?: string;
  draft?: boolean;
  slug?: string;
  technologies?: string[];
  tags?: string[];
  translationKey?: string;
}

export const KNOWN_KEYS = Object.keys(frontMatterSchema.properties);

const NOT_ON_PROJECT_ONLY = {
  not: {},
  'x-message': 'only projects may list technologies',
  'x-hint': 'move the file to projects/, or put these values in tags',
};

let validators: Record<ContentType, ValidateFunction> | undefined;

function getValidators(): Record<ContentType, ValidateFunction> {
  if (validators) return validators;
  const ajv = createAjv();
  const project = ajv.compile(frontMatterSchema);
  // Posts and tips share the schema except that `technologies` is refused (spec 2.4).
  const { $id: _id, ...rest } = frontMatterSchema;
  const withoutTechnologies = {
    ...rest,
    properties: { ...frontMatterSchema.properties, technologies: NOT_ON_PROJECT_ONLY },
  };
  const other = ajv.compile(withoutTechnologies);
  validators = { post: other, tip: other, project };
  return validators;
}

/** YAML timestamps arrive as Date objects; the schema and the outputs work with ISO strings. */
export function normalizeFrontMatter(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...data };
  const date = out.date;
  if (date instanceof Date) out.date = Number.isNaN(date.getTime()) ? String(date) : date.toISOString();
  // A quoted date-time without a zone would be read in the build machine's time zone, and the same
  // sources would publish different bytes on different machines: it means UTC, as YAML's own timestamps do.
  if (typeof out.date === 'string' && LOCAL_DATE_TIME.test(out.date))
    out.date = `${out.date.replace(' ', 'T')}Z`;
  return out;
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

export type FrontMatterResult =
  | { ok: true; data: FrontMatter; warnings: Problem[] }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

export function validateFrontMatter(file: SourceFile): FrontMatterResult {
  const data = normalizeFrontMatter(file.data);
  const validate = getValidators()[file.type];
  const lineOf = (key: string) => file.lines[key];
  const warnings = typoWarnings(file);
  if (validate(data)) return { ok: true, data: data as FrontMatter, warnings };
  const typos = new Set<Problem>();
  // A key that is missing has no line of its own: point at the front matter's opening line.
  const lineOfOrStart = (key: string) => lineOf(key) ?? 1;
  const problems = ajvProblems(validate, { file: file.path, lineOf: lineOfOrStart }).map((p) => {
    if (p.code !== 'field_required' || !p.field) return p;
    // A missing key next to a near-miss is almost always a typo: point at the line that has it.
    const typo = warnings.find((w) => w.hint === didYouMean(p.field ?? ''));
    if (!typo) return p;
    typos.add(typo);
    return {
      ...p,
      line: typo.line,
      hint: `\`${typo.field}\` looks like a typo: did you mean \`${p.field}\`?`,
    };
  });
  return { ok: false, problems, warnings: warnings.filter((w) => !typos.has(w)) };
}

/** Unknown keys are allowed (real sites carry many), but one that is a near-miss of a known key gets a hint. */
function typoWarnings(file: SourceFile): Problem[] {
  const data = file.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const warnings: Problem[] = [];
  for (const key of Object.keys(data)) {
    if (KNOWN_KEYS.includes(key)) continue;
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
    if (lower === known.toLowerCase()) return known;
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
