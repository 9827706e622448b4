import { describe, expect, it } from 'vitest';
import { utf8Patched } from '../../build/stages/output/utf8-patch.ts';

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
}

/** The patched UTF-8 of `text` from `earlier`'s, against Buffer.from's. */
function expectPatched(earlier: string, text: string): void {
  const made = utf8Patched(earlier, Buffer.from(earlier), text);
  expect(made.equals(Buffer.from(text)), JSON.stringify({ earlier, text })).toBe(true);
}

describe('utf8Patched', () => {
  it('never cuts a surrogate pair, whole or lone, at either end of the changed stretch', () => {
    const cases: [string, string][] = [
      ['x😀y', 'x😁y'], // the same high half, another low one
      ['x😀y', 'x🙀y'], // the same low half, another high one
      ['😀', '😁'],
      ['a😀', 'a😀😀'],
      ['😀a', '😀😀a'],
      ['x\ud83dy', 'x\ud83d\ude00y'], // a lone half becomes a pair
      ['x\ud83d\ude00y', 'x\ud83dy'],
      ['x\ude00y', 'x\ud83d\ude00y'],
      ['\ud83d', '\ud83d\ud83d'],
      ['', 'visión'],
      ['visión', ''],
      ['abc', 'abc'],
      ['año', 'años'],
      ['ção', 'cão'],
    ];
    for (const [earlier, text] of cases) {
      expectPatched(earlier, text);
      expectPatched(text, earlier);
    }
  });

  it("gives Buffer.from's bytes for texts longer than its blocks, changed anywhere", () => {
    const next = random(69);
    const alphabet = ['a', 'é', 'ñ', '€', '😀', '\ud83d', '\ude00', ',', '"', '中'];
    const char = () => alphabet[Math.floor(next() * alphabet.length)] as string;
    const long = Array.from({ length: 50_000 }, char).join('');
    for (let round = 0; round < 40; round++) {
      const at = Math.floor(next() * long.length);
      const cut = Math.floor(next() * 40);
      const added = Array.from({ length: Math.floor(next() * 40) }, char).join('');
      const text = `${long.slice(0, at)}${added}${long.slice(at + cut)}`;
      expectPatched(long, text);
      expectPatched(text, long);
    }
    expectPatched(long, `${long}😀`);
    expectPatched(long, `😀${long}`);
    expectPatched(long, long.slice(1));
  });
});
