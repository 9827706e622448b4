import fc from 'fast-check';
import { expect, it } from 'vitest';
import { fieldTerms } from '../../build/core/edge/mcp/search-fields.ts';
import { stemTerm } from '../../build/core/edge/mcp/stem.ts';
import { processTerm, tokenize } from '../../build/core/edge/mcp/text.ts';

/** A field's distinct terms the plain way: every word of the whole text, in order, each term once. */
function plainTerms(text: string, lang: 'es' | 'en' | undefined): string[] {
  const terms = new Set<string>();
  for (const word of tokenize(text)) {
    const folded = processTerm(word);
    if (folded !== null) terms.add(lang === undefined ? folded : stemTerm(lang, folded));
  }
  return [...terms];
}

// Words, technology names (which tokenize spells out across what it reads), punctuation and spacing.
const PIECES = [
  'modelo',
  'Modelos',
  'programación',
  'de',
  'C++',
  'C++17',
  'C#',
  'F#',
  '.NET',
  'ASP.NET',
  'Node.js',
  'node',
  'js',
  '.js',
  'a',
  '+',
  '#',
  '.',
  ',',
  '(',
  ')',
  '-',
  'x2',
  '²',
  ' ',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '\u00a0',
  '😀',
  'ſ',
  '.jſ',
];

it("gives a text's terms as reading its every word in order would, each term where it first comes", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }),
      fc.constantFrom('es' as const, 'en' as const, undefined),
      (pieces, lang) => {
        const text = pieces.join('');
        expect(fieldTerms(text, lang)).toEqual(plainTerms(text, lang));
      },
    ),
    { numRuns: 3000 },
  );
});
