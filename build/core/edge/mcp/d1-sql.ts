import { CONTENT_TYPES, LANGUAGES } from '../languages.ts';
import { languageBits, MCP_DATA_FORMAT, type McpItem } from './mcp-data.ts';
import { ALL_FIELDS, BOOST, describeField, documentTerms, type IndexField } from './search-fields.ts';
import { deletionKeys, MIN_FUZZY_LENGTH } from './text.ts';

/**
 * The D1 backend's tables, written by the build as SQL and imported by `content-index d1 import` (or
 * deploy). Every table of one build carries the build's generation in its name (`ci_g1a2b…_items`), so
 * a new import never touches the tables the live site reads: the new Function, which names the new
 * generation, switches to them only when it is deployed, after the import has finished.
 *
 * - `<g>_items`: one row per entry in index order (`pos`), with its type, its language bits, the
 *   ContentItem as JSON, its date and the tags all its translations share.
 * - `<g>_translations`: one row per translation: title, description and the tags only it has.
 * - `<g>_bodies`: one row per translation with a body: its text (stages/parse/body-text.js), read only
 *   for the snippet of a hit whose body matched.
 * - `<g>_technologies`: lower-cased technology → entry, for `list_content`'s filter.
 * - `<g>_search`: the FTS5 table, one row per entry (rowid = pos), one column per searchable text (each
 *   language's body, description, title and tags, the shared tags, the technologies) plus a `filters`
 *   column of type and language tokens. Its text is each field's distinct terms (search-fields.ts
 *   `documentTerms`: folded, stemmed in the field's language), so it holds exactly the terms the
 *   embedded backend indexes; `unicode61 remove_diacritics 2` folds case and accents of anything else a
 *   query brings.
 * - `<g>_terms`: the deletion neighbourhood of every term of four letters or more (text.ts
 *   `deletionKeys`), so that one-typo matches are an indexed look-up instead of a scan.
 * - `content_index_generations`: one row per completely imported generation; the import's last
 *   statement writes it, so a generation without its row was cut short and is never switched to.
 * - `<g>_order`: only while the import runs (its last file drops it): each entry's key → its `pos`.
 *   The entries' rows carry their key, not their place, and take their `pos` from here as they are
 *   inserted: an item added at the front changes this table and one file of entries, not every file.
 */
export const GENERATIONS_TABLE = 'content_index_generations';

export function d1Tables(generation: string) {
  const prefix = `ci_${generation}`;
  return {
    items: `${prefix}_items`,
    translations: `${prefix}_translations`,
    bodies: `${prefix}_bodies`,
    technologies: `${prefix}_technologies`,
    search: `${prefix}_search`,
    terms: `${prefix}_terms`,
    order: `${prefix}_order`,
  };
}

/** Generations are `g` and twelve hex digits; anything else is refused before it reaches SQL. */
export const GENERATION_PATTERN = /^g[0-9a-f]{12}$/;

/** The FTS5 column of an index field: `title:pt-br` → `title_pt`. */
export function columnOf(field: IndexField): string {
  const { kind, lang } = describeField(field);
  return lang === undefined ? kind : `${kind}_${lang === 'pt-br' ? 'pt' : lang}`;
}

export const FILTERS_COLUMN = 'filters';
export const SEARCH_COLUMNS = [...ALL_FIELDS.map(columnOf), FILTERS_COLUMN];
/** bm25 weights in column order: the embedded backend's field boosts, and nothing for the filters. */
export const SEARCH_WEIGHTS = [...ALL_FIELDS.map((field) => BOOST[describeField(field).kind]), 0];

/** Tokens of the `filters` column: `type1` (the index in CONTENT_TYPES), `lang2` (the language bit). */
export function typeToken(typeIndex: number): string {
  return `type${typeIndex}`;
}
export function languageToken(bit: number): string {
  return `lang${bit}`;
}

/** Rows are grouped into INSERTs of about this many bytes (D1 refuses statements over 100,000). */
const STATEMENT_BYTES = 30_000;

/**
 * Stands for the generation in the import's files, as long as one: the import puts the generation in
 * its place as it joins them (runtime/d1-import.ts). A file's bytes then depend only on what it holds,
 * so a build rewrites only the files whose entries changed instead of the whole import (145 MiB at
 * 10,000 items with bodies), whose every statement named the generation.
 */
export const GENERATION_PLACEHOLDER = 'g____________';

/**
 * How many entries a file of the import holds on average: a file never holds a statement of two of
 * them. A file ends after an entry whose key says so (one in PART_ENTRIES does), not at a count: an
 * entry added, removed or moved then changes the files it leaves and joins, and every other file stays
 * the same entries, the same bytes (entryParts).
 */
export const PART_ENTRIES = 128;
/** A file ends after this many entries even when none of their keys says so (so none grows unbounded). */
const MAX_PART_ENTRIES = 4 * PART_ENTRIES;

/** The entries of one file of the import: `count` from `first` on, in index order. */
export interface EntryPart {
  first: number;
  count: number;
}

/**
 * The import's files of entries, by their keys (in index order): a file ends after an entry whose key's
 * first digits are a multiple of PART_ENTRIES, or after MAX_PART_ENTRIES. Keys are digests (uniform),
 * so the files hold PART_ENTRIES entries on average.
 */
export function entryParts(keys: readonly string[]): EntryPart[] {
  const parts: EntryPart[] = [];
  let first = 0;
  for (let i = 0; i < keys.length; i++) {
    const ends = Number.parseInt((keys[i] as string).slice(0, 6), 16) % PART_ENTRIES === 0;
    if (ends || i + 1 - first >= MAX_PART_ENTRIES || i === keys.length - 1) {
      parts.push({ first, count: i + 1 - first });
      first = i + 1;
    }
  }
  return parts;
}

/** One file of the import: its statements, each followed by a line break when written. */
export interface D1ImportFile {
  /** `schema` first, then `order`, then `entries` in order, then `terms`, and `done` last. */
  kind: 'schema' | 'order' | 'entries' | 'terms' | 'done';
  /** `entries`: the position of its first entry, and how many it holds. */
  first?: number;
  count?: number;
  statements: SqlStatement[];
  /**
   * Where the placeholder stands in each statement, in the SQL's own ASCII around the entries' texts
   * (so UTF-16 offsets are byte offsets too): from its start in its first piece, or, when negative, back
   * from its end in its last piece.
   */
  marks: number[][];
  /** `entries`: its entries' distinct terms, space-separated (what the one-typo look-ups take of it). */
  terms?: string;
  /** `entries`: written by a build before, as the same entries make it (no statements made here). */
  written?: true;
}

/**
 * The import of the entries' rows ({@link d1ItemRows}), in index order: their positions are their
 * places. Each entry's rows carry its key (`keys`, in the same order), and take their position from
 * the order table as they are inserted, so a file of entries holds the same bytes wherever its entries
 * stand. Its tables are named with {@link GENERATION_PLACEHOLDER}: the build names the generation after
 * the rows (stages/mcp-output.ts), the import puts it in.
 */
export function joinD1Rows(
  entries: readonly D1ItemRows[],
  keys: readonly string[] = [],
  parts: readonly EntryPart[] = entryParts(keys),
  /**
   * What a build before made of the file of the entries from `first` on, when the same entries make it
   * now and it is still there: its statements are not made again, and its terms are taken as they were
   * (the union of every entry's terms was some 315,000 terms at 10,000 items).
   */
  known?: (first: number) => { terms: string; written: boolean } | undefined,
): D1Import {
  const generation = GENERATION_PLACEHOLDER;
  const t = d1Tables(generation);
  const schema = [
    `-- content-index ${MCP_DATA_FORMAT}: the MCP tables of one build (${entries.length} items). Written by content-index build; imported by content-index d1 import and deploy.`,
    `CREATE TABLE IF NOT EXISTS ${GENERATIONS_TABLE} (id TEXT PRIMARY KEY, items INTEGER NOT NULL, state TEXT NOT NULL);`,
    // A generation cut short by an earlier attempt is started again from nothing.
    `DELETE FROM ${GENERATIONS_TABLE} WHERE id = '${generation}';`,
    ...Object.values(t).map((table) => `DROP TABLE IF EXISTS ${table};`),
    `CREATE TABLE ${t.items} (pos INTEGER PRIMARY KEY, type INTEGER NOT NULL, languages INTEGER NOT NULL, item TEXT NOT NULL, date TEXT, tags TEXT NOT NULL);`,
    `CREATE TABLE ${t.translations} (pos INTEGER NOT NULL, lang TEXT NOT NULL, title TEXT NOT NULL, description TEXT, tags TEXT NOT NULL, url TEXT, PRIMARY KEY (pos, lang)) WITHOUT ROWID;`,
    `CREATE TABLE ${t.bodies} (pos INTEGER NOT NULL, lang TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (pos, lang)) WITHOUT ROWID;`,
    `CREATE TABLE ${t.technologies} (name TEXT NOT NULL, pos INTEGER NOT NULL, PRIMARY KEY (name, pos)) WITHOUT ROWID;`,
    // Contentless: the table only answers which entries match and how well; the texts are read from
    // the translations and bodies. Full detail although no query needs positions: in a contentless
    // table with column detail, bm25() is 0 for every row (SQLite 3.40 to at least 3.45), which left
    // every answer in index order and the fields a body matched in unknowable.
    `CREATE VIRTUAL TABLE ${t.search} USING fts5(${SEARCH_COLUMNS.join(', ')}, tokenize = "unicode61 remove_diacritics 2", content = '', detail = full);`,
    `CREATE TABLE ${t.terms} (key TEXT NOT NULL, position INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (key, position, term)) WITHOUT ROWID;`,
    `CREATE TABLE ${t.order} (key TEXT PRIMARY KEY, pos INTEGER NOT NULL) WITHOUT ROWID;`,
  ];
  const files: D1ImportFile[] = [{ kind: 'schema', statements: schema, marks: schema.map(placeholders) }];
  const oversized = new Set<number>();
  const order = new Inserts(`INSERT INTO ${t.order} (key, pos) VALUES`, oversized);
  for (const [pos, key] of keys.entries()) order.add(-1, `('${key}', ${pos})`);
  const orderStatements = order.finish();
  if (orderStatements.length > 0)
    files.push({
      kind: 'order',
      statements: orderStatements,
      marks: orderStatements.map(() => [INSERT_MARK]),
    });
  const vocabulary = new Set<string>();
  for (const { first, count } of parts) {
    const before = known?.(first);
    const terms = before?.terms ?? partTerms(entries, first, count);
    if (terms !== '') for (const term of terms.split(' ')) vocabulary.add(term);
    if (before?.written) {
      files.push({ kind: 'entries', first, count, statements: [], marks: [], terms, written: true });
      continue;
    }
    const statements = entriesStatements(entries, keys, first, count, oversized);
    files.push({
      kind: 'entries',
      first,
      count,
      statements,
      marks: statements.map(() => ENTRIES_MARKS),
      terms,
    });
  }
  const terms = new Inserts(`INSERT INTO ${t.terms} (key, position, term) VALUES`, oversized);
  for (const term of [...vocabulary].sort()) for (const row of termRows(term)) terms.add(-1, row);
  const termStatements = terms.finish();
  if (termStatements.length > 0) {
    files.push({ kind: 'terms', statements: termStatements, marks: termStatements.map(() => [INSERT_MARK]) });
  }
  // Last: its presence says every statement above ran.
  const done = [
    `DROP TABLE ${t.order};`,
    `INSERT INTO ${GENERATIONS_TABLE} (id, items, state) VALUES ('${generation}', ${entries.length}, 'ready');`,
  ];
  files.push({ kind: 'done', statements: done, marks: done.map(placeholders) });
  return { files, oversized: [...oversized].sort((a, b) => a - b) };
}

/**
 * The statements of the entries file of `count` entries from `first` on (its rows, table by table),
 * each row with its entry's key (`keys`, in the entries' order); entries whose row alone passes D1's
 * statement limit are added to `oversized`.
 */
export function entriesStatements(
  entries: readonly D1ItemRows[],
  keys: readonly string[],
  first: number,
  count: number,
  oversized: Set<number> = new Set(),
): SqlStatement[] {
  const t = d1Tables(GENERATION_PLACEHOLDER);
  // Rows of (key, the table's other columns): each takes its position from the order table.
  const keyed = (table: string, columns: readonly string[]) =>
    new Inserts(
      `INSERT INTO ${table} (${columns.join(', ')}) SELECT o.pos, ${columns
        .slice(1)
        .map((_, i) => `v.column${i + 2}`)
        .join(', ')} FROM (VALUES`,
      oversized,
      orderJoin('column1'),
    );
  const items = keyed(t.items, ['pos', 'type', 'languages', 'item', 'date', 'tags']);
  const translations = keyed(t.translations, ['pos', 'lang', 'title', 'description', 'tags', 'url']);
  const bodies = keyed(t.bodies, ['pos', 'lang', 'text']);
  const technologies = new Inserts(
    `INSERT INTO ${t.technologies} (name, pos) SELECT v.column1, o.pos FROM (VALUES`,
    oversized,
    orderJoin('column2'),
  );
  const search = keyed(t.search, ['rowid', ...SEARCH_COLUMNS]);
  for (let pos = first; pos < first + count; pos++) {
    const rows = entries[pos] as D1ItemRows;
    const key = `'${keys[pos]}'`;
    items.add(pos, `(${key}`, rows.item);
    for (const row of rows.translations) translations.add(pos, `(${key}`, row);
    for (const row of rows.bodies) bodies.add(pos, `(${key}`, row);
    for (const name of rows.technologies) technologies.add(pos, `(${name}, ${key})`);
    search.add(pos, `(${key}`, rows.search);
  }
  return [
    ...items.finish(),
    ...translations.finish(),
    ...bodies.finish(),
    ...technologies.finish(),
    ...search.finish(),
  ];
}

/** The end of an entries statement: the rows' positions, from the order table by their keys. */
function orderJoin(keyColumn: 'column1' | 'column2'): string {
  return `) AS v CROSS JOIN ${d1Tables(GENERATION_PLACEHOLDER).order} o ON o.key = v.${keyColumn}`;
}

/** The distinct terms of `count` entries from `first` on, space-separated, in the order first met. */
function partTerms(entries: readonly D1ItemRows[], first: number, count: number): string {
  const terms = new Set<string>();
  for (let pos = first; pos < first + count; pos++) {
    const text = (entries[pos] as D1ItemRows).terms;
    if (text !== '') for (const term of text.split(' ')) terms.add(term);
  }
  return [...terms].join(' ');
}

/** Where the placeholder stands in an INSERT of a generation's table (`INSERT INTO ci_` before it). */
const INSERT_MARK = 'INSERT INTO ci_'.length;

/**
 * Where the placeholder stands in an entries statement: in its table's name after `INSERT INTO ci_`,
 * and in the order table's name in its end, after the rows (counted back from the statement's end).
 */
const ENTRIES_MARKS = [
  INSERT_MARK,
  orderJoin('column1').indexOf(GENERATION_PLACEHOLDER) - `${orderJoin('column1')};`.length,
];

/** Every place of the placeholder in a statement of the SQL's own (no entry's text in it). */
function placeholders(statement: string): number[] {
  const found: number[] = [];
  for (
    let at = statement.indexOf(GENERATION_PLACEHOLDER);
    at >= 0;
    at = statement.indexOf(GENERATION_PLACEHOLDER, at + 1)
  )
    found.push(at);
  return found;
}

/**
 * One entry's rows of each table, each without its entry's key (the join puts it in: `('key'` then the
 * text here, but for `technologies`, whose rows are `(name, 'key')`), and the terms it adds to the
 * one-typo look-ups.
 */
export interface D1ItemRows<Text = string | ByteSpan> {
  /**
   * The rows are as the build made them, or as bytes the item store keeps (stages/stored-bytes.ts),
   * which go into the import without being decoded, or read at all here: the bodies are most of an
   * item's rows by far, and the others were some 14 MB of strings at 10,000 items, decoded at every
   * build only to be encoded again.
   */
  item: Text;
  translations: Text[];
  bodies: Text[];
  /** Each technology's name as a SQL literal. */
  technologies: string[];
  search: Text;
  /** Every term of its search row, each once, separated by spaces (terms hold no space). */
  terms: string;
  /**
   * A digest of the texts above, set by the build when it first names a generation after them and
   * kept with them (stages/fragment-store.ts): an unchanged item's rows are not hashed again.
   */
  digest?: string;
}

/**
 * The rows of one entry, worked out from that entry alone: what the build keeps per item
 * (build/core/output/item-fragments.ts) and joins (the terms table is the union of every entry's terms).
 */
export function d1ItemRows({ entry, document: doc }: McpItem): D1ItemRows<string> {
  const typeIndex = CONTENT_TYPES.indexOf(entry.item.type);
  const bits = languageBits(entry);
  const translations: string[] = [];
  const bodies: string[] = [];
  for (const lang of LANGUAGES) {
    const text = doc.text[lang];
    if (!text) continue;
    // Only a Spanish page that is not canonical has an address the item does not carry (mcp-data.ts).
    const url = entry.translations[lang]?.url;
    translations.push(
      `, ${sqlString(lang)}, ${sqlString(text.title)}, ${text.description === undefined ? 'NULL' : sqlString(text.description)}, ${sqlString(JSON.stringify(text.tags))}, ${url === undefined ? 'NULL' : sqlString(url)})`,
    );
    if (text.body) bodies.push(`, ${sqlString(lang)}, ${sqlString(text.body)})`);
  }
  const terms = new Set<string>();
  const columns = documentTerms(doc).map((fieldTerms = []) => {
    for (const term of fieldTerms) terms.add(term);
    return sqlString(fieldTerms.join(' '));
  });
  const filters = [
    typeToken(typeIndex),
    ...LANGUAGES.flatMap((_, i) => (bits & (1 << i) ? [languageToken(1 << i)] : [])),
  ];
  return {
    item: `, ${typeIndex}, ${bits}, ${sqlString(JSON.stringify(entry.item))}, ${entry.date === undefined ? 'NULL' : sqlString(entry.date)}, ${sqlString(JSON.stringify(doc.tags))})`,
    translations,
    bodies,
    technologies: [...new Set(doc.technologies.map((tech) => tech.toLowerCase()))].map(sqlString),
    search: `, ${columns.join(', ')}, ${sqlString(filters.join(' '))})`,
    terms: [...terms].join(' '),
  };
}

// A site's vocabulary changes little from build to build: each term's rows are worked out once.
const TERM_ROWS = new Map<string, readonly string[]>();

/** The terms table's rows of one term: its one-typo keys (none under four letters). */
function termRows(term: string): readonly string[] {
  const rows = TERM_ROWS.get(term);
  if (rows) return rows;
  const made: string[] = [];
  if (term.length >= MIN_FUZZY_LENGTH - 1) {
    // Four letters: only ever the result of deleting one from a five-letter query (position -1).
    const keys = term.length < MIN_FUZZY_LENGTH ? [{ key: term, position: -1 }] : deletionKeys(term);
    const seen = new Set<string>();
    for (const { key, position } of keys) {
      const id = `${key}\u0000${position}`;
      if (seen.has(id)) continue;
      seen.add(id);
      made.push(`(${sqlString(key)}, ${position}, ${sqlString(term)})`);
    }
  }
  if (TERM_ROWS.size >= 200_000) TERM_ROWS.clear();
  TERM_ROWS.set(term, made);
  return made;
}

/** Bytes of UTF-8 SQL the caller holds (or keeps in a file): only their count matters here. */
export interface ByteSpan {
  readonly length: number;
}

/** One statement: its text, or its pieces in order (bytes where a row came as bytes). */
export type SqlStatement = string | readonly (string | ByteSpan)[];

export interface D1Import {
  /**
   * The SQL in files, each a statement after another. Kept apart: at 10,000 items the import is tens of
   * MiB, which the build writes piece by piece instead of joining it, and only the files that changed.
   */
  files: D1ImportFile[];
  /** Entries whose row alone passes D1's 100 KB statement limit: the import would fail on them. */
  oversized: number[];
}

/** One table's INSERT statements, rows grouped under D1's statement limit as they come. */
class Inserts {
  private readonly statements: SqlStatement[] = [];
  private batch: (string | ByteSpan)[] = [];
  private bytes = 0;
  private readonly headBytes: number;

  constructor(
    private readonly head: string,
    /** Entries whose row alone passes D1's 100 KB statement limit (their position, -1 for the terms). */
    private readonly oversized: Set<number>,
    /** What follows the rows, before the `;` (ASCII). */
    private readonly tail = '',
  ) {
    this.headBytes = utf8Length(head) + 2 + tail.length;
  }

  /** A row: its start, and the rest of it when that is kept apart (an item's kept texts). */
  add(pos: number, start: string, rest?: string | ByteSpan): void {
    const bytes =
      utf8Length(start) +
      (rest === undefined ? 0 : typeof rest === 'string' ? utf8Length(rest) : rest.length);
    if (bytes + this.headBytes > MAX_STATEMENT_BYTES) this.oversized.add(pos);
    if (this.batch.length > 0 && this.bytes + bytes > STATEMENT_BYTES) this.flush();
    this.batch.push(this.batch.length === 0 ? `${this.head}\n${start}` : `,\n${start}`);
    if (rest !== undefined) this.batch.push(rest);
    this.bytes += bytes + 2;
  }

  finish(): SqlStatement[] {
    if (this.batch.length > 0) this.flush();
    return this.statements;
  }

  private flush(): void {
    this.batch.push(`${this.tail};`);
    // Neighbouring texts as one: a statement is then a string unless a row came as bytes.
    const pieces: (string | ByteSpan)[] = [];
    let text = '';
    for (const piece of this.batch) {
      if (typeof piece === 'string') text += piece;
      else {
        if (text !== '') pieces.push(text);
        pieces.push(piece);
        text = '';
      }
    }
    if (pieces.length > 0) pieces.push(text);
    this.statements.push(pieces.length === 0 ? text : pieces);
    this.batch = [];
    this.bytes = 0;
  }
}

/** D1's statement limit. */
export const MAX_STATEMENT_BYTES = 100_000;

/** The length of `text` in UTF-8, without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * A SQL string literal. Quotes are doubled; a NUL, which a literal cannot hold, is spliced in with
 * char(0). Nothing else needs escaping in SQLite.
 */
export function sqlString(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\u0000') ? `(${quoted.split('\u0000').join("' || char(0) || '")})` : quoted;
}

/**
 * The body a `bodies` row of d1ItemRows holds, given the row and its language: the item store keeps an
 * entry's bodies only there (stages/fragment-store.ts), where they would otherwise be a second time.
 */
export function d1RowBody(row: string, lang: string): string {
  const prefix = `, ${sqlString(lang)}, `;
  if (!row.startsWith(prefix) || !row.endsWith(')')) throw new Error(`not a ${lang} body row`);
  return sqlStringValue(row.slice(prefix.length, -1));
}

/** The text sqlString made `literal` of (a quoted text, or quoted texts joined by NULs). */
export function sqlStringValue(literal: string): string {
  const joined = literal.startsWith('(') && literal.endsWith(')');
  const end = joined ? literal.length - 1 : literal.length;
  let i = joined ? 1 : 0;
  let value = '';
  for (;;) {
    if (literal[i] !== "'") throw new Error('not a SQL string literal');
    // Quotes inside are doubled: the literal ends at the first quote not followed by another.
    let close = literal.indexOf("'", i + 1);
    let text = '';
    let from = i + 1;
    while (close >= 0 && literal[close + 1] === "'") {
      text += literal.slice(from, close + 1);
      from = close + 2;
      close = literal.indexOf("'", from);
    }
    if (close < 0) throw new Error('not a SQL string literal');
    value += text + literal.slice(from, close);
    i = close + 1;
    if (i === end) return value;
    if (!joined || !literal.startsWith(NUL_JOIN, i)) throw new Error('not a SQL string literal');
    value += '\u0000';
    i += NUL_JOIN.length;
  }
}

const NUL_JOIN = ' || char(0) || ';
