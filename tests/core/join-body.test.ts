import { describe, expect, it } from 'vitest';
import { joinBody } from '../../build/core/versions/render-versions.ts';

describe('joinBody', () => {
  const items = [{ id: 'a', n: 1 }, { id: 'b', title: 'Visión "dos"\n' }, { id: 'c' }];
  const texts = items.map((item) => JSON.stringify(item));

  it('gives the text JSON.stringify gives the body with its items in it, wherever the list stands', () => {
    const bodies: Record<string, unknown>[] = [
      { items: [], count: 3 },
      { version: 'v1', items: [], generated: '2026-12-01T00:00:00Z' },
      { version: 'v1', counts: { post: 2 }, items: [] },
      { items: [] },
    ];
    for (const body of bodies) {
      for (const list of [texts, texts.slice(0, 1), []]) {
        const expected = JSON.stringify({ ...body, items: list.map((t) => JSON.parse(t)) });
        expect(joinBody(body, 'items', list)).toBe(expected);
        expect(joinBody(body, 'items', list, '\n')).toBe(`${expected}\n`);
      }
    }
  });

  it('leaves out what JSON.stringify leaves out, and a body without the list as it is', () => {
    const body = { a: undefined, items: [], f: () => 1, s: Symbol('s'), b: null };
    expect(joinBody(body, 'items', texts)).toBe(JSON.stringify({ ...body, items: items }));
    expect(joinBody({ version: 'v1', n: 2 }, 'items', texts, '\n')).toBe('{"version":"v1","n":2}\n');
  });
});
