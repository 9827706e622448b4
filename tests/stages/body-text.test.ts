import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BODY_TEXT_BYTES,
  bodyText,
  collapse,
  inline,
  ODD_SPACE_CHAR,
} from '../../build/stages/parse/body-text.js';

// Every character the reduction treats apart, spacing of every kind, letters and a character past the BMP.
const MARKDOWN_UNITS = [
  ...'{}[]()<>!*`~_\\&;#|"%:/.-+= \t\r\u000b\f\u0001\u0085\u00a0\u2003\u3000\ufeffaZé1',
];

describe('a Markdown body reduced to its words', () => {
  it('keeps the words and drops the syntax: headings, emphasis, links, images, HTML, fences, shortcodes, tables', () => {
    const markdown = [
      '# Título principal #',
      '',
      'Un párrafo con **negrita**, _cursiva_, `código` y un [enlace](https://x.com/a_b "t").',
      '![Una imagen](img.png) y <span class="x">HTML</span> &amp; entidades &#233;.',
      '',
      '```python',
      'def snake_case(x): return x * 2',
      '```',
      '',
      '- lista uno',
      '1. lista dos',
      '> cita con [ref][1]',
      '',
      '| a | b |',
      '|---|:-:|',
      '| c | d |',
      '',
      '{{< figure src="a.png" caption="Una red neuronal" >}}',
      '{{% note %}}texto de nota{{% /note %}}',
      '<!-- un comentario',
      'de dos líneas -->',
      '[1]: https://example.com',
      'Texto final ~~tachado~~ y bootloader.',
    ].join('\n');
    expect(bodyText(markdown)).toBe(
      'Título principal Un párrafo con negrita, cursiva, código y un enlace. Una imagen y HTML & entidades é. def snake_case(x): return x * 2 lista uno lista dos cita con ref a b c d Una red neuronal texto de nota Texto final tachado y bootloader.',
    );
  });

  it(`stops at ${BODY_TEXT_BYTES} bytes of text, at a word's end`, () => {
    const text = bodyText('palabra según '.repeat(10_000));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BODY_TEXT_BYTES);
    expect(Buffer.byteLength(text)).toBeGreaterThan(BODY_TEXT_BYTES - 20);
    expect(text.endsWith('palabra') || text.endsWith('según')).toBe(true);
  });

  it('reduces hostile text without a pattern going quadratic (which would take minutes here)', () => {
    const n = 200_000;
    for (const text of [
      '['.repeat(n),
      '![a]('.repeat(n / 5),
      `{{< ${'a '.repeat(n / 2)}`,
      `${'_'.repeat(n)}x`,
      `${' '.repeat(n)}x`,
      '*a '.repeat(n / 3),
      `${'- '.repeat(n / 2)}x`,
      `{{< "${'a '.repeat(n / 2)}>}}`,
      '<a'.repeat(n / 2),
      `# ${'#'.repeat(n)} x`,
    ]) {
      expect(Buffer.byteLength(bodyText(text))).toBeLessThanOrEqual(BODY_TEXT_BYTES);
    }
  });

  it('reads prose lines without running the inline patterns, with the same result as running them', () => {
    // bodyText skips `inline` for a line without any of these characters: it must leave such a line as it is.
    const inlineSyntax = new Set('{[<*`~_\\&|');
    const prose = MARKDOWN_UNITS.filter((unit) => !inlineSyntax.has(unit));
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...prose, '😀'), maxLength: 40 }), (line) => {
        expect(inline(line)).toBe(line);
      }),
      { numRuns: 2000 },
    );
  });

  it('reduces a prose line as running every inline pattern on it would', () => {
    // Lines that open with a word (no heading, list, quote, fence, rule or definition) and hold no comment,
    // made of single characters and of whole pieces of inline syntax.
    const pieces = [
      ...MARKDOWN_UNITS.filter((unit) => unit !== '\n'),
      ...['&amp;', '&#233;', '&lt;', '{{< x "a b" >}}', '![a](b)', '[a](b)', '[a][1]', '<b>', '<https://x>'],
      ...['`c`', '~~', '__', 'snake_case', '\\*', 'x|y'],
    ];
    const line = fc
      .array(fc.constantFrom(...pieces), { maxLength: 20 })
      .map((parts) => `a${parts.join('')}`)
      .filter((text) => !text.includes('<!--'));
    fc.assert(
      fc.property(line, (text) => {
        expect(bodyText(text)).toBe(collapse(inline(text)));
      }),
      { numRuns: 3000 },
    );
    expect(bodyText('Tom &amp; Jerry')).toBe('Tom & Jerry');
  });

  it('collapses spacing as one replacement of every run of spaces and control characters would', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...MARKDOWN_UNITS), maxLength: 30 }), (text) => {
        expect(collapse(text)).toBe(text.replace(/[\s\p{Cc}]+/gu, ' ').trim());
      }),
      { numRuns: 2000 },
    );
    expect(collapse(' a  b\tc\u0001d \u00a0e ')).toBe('a b c d e');
  });

  it('lists as odd spacing every character of \\s and \\p{Cc} but the space, and nothing else', () => {
    const spacing = /^[\s\p{Cc}]$/u;
    const wrong: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      // Lone surrogates too: a line may hold one.
      const char = code <= 0xffff ? String.fromCharCode(code) : String.fromCodePoint(code);
      if (ODD_SPACE_CHAR.test(char) !== (spacing.test(char) && char !== ' ')) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });
});
