import type { Problem } from '../core/errors.ts';
import { type ParsedSource, parseSource } from './parse-source.ts';
import { MAX_FRONT_MATTER_BYTES, readHead } from './read-head.ts';

export interface ParseTask {
  /** Shown in messages. */
  path: string;
  absolute: string;
}

export type ParseOutcome = ParsedSource | Problem;

/** Reads and parses a list of files in order. Runs on the main thread or in a worker. */
export function parseChunk(tasks: readonly ParseTask[], maxFileBytes: number): ParseOutcome[] {
  return tasks.map((task) => parseOne(task, maxFileBytes));
}

function parseOne({ path, absolute }: ParseTask, maxFileBytes: number): ParseOutcome {
  let head: ReturnType<typeof readHead>;
  try {
    head = readHead(absolute, maxFileBytes);
  } catch (error) {
    return {
      code: 'source_unreadable',
      file: path,
      message: `could not be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      hint: 'check that the file exists and is readable',
    };
  }
  if (head.size > maxFileBytes) {
    return {
      code: 'source_too_large',
      file: path,
      message: `is ${formatBytes(head.size)}, over the ${formatBytes(maxFileBytes)} limit for one source file`,
      hint: 'move large data out of the Markdown file; the limit protects the build from runaway inputs',
    };
  }
  if (head.unterminated) {
    return {
      code: 'source_too_large',
      file: path,
      line: 1,
      message: `front matter does not end within ${formatBytes(MAX_FRONT_MATTER_BYTES)}`,
      hint: 'close the front matter with a line containing only ---',
    };
  }
  return parseSource(path, head.text);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
