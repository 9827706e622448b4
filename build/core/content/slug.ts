import { CONTROL_CHARACTERS } from '../printable.ts';

/**
 * The one rule for slugs, whether written (`slug:`) or taken from a file or bundle folder name: one URL
 * path segment. `.` and `..` would resolve to the section or the site root, and a control character has
 * no place in an address. Returns why a value cannot be a slug, or undefined when it can.
 */
export function slugProblem(slug: string): string | undefined {
  if (slug === '') return 'is empty';
  if (slug === '.' || slug === '..')
    return `"${slug}" would publish at the ${slug === '.' ? 'section' : 'parent'}'s address, not a page of its own`;
  if (CONTROL_CHARACTERS.test(slug)) return 'contains a control character';
  if (/\s/.test(slug)) return 'contains a space';
  const separator = /[/?#\\]/.exec(slug)?.[0];
  if (separator) return `contains ${separator}, which ends a path segment`;
  return undefined;
}

export const SLUG_HINT = 'use lowercase words joined by hyphens, e.g. redes-neuronales';
