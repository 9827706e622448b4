// Plain JavaScript (typed by JSDoc, checked by tsc): this runs in the parse worker, which starts
// without a TypeScript loader.
import matter from 'gray-matter';
import yaml from 'js-yaml';

/** @typedef {import('../../core/errors.ts').Problem} Problem */

/**
 * @typedef {object} ParsedSource
 * @property {unknown} data
 * @property {string} matter The front matter's text; `keyLines` maps it to line numbers when a message needs one.
 */

class UnsupportedLanguage extends Error {}

/** @param {string} language */
const refuse = (language) => () => {
  throw new UnsupportedLanguage(language);
};

const engines = {
  // js-yaml 4 rather than gray-matter's bundled js-yaml 3: faster, and the maintained line.
  /** @param {string} text */
  yaml: (text) => /** @type {object} */ (yaml.load(text, { schema: yaml.DEFAULT_SCHEMA })),
  // gray-matter would `eval` a `---js` block: content must never run code during a build.
  javascript: refuse('javascript'),
  js: refuse('js'),
};

/** Past these, front matter is an attack or an accident (YAML alias bombs expand exponentially). */
export const MAX_FRONT_MATTER_VALUES = 10_000;
export const MAX_FRONT_MATTER_DEPTH = 32;

/**
 * Front matter of one file. Never throws: malformed input becomes a Problem with its line.
 * @param {string} path
 * @param {string} text
 * @returns {ParsedSource | Problem}
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
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  /** @type {{ data: unknown; matter: string }} */
  let parsed;
  try {
    // Passing options also turns off gray-matter's cache, which would keep every file in memory.
    parsed = /** @type {any} */ (matter(source, /** @type {any} */ ({ engines })));
  } catch (error) {
    return yamlProblem(path, error);
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
  return { data: parsed.data, matter: parsed.matter ?? '' };
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
    if (typeof value !== 'object' || value === null || value instanceof Date) return undefined;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      const found = walk(child, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return walk(data, 0);
}

/**
 * 1-based line of each top-level key. gray-matter hands the engine the text after the opening `---`,
 * so index i is file line i + 1. Computed only when a message needs a line: most files never do.
 * @param {string} frontMatter
 * @returns {Record<string, number>}
 */
export function keyLines(frontMatter) {
  /** @type {Record<string, number>} */
  const lines = {};
  const rows = frontMatter.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const match = /^(?:"([^"]+)"|'([^']+)'|([^\s#'"-][^:]*?))\s*:(?:\s|$)/.exec(rows[i] ?? '');
    const key = match?.[1] ?? match?.[2] ?? match?.[3];
    if (key !== undefined && !(key in lines)) lines[key] = i + 1;
  }
  return lines;
}

/**
 * @param {string} path
 * @param {unknown} error
 * @returns {Problem}
 */
function yamlProblem(path, error) {
  /** @type {Problem} */
  const problem = {
    code: 'yaml_invalid',
    file: path,
    message: 'front matter is not valid YAML',
    hint: 'check indentation and quote values that contain ": " or start with a special character',
  };
  if (error instanceof UnsupportedLanguage) {
    problem.code = 'source_unreadable';
    problem.line = 1;
    problem.message = `front matter in ${error.message} is not supported`;
    problem.hint = 'write the front matter in YAML, between --- lines';
  } else if (error instanceof yaml.YAMLException) {
    problem.message = `front matter is not valid YAML: ${error.reason}`;
    if (error.mark) problem.line = error.mark.line + 1;
  } else if (error instanceof Error) {
    problem.message = `front matter could not be read: ${error.message}`;
  }
  return problem;
}
