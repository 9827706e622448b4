import fc from 'fast-check';
import { expect, it } from 'vitest';
import { fieldTerms } from '../../build/core/edge/mcp/search-fields.ts';
import { stemTerm } from '../../build/core/edge/mcp/stem.ts';
import { processTerm, tokenize } from '../../build/core/edge/mcp/text.ts';
import { MAX_RUNS } from '../../build/core/edge/mcp/text-terms.ts';

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
  'é',
  '€',
  '\ud800',
  '\udc00',
  '\ufffd',
  '\ufeff',
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

it('gives the terms of a long text with thousands of distinct words, and of texts read after it', () => {
  // Past the few hundred distinct runs a short text has: the table the runs are looked up in grows, and
  // a shorter text read next must not find the longer one's runs.
  const words = Array.from({ length: 6000 }, (_, i) => `palabra${i.toString(36)}`);
  const long = words.flatMap((word, i) => [word, words[(i * 7) % 50] as string, 'de']).join(' ');
  expect(fieldTerms(long, 'es')).toEqual(plainTerms(long, 'es'));
  const short = `${words.slice(0, 40).join('  ')} modelo palabra0`;
  expect(fieldTerms(short, 'es')).toEqual(plainTerms(short, 'es'));
  expect(fieldTerms(short, undefined)).toHaveLength(41);
});

it('gives the terms of texts read after more distinct runs than it keeps, and after it starts again', () => {
  // Past the vocabulary's bound of runs, it is cleared before the next text: what that text reads must
  // not find the runs, or the terms, kept before.
  const many = Array.from({ length: MAX_RUNS + 1000 }, (_, i) => `w${i.toString(36)}`).join(' ');
  expect(fieldTerms(many, 'en')).toEqual(plainTerms(many, 'en'));
  for (const lang of ['en', 'es', undefined] as const) {
    const text = 'w0 modelos w1 aprende Modelos C++ w2z w0';
    expect(fieldTerms(text, lang)).toEqual(plainTerms(text, lang));
  }
  const again = Array.from({ length: 300 }, (_, i) => `r${i} w${i.toString(36)}`).join(' ');
  expect(fieldTerms(again, 'en')).toEqual(plainTerms(again, 'en'));
});

it('gives the terms of a text of more bytes than any before, of a run longer than all kept, and of runs of one hash', () => {
  // Three bytes a character, past every text read so far: the buffer it is encoded into grows to hold it.
  const wide = `${'€'.repeat(200_000)} únicoextraño`;
  expect(fieldTerms(wide, 'es')).toEqual(plainTerms(wide, 'es'));
  // One run longer than the vocabulary's bytes so far, which grow to hold it.
  const long = `${'a'.repeat(300_000)} b`;
  expect(fieldTerms(long, undefined)).toEqual(plainTerms(long, undefined));
  // The same length and FNV-1a hash: told apart by their bytes.
  expect(fieldTerms('lsexqzd ztxtxde', undefined)).toEqual(['lsexqzd', 'ztxtxde']);
});
