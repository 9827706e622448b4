import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { readDate } from '../edge/dates.ts';
import type { Problem, ProblemCode } from '../errors.ts';

// Loaded when a schema is first compiled: the package's own schemas are compiled ahead of time
// (validators.ts), so a build starts without ajv unless a site registers a schema of its own.
const require = createRequire(import.meta.url);

// Required rather than imported, though every build needs it: Node finds an imported CommonJS module's
// exports by lexing its source first, and this one's (mostly long regular expressions) took ~10 ms to
// lex, five times what requiring it costs.
const { fullFormats } =
  require('ajv-formats/dist/formats.js') as typeof import('ajv-formats/dist/formats.js');

/**
 * The formats schemas may name: ajv-formats' and `date-or-date-time` (front-matter dates, validated as
 * written, dates.ts; the error message comes from there too). Precompiled validators read them from
 * here, so they must be the very objects ajv compiles with.
 */
export const FORMATS = {
  ...fullFormats,
  'date-or-date-time': { type: 'string' as const, validate: (value: string) => readDate(value).ok },
};

export interface AjvOptions {
  /**
   * The schema ships with content-index, so it is not checked against the JSON Schema meta-schema on
   * every start (tests/schemas.test.ts checks every one of them once). Compiling the meta-schema in
   * each instance was two thirds of the validators' start-up time. A schema from elsewhere (a version
   * a site registers) is still checked.
   */
  builtIn?: boolean;
  /** Keep the generated code for ajv's standalone module (scripts/build-dist.mjs precompiles with it). */
  standalone?: boolean;
}

/**
 * One ajv setup for every schema in the repo. Schemas may carry two annotations that turn ajv's
 * terse errors into messages an author can act on: `x-message` and `x-hint`.
 * Not for Pages Functions: ajv generates code with `new Function`, which workerd forbids.
 */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const { Ajv2020: Ajv, _ } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateSchema: !options.builtIn,
    // The standalone code names the formats by this expression: the module imports FORMATS under it.
    ...(options.standalone && { code: { source: true, esm: true, formats: _`FORMATS` } }),
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-hint', schemaType: 'string' });
  ajv.addFormat('date-or-date-time', FORMATS['date-or-date-time']);
  return ajv;
}

export interface ErrorContext {
  file?: string;
  /** 1-based line of a top-level key, where the source can tell. */
  lineOf?: (topLevelKey: string) => number | undefined;
  /** Prefix for `field`, e.g. `content.3` when validating part of a larger document. */
  fieldPrefix?: string;
  code?: ProblemCode;
}

export function ajvProblems(validate: ValidateFunction, ctx: ErrorContext = {}): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    const problem = toProblem(error, ctx);
    if (!problem) continue;
    const key = `${problem.field}\0${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

const FORMAT_NAMES: Record<string, string> = {
  uri: 'an absolute address (https://…)',
  'date-time': 'an ISO 8601 date-time',
  email: 'an e-mail address',
};

function toProblem(error: ErrorObject, ctx: ErrorContext): Problem | undefined {
  // `if` only reports that a `then` branch failed; the branch's own error says what is wrong.
  // `propertyNames` likewise: the name's own error (with the name) follows it.
  if (error.keyword === 'if' || error.keyword === 'propertyNames') return undefined;
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.propertyName !== undefined) segments.push(error.propertyName);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  const field = [ctx.fieldPrefix, ...segments].filter((s) => s !== undefined && s !== '').join('.');
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const custom = typeof parent['x-message'] === 'string' ? parent['x-message'] : undefined;
  const hint = typeof parent['x-hint'] === 'string' ? parent['x-hint'] : undefined;
  const topKey = segments[0];
  const line = topKey !== undefined ? ctx.lineOf?.(topKey) : undefined;

  let code: ProblemCode = ctx.code ?? 'field_invalid';
  let message: string;
  switch (error.keyword) {
    case 'required':
      code = ctx.code ?? 'field_required';
      message = 'is required';
      break;
    case 'type':
      message = `must be ${typeName(String(error.params.type))}, got ${describe(error.data)}`;
      break;
    case 'minLength':
      message =
        error.params.limit === 1 ? 'must not be empty' : `must be at least ${error.params.limit} characters`;
      break;
    case 'maxLength':
      message = `must be at most ${error.params.limit} characters, got ${String(error.data).length}`;
      break;
    case 'format':
      if (error.params.format === 'date-or-date-time' && typeof error.data === 'string') {
        const date = readDate(error.data);
        if (!date.ok) {
          message = date.message;
          break;
        }
      }
      message = `must be ${FORMAT_NAMES[String(error.params.format)] ?? String(error.params.format)}, got ${describe(error.data)}`;
      break;
    case 'enum':
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${describe(error.data)}`;
      break;
    case 'not':
      code = ctx.code ?? 'field_not_allowed';
      message = 'is not allowed here';
      break;
    case 'additionalProperties':
      code = ctx.code ?? 'field_not_allowed';
      message = 'is not a known field';
      break;
    default:
      message = error.message ?? `fails ${error.keyword}`;
  }
  // `x-message` explains a rule a pattern or `not` encodes; other keywords already say what is wrong.
  if (error.keyword === 'pattern')
    message = error.params.pattern === '\\S' ? 'must not be empty' : 'has an invalid form';
  if (custom && (error.keyword === 'pattern' || error.keyword === 'not')) message = custom;
  const problem: Problem = { code, message };
  if (ctx.file !== undefined) problem.file = ctx.file;
  if (line !== undefined) problem.line = line;
  if (field) problem.field = field;
  if (hint) problem.hint = hint;
  return problem;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function typeName(type: string): string {
  const names: Record<string, string> = {
    string: 'text',
    array: 'a list',
    object: 'a mapping of keys to values',
    boolean: 'true or false',
    integer: 'a whole number',
    number: 'a number',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  return `${typeof value} ${String(value)}`;
}
