import { describe, expect, it } from 'vitest';
import { patchedJoin } from '../../build/core/output/patched-join.ts';

/** A small seeded generator: the same cases at every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
}

describe('patchedJoin', () => {
  const next = random(23);
  const word = () => ['visión', 'modelo', '😀', 'datos', '', 'a,b', '"x"'][Math.floor(next() * 7)] as string;
  const piece = () => Array.from({ length: 1 + Math.floor(next() * 4) }, word).join(' ');

  it('gives the join of the pieces whichever of them changed since the last join of that name', () => {
    for (const separator of [',', '\n']) {
      let pieces = Array.from({ length: 200 }, piece);
      for (let round = 0; round < 60; round++) {
        expect(patchedJoin(`join ${separator}`, pieces, separator)).toBe(pieces.join(separator));
        pieces = pieces.slice();
        // None, one, a few (first and last among them) or most of them changed.
        const changes = [0, 1, 3, 25, 150][round % 5] as number;
        for (let k = 0; k < changes; k++) {
          const at = k === 0 && round % 2 ? pieces.length - 1 : Math.floor(next() * pieces.length);
          pieces[at] = piece();
        }
        if (round % 5 === 0) pieces[0] = `${pieces[0]}!`;
      }
    }
  });

  it('joins whole again when the count or the separator changed, and keeps each name apart', () => {
    const pieces = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    expect(patchedJoin('one', pieces, ',')).toBe('a,b,c,d,e,f,g,h,i');
    expect(patchedJoin('two', ['x', 'y'], ',')).toBe('x,y');
    expect(patchedJoin('one', [...pieces.slice(0, 4), 'E', ...pieces.slice(5)], ',')).toBe(
      'a,b,c,d,E,f,g,h,i',
    );
    expect(patchedJoin('one', [...pieces, 'j'], ',')).toBe('a,b,c,d,e,f,g,h,i,j');
    expect(patchedJoin('one', [...pieces, 'J'], '|')).toBe('a|b|c|d|e|f|g|h|i|J');
    expect(patchedJoin('one', ['only'], '|')).toBe('only');
    expect(patchedJoin('one', [], '|')).toBe('');
    expect(patchedJoin('one', ['', ''], '|')).toBe('|');
    expect(patchedJoin('one', ['', 'z'], '|')).toBe('|z');
    expect(patchedJoin('two', ['x', 'Y'], ',')).toBe('x,Y');
  });
});
