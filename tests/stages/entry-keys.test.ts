import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { entryKeys } from '../../build/stages/mcp-output.ts';

const digits = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 12);

describe('entryKeys', () => {
  it('keys each id by its digest, and takes an id digested before from what it kept', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `post/entrada-${i}`);
    const known = new Map<string, string>();
    expect(entryKeys(ids, known)).toEqual(ids.map(digits));
    expect(known.size).toBe(ids.length);
    // A dev save keys every entry again: what was kept is taken as it is (a digest made again would
    // not be this), and a new id is digested and kept.
    known.set('post/entrada-0', 'cafecafecafe');
    const again = entryKeys([...ids, 'tip/nuevo'], known);
    expect(again[0]).toBe('cafecafecafe');
    expect(again.slice(1)).toEqual([...ids.slice(1), 'tip/nuevo'].map(digits));
    expect(known.size).toBe(ids.length + 1);
  });

  it('lets go of what it kept when it holds many more ids than it is asked for', () => {
    const known = new Map(Array.from({ length: 3000 }, (_, i) => [`gone/${i}`, 'aaaaaaaaaaaa']));
    expect(entryKeys(['tip/a', 'tip/b'], known)).toEqual([digits('tip/a'), digits('tip/b')]);
    expect([...known.keys()]).toEqual(['tip/a', 'tip/b']);
  });

  it('keeps two ids with the same digits apart, in their order', () => {
    const key = digits('tip/a');
    expect(entryKeys(['tip/a', 'tip/a', 'tip/a'], new Map())).toEqual([key, `${key}-1`, `${key}-2`]);
  });
});
