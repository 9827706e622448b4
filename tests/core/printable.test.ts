import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../build/core/errors.ts';
import { printable } from '../../build/core/printable.ts';
import { formatAnnotation } from '../../build/runtime/annotations.ts';

describe('printable', () => {
  it.each([
    ['plain/name.es.md', 'plain/name.es.md'],
    ['a\nb', 'a\\nb'],
    ['a\r\tb', 'a\\r\\tb'],
    ['bell\u0007 esc\u001b[31m del\u007f c1\u0085', 'bell\\u0007 esc\\u001b[31m del\\u007f c1\\u0085'],
    // Trojan-source marks reorder what a reader sees; LS/PS break lines in some viewers.
    ['abc\u202edcba\u2066x\u2069\u2028', 'abc\\u202edcba\\u2066x\\u2069\\u2028'],
    ['::error::x', '\\u003a:error::x'],
    ['  ::warning::x', '  \\u003a:warning::x'],
    ['##[error]x', '\\u0023#[error]x'],
    ['ñandú/atención.es.md', 'ñandú/atención.es.md'],
  ])('%j → %j', (text, expected) => {
    expect(printable(text)).toBe(expected);
  });
});

describe('problems and annotations carrying hostile names', () => {
  const problem = {
    code: 'field_invalid' as const,
    file: '::error file=x::y\n::warning::z,%0A.es.md',
    line: 3,
    field: 'ti,tle:\n',
    message: 'bad\nvalue',
    hint: 'first line\n  second line of our own',
  };

  it('prints one head line, and a hint whose own lines stay lines', () => {
    expect(formatProblem(problem)).toBe(
      '\\u003a:error file=x::y\\n::warning::z,%0A.es.md:3: ti,tle:\\n: bad\\nvalue\n  hint: first line\n  second line of our own',
    );
  });

  it('escapes annotation properties and data as GitHub reads them', () => {
    expect(formatAnnotation(problem, 'error')).toBe(
      '::error file=\\u003a%3Aerror file=x%3A%3Ay\\n%3A%3Awarning%3A%3Az%2C%250A.es.md,line=3,title=ti%2Ctle%3A\\n::bad\\nvalue (first line%0A  second line of our own)',
    );
  });
});
