import fc from 'fast-check';
import { expect, it } from 'vitest';
import { d1ItemRows, d1RowBody, sqlString, sqlStringValue } from '../../build/core/edge/mcp/d1-sql.ts';

// The item store keeps an entry's bodies only in its D1 rows and reads them back from there
// (stages/entry-form.ts): the literal must give back exactly the text it was made of.
it('reads back every text sqlString quotes: quotes, NULs and the joining text itself', () => {
  for (const text of ['', "'", "''", '\u0000', "\u0000'\u0000", "x' || char(0) || 'y", "'' || char(0) || ''"])
    expect(sqlStringValue(sqlString(text))).toBe(text);
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom("'", '\u0000', ' ', '|', '(', ')', 'a', 'ñ', '😀') }),
      (text) => {
        expect(sqlStringValue(sqlString(text))).toBe(text);
      },
    ),
  );
  fc.assert(
    fc.property(fc.string(), (text) => {
      expect(sqlStringValue(sqlString(text))).toBe(text);
    }),
  );
});

it('refuses what is not one of its literals', () => {
  for (const literal of ["'a", "a'", "'a'b'", "('a' || char(1) || 'b')", "('a')x", ''])
    expect(() => sqlStringValue(literal), literal).toThrow('not a SQL string literal');
});

it("gives a body back from its item's bodies row, in the row's language", () => {
  const body = "L'été, c'est \u0000 'ça'";
  const rows = d1ItemRows({
    entry: {
      item: { id: 'post/x', type: 'post', title: 'X', url: 'https://example.com/x/' } as never,
      translations: {},
    },
    document: { id: 0, text: { 'pt-br': { title: 'X', tags: [], body } }, tags: [], technologies: [] },
  });
  expect(rows.bodies).toHaveLength(1);
  expect(d1RowBody(rows.bodies[0] as string, 'pt-br')).toBe(body);
  expect(() => d1RowBody(rows.bodies[0] as string, 'es')).toThrow('not a es body row');
});
