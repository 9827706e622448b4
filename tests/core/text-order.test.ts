import { describe, expect, it } from 'vitest';
import { groupDigits } from '../../build/core/group-digits.ts';
import { compareText } from '../../build/core/text-order.ts';

describe('compareText', () => {
  const english = new Intl.Collator('en');

  it("orders plain names as English collation does, ICU's or not", () => {
    // Seeded, so a failure is the same one again (a 32-bit LCG, exact in integers).
    let seed = 23;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const alphabet = 'aAbBzZ09_-./';
    const name = () => {
      let text = '';
      for (let n = Math.floor(random() * 7); n > 0; n--)
        text += alphabet[Math.floor(random() * alphabet.length)];
      return text;
    };
    const differ: [string, string][] = [];
    for (let i = 0; i < 50_000; i++) {
      const [a, b] = [name(), name()];
      if (Math.sign(compareText(a, b)) !== Math.sign(english.compare(a, b))) differ.push([a, b]);
    }
    expect(differ).toEqual([]);
  });

  it('orders every pair of plain characters, and of short names of them, as English collation does', () => {
    const every = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./'];
    const some = [...'aAbBzZ059_-./'];
    const names = ['', ...every, ...some.flatMap((a) => some.map((b) => a + b))];
    const differ: [string, string][] = [];
    for (const a of names)
      for (const b of names)
        if (Math.sign(compareText(a, b)) !== Math.sign(english.compare(a, b))) differ.push([a, b]);
    expect(differ).toEqual([]);
  });

  it('orders the names a report holds the same way on every machine, whatever its locale', () => {
    const names = [
      'content/posts/zeta.es.md',
      'content/posts/_index.es.md',
      'content/posts/Alpha.es.md',
      'content/posts/alpha.es.md',
      'content/posts/aa.es.md',
      'content/posts/a-b.es.md',
      'content/posts/ñandú.es.md',
      'content/posts/nube.es.md',
      'content/posts/10.es.md',
      'content/posts/9.es.md',
    ];
    // Danish collation puts "aa" after "z": a machine's locale is not the report's.
    expect([...names].sort(compareText)).toEqual([...names].sort(english.compare));
    expect([...names].sort(compareText)).toEqual([
      'content/posts/_index.es.md',
      'content/posts/10.es.md',
      'content/posts/9.es.md',
      'content/posts/a-b.es.md',
      'content/posts/aa.es.md',
      'content/posts/alpha.es.md',
      'content/posts/Alpha.es.md',
      'content/posts/ñandú.es.md',
      'content/posts/nube.es.md',
      'content/posts/zeta.es.md',
    ]);
  });
});

describe('groupDigits', () => {
  it.each([0, 7, 999, 1000, 2588, 10_000, 123_456, 1_234_567, 20_000_000])('%i as en-US writes it', (n) => {
    expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  });
});
