import type { Problem } from './errors.ts';

/**
 * GitHub Actions workflow commands (`::error file=…,line=…::…`): the run's summary and the pull
 * request's diff show each problem next to its line.
 */
export function formatAnnotation(problem: Problem, level: 'error' | 'warning'): string {
  const properties: string[] = [];
  if (problem.file && !problem.file.startsWith('environment variable'))
    properties.push(`file=${escapeProperty(problem.file)}`);
  if (problem.line) properties.push(`line=${problem.line}`);
  if (problem.field) properties.push(`title=${escapeProperty(problem.field)}`);
  const message = problem.hint ? `${problem.message} (${problem.hint})` : problem.message;
  return `::${level}${properties.length ? ` ${properties.join(',')}` : ''}::${escapeData(message)}`;
}

function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
