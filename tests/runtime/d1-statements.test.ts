import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sqlString } from '../../build/core/edge/mcp/d1-sql.ts';
import { splitStatements } from '../../build/runtime/d1-statements.js';

// d1-local.js runs the import's SQL in batches of statements of its own: a statement cut inside a text
// (a body holding `;` and a line break) would fail the import, or worse, run half of a statement.

describe('splitStatements', () => {
  it('cuts at the semicolons between statements, not at those in texts, names or comments', () => {
    expect(
      splitStatements(
        [
          '-- content-index: the MCP tables of one build; imported by d1 import',
          'CREATE VIRTUAL TABLE s USING fts5(a, tokenize = "unicode61; remove_diacritics 2");',
          "INSERT INTO t VALUES ('It''s; a\ntext -- not a comment /* nor this */', 'x');",
          '/* a; comment */ DELETE FROM t WHERE id = `a;b`;',
          "SELECT name FROM sqlite_master WHERE name LIKE 'ci\\_g%' ESCAPE '\\'",
        ].join('\n'),
      ),
    ).toEqual([
      'CREATE VIRTUAL TABLE s USING fts5(a, tokenize = "unicode61; remove_diacritics 2")',
      "INSERT INTO t VALUES ('It''s; a\ntext -- not a comment /* nor this */', 'x')",
      'DELETE FROM t WHERE id = `a;b`',
      "SELECT name FROM sqlite_master WHERE name LIKE 'ci\\_g%' ESCAPE '\\'",
    ]);
  });

  it('drops empty statements and refuses a text never closed', () => {
    expect(splitStatements(';;\n  ;SELECT 1;\n')).toEqual(['SELECT 1']);
    expect(() => splitStatements("INSERT INTO t VALUES ('open;")).toThrow(/never closed/);
    expect(() => splitStatements('SELECT 1 /* open')).toThrow(/never closed/);
  });

  it('gives back every statement of texts as sqlString quotes them, whatever they hold', () => {
    const text = fc.string({
      unit: fc.constantFrom("'", ';', '\n', '-', '/', '*', '"', '`', '\\', '\u0000', 'a', 'ñ', '🤖'),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), (texts) => {
        const statements = texts.map((t, i) => `INSERT INTO t (id, text) VALUES (${i}, ${sqlString(t)})`);
        expect(splitStatements(statements.map((s) => `${s};\n`).join(''))).toEqual(statements);
      }),
    );
  });
});
