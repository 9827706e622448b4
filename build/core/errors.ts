import { printable } from './printable.ts';
import { compareText } from './text-order.ts';

/**
 * One error type for everything a user can get wrong. `code` is stable (tests and scripts match on it),
 * `hint` says how to fix it. A build collects `Problem`s and throws them all at once.
 */
export type ProblemCode =
  | 'config_invalid'
  | 'yaml_invalid'
  | 'toml_invalid'
  | 'json_invalid'
  | 'field_required'
  | 'field_invalid'
  | 'field_not_allowed'
  | 'image_host'
  | 'address_conflict'
  /** An address the index publishes that is no page in the output the site generator wrote. */
  | 'address_dead'
  /** No content folder, or none of its files is a content file: the index would be empty. */
  | 'content_missing'
  /** A deploy that would take a whole section, or more than a tenth of the live items, off the API. */
  | 'removals_refused'
  | 'translation_orphan'
  | 'translation_duplicate'
  | 'language_unknown'
  | 'source_unreadable'
  /** Internal: a file deleted between listing and reading; the loader leaves it out, never reports it. */
  | 'source_gone'
  | 'source_too_large'
  | 'index_invalid'
  | 'output_failed'
  | 'output_conflict'
  | 'output_refused'
  | 'output_busy'
  | 'lifecycle_invalid'
  | 'schema_changed'
  | 'live_unreachable'
  | 'serving_limits'
  | 'deploy_limit';

export interface Problem {
  code: ProblemCode;
  /** Path relative to the project root, POSIX separators. */
  file?: string;
  line?: number;
  /** Front-matter key or config path, dotted (`technologies.1`). */
  field?: string;
  message: string;
  hint?: string;
}

export class ContentIndexError extends Error {
  readonly code: ProblemCode;
  readonly problems: readonly Problem[];
  /**
   * The build had already replaced the output folder when this happened (what failed came after), so
   * no message may say the output was left as it was.
   */
  readonly outputChanged: boolean;

  constructor(problems: readonly Problem[], options: { outputChanged?: boolean } = {}) {
    const first = problems[0];
    if (!first) throw new TypeError('ContentIndexError needs at least one problem');
    super(
      problems.length === 1
        ? formatProblem(first)
        : `${problems.length} problems:\n${formatProblems(problems)}`,
    );
    this.name = 'ContentIndexError';
    this.code = first.code;
    this.problems = problems;
    this.outputChanged = options.outputChanged ?? false;
  }
}

export function isContentIndexError(error: unknown): error is ContentIndexError {
  return error instanceof ContentIndexError;
}

/**
 * `path:line: field: message` followed by an indented hint, the format editors and CI logs link from.
 * File names, keys and values come from the outside: each part is made printable, so no part can break
 * the line or start one of its own (a hint may span lines of our own making; each is made printable).
 */
export function formatProblem(problem: Problem): string {
  let where = problem.file ? printable(problem.file) : '';
  if (problem.file && problem.line) where += `:${problem.line}`;
  const head = [where, problem.field && printable(problem.field), printable(problem.message)]
    .filter(Boolean)
    .join(': ');
  if (!problem.hint) return head;
  return `${head}\n  hint: ${problem.hint.split('\n').map(printable).join('\n')}`;
}

export function formatProblems(problems: readonly Problem[]): string {
  return sortProblems(problems).map(formatProblem).join('\n');
}

export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      compareText(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      compareText(a.field ?? '', b.field ?? ''),
  );
}
