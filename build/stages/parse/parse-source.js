// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import { createRequire } from 'node:module';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import { printParseErrorCode, parse as scanJson, visit as visitJson } from 'jsonc-parser';
import { CLOSING_FENCE, closingEnd, frontMatterStart, openingOf } from './fences.js';
import { flowDepth } from './nesting.js';

// smol-toml's CommonJS build, as wrangler-config.ts requires it (the same module then): one file, where
// its ES build is nine modules (~3 ms to load against ~13).
const require = createRequire(import.meta.url);
/** @type {typeof import('smol-toml')} */
const toml = require('smol-toml');
const { parse: parseTomlText, TomlDate, TomlError } = toml;

/** @typedef {import('../../core/errors.ts').Problem} Problem */
/** @typedef {import('./fences.js').FrontMatterFormat} FrontMatterFormat */

/**
 * @typedef {object} ParsedSource
 * @property {unknown} data
 * @property {string} matter The front matter's text; `keyLines` maps it to line numbers when a message needs one.
 * @property {FrontMatterFormat} format
 * @property {string} [body] The body reduced to its words (body-text.js), when bodies are read.
 * @property {() => string} [bodyOf] For an outcome the parse cache kept without its body (it keeps none
 * on disk): the body, read from the file when first asked.
 */

/**
 * A file whose front matter could not be read. `translationKey` is what a plain look at its text finds,
 * so its translations can still be recognised as its own (and not reported as orphans).
 * @typedef {Problem & { translationKey?: string }} ParseFailure
 */

class UnsupportedLanguage extends Error {}

/** @param {string} language */
const refuse = (language) => () => {
  throw new UnsupportedLanguage(language);
};

/**
 * YAML's timestamps are read as the text the author wrote: js-yaml's would roll 2025-02-30 over to
 * March and turn year 0000 into 1900 before anything could check them. dates.ts validates the text.
 */
const TIMESTAMP_AS_TEXT = new yaml.Type('tag:yaml.org,2002:timestamp', {
  kind: 'scalar',
  resolve: (text) => typeof text === 'string' && /^\d{4}-\d\d?-\d\d?/.test(text),
  construct: (text) => text,
});
// Same tag and kind: it takes the place of js-yaml's own timestamp type (merge keys and the rest stay).
const YAML_SCHEMA = yaml.DEFAULT_SCHEMA.extend({ implicit: [TIMESTAMP_AS_TEXT] });

const engines = {
  // js-yaml 4 rather than gray-matter's bundled js-yaml 3: faster, and the maintained line.
  /** @param {string} text */
  yaml: (text) => /** @type {object} */ (yaml.load(text, { schema: YAML_SCHEMA })),
  toml: parseToml,
  // gray-matter would `eval` a `---js` block: content must never run code during a build.
  javascript: refuse('javascript'),
  js: refuse('js'),
};

/** Past these, front matter is an attack or an accident (YAML alias bombs expand exponentially). */
export const MAX_FRONT_MATTER_VALUES = 10_000;
export const MAX_FRONT_MATTER_DEPTH = 32;
/** The flow nesting (brackets) a YAML or TOML front matter may show before it is parsed (see flowDepth). */
const MAX_FRONT_MATTER_FLOW_DEPTH = 64;

const FORMAT_NAME = { yaml: 'YAML', toml: 'TOML', json: 'JSON' };
const FORMATS_HINT =
  'write front matter in YAML (between --- lines), TOML (between +++ lines) or JSON (one { … } object), as Hugo reads it';

/**
 * Front matter of one file, in any of Hugo's three formats. Never throws: malformed input becomes a
 * Problem with its line.
 * @param {string} path
 * @param {string} text
 * @returns {ParsedSource | ParseFailure}
 */
export function parseSource(path, text) {
  if (text.includes('\u0000')) {
    return {
      code: 'source_unreadable',
      file: path,
      line: 1,
      message: 'is not a UTF-8 text file',
      hint: 'save it as UTF-8 Markdown, or move it out of the content folder',
    };
  }
  const unmarked = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Hugo skips blank lines before the front matter: it is read from its fence, and its lines are the file's.
  const start = frontMatterStart(unmarked);
  if (start === 0) return parseFrom(path, unmarked);
  const skipped = unmarked.slice(0, start).split('\n').length - 1;
  const parsed = parseFrom(path, unmarked.slice(start));
  if ('code' in parsed) {
    return {
      ...parsed,
      line: (parsed.line ?? 1) + skipped,
      message: parsed.message.replace('opened on line 1', `opened on line ${1 + skipped}`),
    };
  }
  return parsed.matter === '' ? parsed : { ...parsed, matter: '\n'.repeat(skipped) + parsed.matter };
}

/**
 * @param {string} path
 * @param {string} source The file from where its front matter opens (no byte-order mark, no blank line before it).
 * @returns {ParsedSource | ParseFailure}
 */
function parseFrom(path, source) {
  const opening = openingOf(source);
  // No front matter: an empty mapping, which validation reports as a missing title.
  if (!opening) return { data: {}, matter: '', format: 'yaml' };
  const { format, tag } = opening;
  if (tag !== '' && !(format === 'yaml' && (tag === 'yaml' || tag === 'yml'))) {
    return salvage(source, {
      code: 'source_unreadable',
      file: path,
      line: 1,
      message: `front matter in ${tag} is not supported`,
      hint: FORMATS_HINT,
    });
  }
  const end = closingEnd(source, format);
  if (end < 0) {
    return salvage(source, {
      code: `${format}_invalid`,
      file: path,
      line: 1,
      message: `the ${FORMAT_NAME[format]} front matter opened on line 1 is not closed`,
      hint: closingHint(format),
    });
  }
  // A byte that is not UTF-8 decodes to U+FFFD, which would be published as is: anywhere in the front
  // matter, not only where a byte-order mark would be. (The body is never read, nor checked.)
  const undecoded = source.indexOf('\uFFFD');
  if (undecoded >= 0 && undecoded < end) {
    return salvage(source, {
      code: 'source_unreadable',
      file: path,
      line: lineAt(source, undecoded),
      message: 'is not valid UTF-8: this line has bytes that do not decode (shown as \uFFFD)',
      hint: 'save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8), or retype the characters on this line',
    });
  }
  // Before any parser, which would recurse once per level of a hostile nesting until the stack runs out.
  // Exact for JSON; for YAML and TOML a bound no real front matter nears, the parsed value's own
  // depth (complexity) being the exact check there.
  const limit = format === 'json' ? MAX_FRONT_MATTER_DEPTH : MAX_FRONT_MATTER_FLOW_DEPTH;
  if (flowDepth(source.slice(0, end), format, limit) > limit) {
    return salvage(source, {
      code: 'source_too_large',
      file: path,
      line: 1,
      message: `front matter nests deeper than ${MAX_FRONT_MATTER_DEPTH} levels`,
      hint: 'front matter holds a few short fields; remove YAML aliases (*name) and deeply nested values',
    });
  }
  /** @type {{ data: unknown; matter: string }} */
  let parsed;
  if (format === 'json') {
    const json = source.slice(0, end);
    try {
      parsed = { data: JSON.parse(json), matter: json };
    } catch (error) {
      return salvage(source, jsonProblem(path, json, error));
    }
    // JSON.parse keeps the last of two equal keys; YAML and TOML refuse them, and so does this.
    const repeated = repeatedJsonKey(json);
    if (repeated) return salvage(source, { ...repeated, file: path });
  } else {
    try {
      // Passing options also turns off gray-matter's cache, which would keep every file in memory.
      const options = format === 'toml' ? { engines, delimiters: '+++', language: 'toml' } : { engines };
      parsed = /** @type {any} */ (matter(source.slice(0, end), /** @type {any} */ (options)));
    } catch (error) {
      return salvage(source, matterProblem(path, format, error));
    }
  }
  const excess = complexity(parsed.data);
  if (excess) {
    return {
      code: 'source_too_large',
      file: path,
      line: 1,
      message: `front matter ${excess}`,
      hint: 'front matter holds a few short fields; remove YAML aliases (*name) and deeply nested values',
    };
  }
  return { data: parsed.data, matter: parsed.matter ?? '', format };
}

/**
 * @param {FrontMatterFormat} format
 * @returns {string}
 */
export function closingHint(format) {
  return format === 'json'
    ? 'end the JSON object with the } that matches its opening {'
    : `close the front matter with a line containing only ${CLOSING_FENCE[format]}`;
}

/**
 * TOML dates arrive as TomlDate objects (a Date, with February 30 already rolled over to March). A
 * top-level date is replaced by the literal the author wrote, so it is validated as written; a nested
 * one (never read) by smol-toml's own rendering of it.
 * @param {string} text
 * @returns {object}
 */
function parseToml(text) {
  // gray-matter cuts the text at the "\n" of "\n+++": a CRLF file leaves a lone CR, which TOML refuses.
  const data = /** @type {Record<string, unknown>} */ (
    parseTomlText(text.endsWith('\r') ? text.slice(0, -1) : text)
  );
  /** @type {Map<string, string> | undefined} */
  let literals;
  for (const [key, value] of Object.entries(data)) {
    if (value instanceof TomlDate) {
      literals ??= dateLiterals(text);
      const literal = literals.get(key);
      // The literal must read as the parsed value: a look at the text never overrides the parser.
      data[key] =
        literal !== undefined && new TomlDate(literal).getTime() === value.getTime()
          ? literal
          : value.toISOString();
    } else if (typeof value === 'object' && value !== null) {
      data[key] = datesAsText(value);
    }
  }
  return data;
}

/**
 * @param {unknown} value
 * @returns {unknown}
 */
function datesAsText(value) {
  if (value instanceof TomlDate) return value.toISOString();
  if (Array.isArray(value)) return value.map(datesAsText);
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) /** @type {any} */ (value)[key] = datesAsText(child);
  }
  return value;
}

const TOML_DATE_LINE =
  /^[ \t]*(?:"([^"\\]+)"|'([^']+)'|([A-Za-z0-9_-]+))[ \t]*=[ \t]*(\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)[ \t]*(?:#.*)?$/;

/**
 * The date literals of top-level `key = value` lines, up to the first table header.
 * @param {string} text
 * @returns {Map<string, string>}
 */
function dateLiterals(text) {
  const found = new Map();
  for (const row of text.split('\n')) {
    const line = row.endsWith('\r') ? row.slice(0, -1) : row;
    if (/^[ \t]*\[/.test(line)) break;
    const match = TOML_DATE_LINE.exec(line);
    const key = match?.[1] ?? match?.[2] ?? match?.[3];
    if (key !== undefined && !found.has(key)) found.set(key, match?.[4]);
  }
  return found;
}

/**
 * Counts values as if every alias were expanded, stopping at the budget: a "billion laughs" document
 * parses in microseconds (aliases are shared references) but would explode in anything that walks it.
 * @param {unknown} data
 * @returns {string | undefined}
 */
function complexity(data) {
  let values = 0;
  /** @type {(value: unknown, depth: number) => string | undefined} */
  const walk = (value, depth) => {
    if (++values > MAX_FRONT_MATTER_VALUES) return `expands to more than ${MAX_FRONT_MATTER_VALUES} values`;
    if (depth > MAX_FRONT_MATTER_DEPTH) return `nests deeper than ${MAX_FRONT_MATTER_DEPTH} levels`;
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return undefined;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      const found = walk(child, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return walk(data, 0);
}

/**
 * @param {string} path
 * @param {FrontMatterFormat} format
 * @param {unknown} error
 * @returns {Problem}
 */
function matterProblem(path, format, error) {
  /** @type {Problem} */
  const problem = {
    code: format === 'toml' ? 'toml_invalid' : 'yaml_invalid',
    file: path,
    message: `front matter is not valid ${FORMAT_NAME[format]}`,
    hint:
      format === 'toml'
        ? 'check the line: text values are quoted ("…"), lists are [ … ], each key once'
        : 'check indentation and quote values that contain ": " or start with a special character',
  };
  if (error instanceof UnsupportedLanguage) {
    problem.code = 'source_unreadable';
    problem.line = 1;
    problem.message = `front matter in ${error.message} is not supported`;
    problem.hint = FORMATS_HINT;
  } else if (error instanceof yaml.YAMLException) {
    problem.message = `front matter is not valid YAML: ${error.reason}`;
    if (error.mark) problem.line = error.mark.line + 1;
    if (/duplicated mapping key/.test(error.reason))
      problem.hint = 'keep each key once (the later one would be lost)';
  } else if (error instanceof TomlError) {
    // smol-toml's message repeats the line with a caret; its first line says what is wrong.
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    problem.message = `front matter is not valid TOML: ${reason}`;
    // The text given to the parser starts on the file's first line, right after the opening +++.
    problem.line = error.line;
  } else if (error instanceof Error) {
    problem.message = `front matter could not be read: ${error.message}`;
  }
  return problem;
}

const JSON_ERRORS = {
  InvalidSymbol: 'unexpected character (text values need "double quotes")',
  InvalidNumberFormat: 'not a valid number',
  PropertyNameExpected: 'expected a key in "double quotes" (no comma after the last value)',
  ValueExpected: 'expected a value (no comma after the last item)',
  ColonExpected: 'expected : after the key',
  CommaExpected: 'expected , between values',
  CloseBraceExpected: 'expected } to close the object',
  CloseBracketExpected: 'expected ] to close the list',
  EndOfFileExpected: 'unexpected text after the object',
  InvalidCommentToken: 'JSON has no comments',
  UnexpectedEndOfComment: 'JSON has no comments',
  UnexpectedEndOfString: 'a text value is not closed on its line',
  UnexpectedEndOfNumber: 'not a valid number',
  InvalidUnicode: 'not a valid \\u escape',
  InvalidEscapeCharacter: 'not a valid escape after \\',
  InvalidCharacter: 'a control character inside a text value (write \\n for a line break)',
};

/**
 * JSON.parse reads the data (exactly the JSON grammar); its errors do not always carry a position, so
 * jsonc-parser's scanner, strict, finds where the text goes wrong, and the line follows from there.
 * @param {string} path
 * @param {string} json
 * @param {unknown} error
 * @returns {Problem}
 */
function jsonProblem(path, json, error) {
  /** @type {import('jsonc-parser').ParseError[]} */
  const errors = [];
  scanJson(json, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  const v8Position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  const offset = first ? first.offset : v8Position !== undefined ? Number(v8Position) : 0;
  const code = first ? /** @type {keyof typeof JSON_ERRORS} */ (printParseErrorCode(first.error)) : undefined;
  const reason =
    (code && JSON_ERRORS[code]) ??
    (error instanceof Error ? error.message.replace(/, ".*$/s, '') : String(error));
  return {
    code: 'json_invalid',
    file: path,
    line: lineAt(json, offset),
    message: `front matter is not valid JSON: ${reason}`,
    hint: 'JSON front matter is one object: keys and text in "double quotes", no trailing commas, no comments',
  };
}

/**
 * 1-based line of a position in the text (the front matter starts on the file's first line).
 * @param {string} text
 * @param {number} offset
 * @returns {number}
 */
function lineAt(text, offset) {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The first key given twice in one object of a JSON front matter, at any depth, with its line.
 * @param {string} json
 * @returns {Omit<Problem, 'file'> | undefined}
 */
function repeatedJsonKey(json) {
  /** @type {Map<string, number>[]} */
  const objects = [];
  /** @type {Omit<Problem, 'file'> | undefined} */
  let found;
  visitJson(json, {
    onObjectBegin: () => void objects.push(new Map()),
    onObjectEnd: () => void objects.pop(),
    onObjectProperty: (property, _offset, _length, startLine, _startCharacter, pathSupplier) => {
      const keys = objects.at(-1);
      if (found || !keys) return;
      const first = keys.get(property);
      if (first === undefined) {
        keys.set(property, startLine + 1);
        return;
      }
      const field = [...pathSupplier(), property].join('.');
      found = {
        code: 'json_invalid',
        line: startLine + 1,
        field,
        message: `is given twice (first on line ${first}); JSON keeps only the last, so the first would be lost unannounced`,
        hint: `keep one ${property} key`,
      };
    },
  });
  return found;
}

const TRANSLATION_KEY =
  /^[ \t]*["']?translationKey["']?[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'#,][^#,\n]*?))[ \t]*,?[ \t]*(?:#.*)?\r?$/im;

/**
 * @param {string} source
 * @param {Problem} problem
 * @returns {ParseFailure}
 */
function salvage(source, problem) {
  const match = TRANSLATION_KEY.exec(source);
  const key = (match?.[1] ?? match?.[2] ?? match?.[3])?.trim();
  return key ? { ...problem, translationKey: key } : problem;
}
