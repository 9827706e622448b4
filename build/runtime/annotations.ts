import type { Problem } from '../core/errors.ts';
import { printable } from '../core/printable.ts';

/**
 * GitHub Actions workflow commands (`::error file=…,line=…::…`): the run's summary and the pull
 * request's diff show each problem next to its line. Values are escaped as GitHub's toolkit does
 * (properties: `%`, CR, LF, `:` and `,`; data: `%`, CR, LF), after every other control character was
 * written as an escape: one problem is one line, and nothing in it can end the command or start another.
 */
export function formatAnnotation(problem: Problem, level: 'error' | 'warning'): string {
  const properties: string[] = [];
  if (problem.file && !problem.file.startsWith('environment variable'))
    properties.push(`file=${escapeProperty(problem.file)}`);
  if (problem.line) properties.push(`line=${problem.line}`);
  if (problem.field) properties.push(`title=${escapeProperty(problem.field)}`);
  // As on the terminal: the message is one line; a hint may span lines of our own making, each made
  // printable (GitHub shows %0A as a line break).
  const hint = problem.hint ? ` (${problem.hint.split('\n').map(printable).join('\n')})` : '';
  return `::${level}${properties.length ? ` ${properties.join(',')}` : ''}::${escapeCommand(`${printable(problem.message)}${hint}`)}`;
}

function escapeProperty(value: string): string {
  return escapeCommand(printable(value)).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function escapeCommand(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
