// The statements of SQL that content-index wrote (the D1 import's files, the state and switch commands
// of d1-import.ts), for d1-local.js to run in batches of its own. Not a parser of SQL at large: it knows
// the quoting those statements use (texts in single quotes, a quote inside doubled, line breaks and
// semicolons inside texts as they are) and the comments they carry, and cuts at every other semicolon.

/**
 * The statements of `sql`, each without its semicolon, comments left out; empty ones are dropped.
 * @param {string} sql
 * @returns {string[]}
 */
export function splitStatements(sql) {
  /** @type {string[]} */
  const statements = [];
  let current = '';
  let from = 0;
  let i = 0;
  const push = () => {
    const statement = (current + sql.slice(from, i)).trim();
    if (statement !== '') statements.push(statement);
    current = '';
  };
  while (i < sql.length) {
    const char = sql[i];
    if (char === "'" || char === '"' || char === '`') {
      // A quoted text or name runs to the next such quote; a doubled one inside opens it again at once.
      const end = sql.indexOf(char, i + 1);
      if (end < 0) throw new Error(`a ${char} opened at offset ${i} is never closed`);
      i = end + 1;
    } else if (char === '-' && sql[i + 1] === '-') {
      current += sql.slice(from, i);
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      from = i;
    } else if (char === '/' && sql[i + 1] === '*') {
      current += `${sql.slice(from, i)} `;
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`a comment opened at offset ${i} is never closed`);
      i = end + 2;
      from = i;
    } else if (char === ';') {
      push();
      i++;
      from = i;
    } else {
      i++;
    }
  }
  push();
  return statements;
}
