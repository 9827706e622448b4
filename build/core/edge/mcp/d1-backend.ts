import type { ContentItemV1 } from '../content-item-v1.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language } from '../languages.ts';
import type { Found, FoundEntry, ListQuery, McpBackend, SearchRequest } from './backend.ts';
import {
  columnOf,
  d1Tables,
  FILTERS_COLUMN,
  GENERATION_PATTERN,
  languageToken,
  SEARCH_COLUMNS,
  SEARCH_WEIGHTS,
  typeToken,
} from './d1-sql.ts';
import {
  languageBit,
  languagesOf,
  MCP_DATA_FORMAT,
  type McpEntry,
  type McpInfo,
  type McpPrepared,
} from './mcp-data.ts';
import {
  ALL_FIELDS,
  chooseHit,
  describeField,
  fieldTerms,
  fieldText,
  type IndexField,
  type SearchDocument,
  searchedFields,
  stemmingOf,
} from './search-fields.ts';
import { hitSnippet } from './snippet.ts';
import { stemTerm } from './stem.ts';
import { deletionKeys, MIN_FUZZY_LENGTH, MIN_PREFIX_LENGTH, termMatches } from './text.ts';

/** What the D1 backend's Function module holds: no entries, only where to find them. */
export interface D1Data {
  format: typeof MCP_DATA_FORMAT;
  backend: 'd1';
  info: McpInfo;
  d1: D1Target;
  /** How many entries pass each type and language filter (`post/en`, `*\/pt-br`, `*\/*`): no count query. */
  counts: Record<string, number>;
}

export interface D1Target {
  /** The Function's binding name (`env.<binding>`), as in wrangler.toml. */
  binding: string;
  /** The database name, as in wrangler.toml and `wrangler d1 create`. */
  database: string;
  /** The generation this build's tables carry (d1-sql.ts). */
  generation: string;
}

export function countKey(type: ContentType | undefined, lang: Language | undefined): string {
  return `${type ?? '*'}/${lang ?? '*'}`;
}

/** Build time: the D1 module's data for a generation of the prepared material. */
export function d1Data(prepared: McpPrepared, target: D1Target): D1Data {
  return d1DataOf(
    prepared.info,
    prepared.entries.map((e) => ({ type: e.item.type, languages: languagesOf(e) })),
    target,
  );
}

/** The same, from each entry's type and languages, in index order. */
export function d1DataOf(
  info: McpInfo,
  entries: readonly { type: ContentType; languages: readonly Language[] }[],
  target: D1Target,
): D1Data {
  // One pass over the entries, counted by type and language index (sixteen filters over them, then
  // a key string per entry and language, were 28 ms and then 19 ms at 10,000 items).
  const types = [undefined, ...CONTENT_TYPES];
  const langs = [undefined, ...LANGUAGES];
  const tally = new Array<number>(types.length * langs.length).fill(0);
  const langIndex = new Map(LANGUAGES.map((lang, i) => [lang, i + 1]));
  for (const e of entries) {
    for (const t of [0, CONTENT_TYPES.indexOf(e.type) + 1]) {
      const row = t * langs.length;
      tally[row] = (tally[row] ?? 0) + 1;
      for (const lang of e.languages) {
        const at = row + (langIndex.get(lang) ?? 0);
        tally[at] = (tally[at] ?? 0) + 1;
      }
    }
  }
  const counts: Record<string, number> = {};
  types.forEach((type, t) => {
    langs.forEach((lang, l) => {
      counts[countKey(type, lang)] = tally[t * langs.length + l] ?? 0;
    });
  });
  return { format: MCP_DATA_FORMAT, backend: 'd1', info, d1: target, counts };
}

/** The part of Cloudflare's D1Database binding this backend uses. */
export interface D1DatabaseLike {
  prepare(sql: string): D1StatementLike;
}
export interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike;
  all<T = Record<string, unknown>>(): Promise<{ results: T[] }>;
}

interface ItemRow {
  pos: number;
  item: string;
  date: string | null;
  title?: string | null;
  description?: string | null;
  url?: string | null;
  total?: number;
}

interface HitRow {
  pos: number;
  rank: number;
  mode: 'all' | 'any';
  total: number;
  item: string;
  date: string | null;
  tags: string;
  /** JSON: [[lang, title, description, tags], …] */
  texts: string;
  /** JSON: [[lang, body], …] of the bodies a query word matched in. */
  bodies: string | null;
}

/**
 * Serves the tools from D1: one SQL statement per tool call (a round trip costs more than the query),
 * every read through an index, so a call reads about as many rows as it returns plus, for a search,
 * one per match scored.
 */
export function createD1Backend(db: D1DatabaseLike, data: D1Data): McpBackend {
  if (!GENERATION_PATTERN.test(data.d1.generation)) throw new Error('D1 data: bad generation');
  const t = d1Tables(data.d1.generation);
  const canonical = data.info.site.canonicalLanguage;
  const query = async <T>(sql: string, values: unknown[]): Promise<T[]> => {
    try {
      return (
        await db
          .prepare(sql)
          .bind(...values)
          .all<T>()
      ).results;
    } catch (error) {
      throw d1Error(error, data.d1);
    }
  };
  return {
    kind: 'd1',
    async list(q: ListQuery) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (q.type !== undefined) where.push(`i.type = ${CONTENT_TYPES.indexOf(q.type)}`);
      if (q.lang !== undefined) where.push(`(i.languages & ${languageBit(q.lang)}) != 0`);
      const translation =
        q.lang === undefined || q.lang === (canonical ?? 'es')
          ? ''
          : `LEFT JOIN ${t.translations} tr ON tr.pos = i.pos AND tr.lang = ${sqlLiteral(q.lang)}`;
      const columns = `i.pos, i.item, i.date${translation ? ', tr.title, tr.description, tr.url' : ''}`;
      let sql: string;
      if (q.technology !== undefined) {
        // The technology's rows first (its primary key), each joined to its item.
        values.push(q.technology);
        const filters = where.map((w) => ` AND ${w}`).join('');
        const seek = q.after !== undefined ? ` AND tech.pos > ${q.after}` : '';
        sql = `SELECT ${columns}, (SELECT count(*) FROM ${t.technologies} c CROSS JOIN ${t.items} i ON i.pos = c.pos WHERE c.name = ?1${filters}) AS total FROM ${t.technologies} tech CROSS JOIN ${t.items} i ON i.pos = tech.pos ${translation} WHERE tech.name = ?1${filters}${seek} ORDER BY tech.pos LIMIT ${q.limit}${q.after === undefined ? ` OFFSET ${q.offset}` : ''}`;
      } else {
        if (q.after !== undefined) where.push(`i.pos > ${q.after}`);
        sql = `SELECT ${columns} FROM ${t.items} i ${translation} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY i.pos LIMIT ${q.limit}${q.after === undefined ? ` OFFSET ${q.offset}` : ''}`;
      }
      const rows = await query<ItemRow>(sql, values);
      const total =
        q.technology !== undefined ? (rows[0]?.total ?? 0) : (data.counts[countKey(q.type, q.lang)] ?? 0);
      return {
        entries: rows.map((row) => listedEntry(row, q.lang, canonical)),
        total,
        last: rows.at(-1)?.pos ?? -1,
      };
    },
    async search(request: SearchRequest): Promise<Found> {
      const rows = await query<HitRow>(searchSql(t, request), []);
      const first = rows[0];
      if (!first) return { mode: 'any', total: 0, hits: [], work: 0 };
      // bm25 is negative, lower is better; FTS5 gives a word in most items a near-zero weight, so the
      // raw figure can round to 0. Scores are said relative to the best hit instead: 1 for it, down
      // to 0.001 at least, in the same order.
      const best = -first.rank;
      const score = (rank: number) => (best > 0 ? Math.max(0.001, -rank / best) : 1);
      return {
        mode: first.mode,
        total: first.total,
        hits: rows.map((row) => foundEntry(row, request, score(row.rank), canonical)),
        work: 0,
      };
    },
  };
}

/**
 * A stand-in for the D1 backend that answers from one made-up item (the newest one's title) and builds
 * its SQL without sending it: the Function warms its tools up with it at startup, where D1 cannot be
 * reached, so that the first request does not pay for compiling this code.
 */
export function rehearsalBackend(data: D1Data): McpBackend {
  const t = d1Tables(data.d1.generation);
  const title = data.info.stats.newest?.title ?? 'content index';
  const item = JSON.stringify({ type: 'post', title, url: data.info.site.site });
  const canonical = data.info.site.canonicalLanguage;
  const texts = JSON.stringify([[canonical ?? 'es', title, null, [], null]]);
  return {
    kind: 'd1',
    async list(query) {
      return {
        entries: [listedEntry({ pos: 0, item, date: null, title, description: null }, query.lang, canonical)],
        total: 1,
        last: 0,
      };
    },
    async search(request) {
      searchSql(t, request);
      const row: HitRow = {
        pos: 0,
        rank: -1,
        mode: 'all',
        total: 1,
        item,
        date: null,
        tags: '[]',
        texts,
        bodies: null,
      };
      return { mode: 'all', total: 1, hits: [foundEntry(row, request, 1, canonical)], work: 0 };
    },
  };
}

/** A listed entry: the item, and the requested language's title and description when it is not the canonical one. */
function listedEntry(row: ItemRow, lang: Language | undefined, canonical: McpEntry['lang']): McpEntry {
  const entry: McpEntry = {
    item: JSON.parse(row.item) as ContentItemV1,
    ...(canonical !== undefined && { lang: canonical }),
    translations: {},
  };
  if (row.date !== null) entry.date = row.date;
  if (lang !== undefined && lang !== (canonical ?? 'es') && typeof row.title === 'string') {
    entry.translations[lang] = {
      title: row.title,
      ...(typeof row.description === 'string' && { description: row.description }),
      ...(typeof row.url === 'string' && { url: row.url }),
    };
  }
  return entry;
}

/**
 * One statement per search: the MATCH expression is assembled in SQL, with the one-typo candidates of
 * each long term looked up in the terms table inside it; every word must match (`m`), and only when no
 * entry has them all are partial matches scored (`o`); the best hits are joined to their items and
 * translations, to the fields any word matched in (`cols`: a bm25 weighted on that one column is
 * negative exactly when something matched there) and to the body of the language the hit is reported
 * in, when it matched.
 */
function searchSql(t: ReturnType<typeof d1Tables>, request: SearchRequest): string {
  const searched = searchedFields(request.lang);
  const expressions = request.terms.map((word) => wordExpression(t.terms, word, searched));
  const filters = [
    ...(request.type !== undefined ? [typeToken(CONTENT_TYPES.indexOf(request.type))] : []),
    ...(request.lang !== undefined ? [languageToken(languageBit(request.lang))] : []),
  ];
  const filter = filters.length ? ` || ' AND {${FILTERS_COLUMN}}: (${filters.join(' AND ')})'` : '';
  // Each word's expression is written once (in `w`), and the AND and OR expressions are made of them:
  // a long query's SQL stays well under D1's 100 KB per statement.
  const words = `SELECT ${expressions.map((e, i) => `${e} AS w${i}`).join(', ')}`;
  const match = (operator: 'AND' | 'OR') =>
    `'(' || ${expressions.map((_, i) => `w${i}`).join(` || ') ${operator} (' || `)} || ')'${filter}`;
  const rank = `bm25(${t.search}, ${SEARCH_WEIGHTS.join(', ')})`;
  const scored = (operator: 'AND' | 'OR', from: string) =>
    `SELECT ${t.search}.rowid AS pos, ${rank} AS rank FROM ${from} WHERE ${t.search} MATCH (SELECT ${operator === 'AND' ? 'a' : 'o'} FROM q)`;
  // The partial matches are scored only when no entry has every term: the one-row guard comes first in
  // a CROSS JOIN (SQLite keeps that order), so without it the full-text table is never even opened.
  const some =
    expressions.length > 1
      ? `, o AS MATERIALIZED (${scored('OR', `(SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM m)) AS go CROSS JOIN ${t.search}`)}), r AS (SELECT pos, rank, 'all' AS mode FROM m UNION ALL SELECT pos, rank, 'any' AS mode FROM o)`
      : `, r AS (SELECT pos, rank, 'all' AS mode FROM m)`;
  // A body matched exactly when a bm25 weighted on its column alone is negative.
  const bodies = BODY_COLUMNS.map(
    ({ column }) => `bm25(${t.search}, ${SEARCH_COLUMNS.map((c) => (c === column ? 1 : 0)).join(', ')}) < 0`,
  );
  const cols = `cols AS MATERIALIZED (SELECT ${t.search}.rowid AS pos, json_array(${bodies.join(', ')}) AS matched FROM ${t.search} WHERE ${t.search} MATCH (SELECT o FROM q) AND ${t.search}.rowid IN (SELECT pos FROM top))`;
  const matchedBody = `CASE b.lang ${BODY_COLUMNS.map(({ lang }, k) => `WHEN ${sqlLiteral(lang)} THEN json_extract(cols.matched, '$[${k}]')`).join(' ')} ELSE 0 END = 1`;
  return `WITH w AS MATERIALIZED (${words}), q AS MATERIALIZED (SELECT ${match('AND')} AS a, ${match('OR')} AS o FROM w), m AS MATERIALIZED (${scored('AND', t.search)})${some}, top AS (SELECT pos, rank, mode FROM r ORDER BY rank, pos LIMIT ${request.limit}), ${cols} SELECT top.pos, top.rank, top.mode, (SELECT count(*) FROM r) AS total, i.item, i.date, i.tags, (SELECT json_group_array(json_array(tr.lang, tr.title, tr.description, json(tr.tags), tr.url)) FROM ${t.translations} tr WHERE tr.pos = top.pos) AS texts, (SELECT json_group_array(json_array(b.lang, b.text)) FROM ${t.bodies} b CROSS JOIN cols ON cols.pos = b.pos WHERE b.pos = top.pos AND ${matchedBody}) AS bodies FROM top CROSS JOIN ${t.items} i ON i.pos = top.pos ORDER BY top.rank, top.pos`;
}

/** The body columns, with their language. */
const BODY_COLUMNS = ALL_FIELDS.flatMap((field) => {
  const { kind, lang } = describeField(field);
  return kind === 'body' && lang !== undefined ? [{ lang, column: columnOf(field) }] : [];
});

/**
 * One query word's FTS5 sub-expression, as SQL that builds it, matching what the embedded index does:
 * for each form the word takes (its stem in each language's prose fields, itself in the tags and
 * technologies), in the columns of that form, the form and the indexed terms one typo away from it
 * (five letters or more, looked up in the terms table); and in every searched column, the continuations
 * of the word as typed (three letters or more).
 */
function wordExpression(termsTable: string, word: string, searched: readonly IndexField[]): string {
  const forms = new Map<string, string[]>();
  for (const field of searched) {
    const lang = stemmingOf(field);
    const form = lang === undefined ? word : stemTerm(lang, word);
    const columns = forms.get(form);
    if (columns) columns.push(columnOf(field));
    else forms.set(form, [columnOf(field)]);
  }
  const parts = [...forms].map(
    ([form, columns]) => `${sqlLiteral(`{${columns.join(' ')}}: (`)} || ${termExpression(termsTable, form)}`,
  );
  if (word.length >= MIN_PREFIX_LENGTH) {
    parts.push(sqlLiteral(`{${searched.map(columnOf).join(' ')}}: (${quote(word)}*)`));
  }
  return parts.join(` || ' OR ' || `);
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * A SQL expression for one form's FTS5 phrases and the closing parenthesis: the form, or'ed with the
 * indexed terms one typo away. Terms hold only letters, digits and marks (text.ts), so quoting is a
 * formality; it is done anyway.
 */
function termExpression(termsTable: string, term: string): string {
  const base = sqlLiteral(quote(term));
  if (term.length < MIN_FUZZY_LENGTH) return `${base} || ')'`;
  const conditions = [`key = ${sqlLiteral(term)}`];
  for (const { key, position } of deletionKeys(term).slice(1)) {
    conditions.push(`(key = ${sqlLiteral(key)} AND position IN (-1, ${position}))`);
  }
  const candidates = `SELECT group_concat('"' || replace(term, '"', '""') || '"', ' OR ') FROM (SELECT DISTINCT term FROM ${termsTable} WHERE (${conditions.join(' OR ')}) AND term != ${sqlLiteral(term)})`;
  return `${base} || coalesce(' OR ' || (${candidates}), '') || ')'`;
}

function sqlLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A hit as the tools need it: the entry, the language and fields the words matched in, the snippet. */
function foundEntry(
  row: HitRow,
  request: SearchRequest,
  score: number,
  canonical: McpEntry['lang'],
): FoundEntry {
  const item = JSON.parse(row.item) as ContentItemV1;
  const texts = JSON.parse(row.texts) as [Language, string, string | null, string[], string | null][];
  const shared = JSON.parse(row.tags) as string[];
  const bodies = new Map(JSON.parse(row.bodies ?? '[]') as [Language, string][]);
  const entry: McpEntry = {
    item,
    ...(canonical !== undefined && { lang: canonical }),
    translations: {},
    tags: {},
  };
  if (row.date !== null) entry.date = row.date;
  const doc: SearchDocument = { id: row.pos, text: {}, tags: shared, technologies: item.technologies ?? [] };
  for (const [lang, title, description, tags, url] of texts) {
    doc.text[lang] = { title, ...(description !== null && { description }), tags };
    if (lang !== (canonical ?? 'es'))
      entry.translations[lang] = {
        title,
        ...(description !== null && { description }),
        ...(url !== null && { url }),
      };
    (entry.tags as Record<string, string[]>)[lang] = [...shared, ...tags];
  }
  // Which fields hold which words, as the embedded index knows it from its postings: the titles,
  // descriptions and tags from their texts, once per word; a body once, when the database said it matched.
  const matched: string[] = [];
  for (const field of searchedFields(request.lang)) {
    const { kind, lang } = describeField(field);
    if (kind === 'body') {
      if (lang !== undefined && bodies.has(lang)) matched.push(field);
      continue;
    }
    const text = fieldText(doc, field);
    if (text === undefined) continue;
    const stemming = stemmingOf(field);
    const terms = fieldTerms(text, stemming);
    for (const word of request.terms) {
      const form = stemming === undefined ? word : stemTerm(stemming, word);
      if (terms.some((term) => termMatches(form, term))) matched.push(field);
    }
  }
  const hit = chooseHit(matched, languagesOf(entry), request.lang);
  return {
    entry,
    lang: hit.lang,
    score,
    fields: hit.fields,
    snippet: hitSnippet(entry, hit, bodies.get(hit.lang), request.terms),
  };
}

/** D1's error, said in terms of what to do: the usual cause is a database that was never imported into. */
function d1Error(error: unknown, target: D1Target): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/no such table/i.test(message)) {
    return new Error(
      `The search tables of this build (${target.generation}) are not in the D1 database ${target.database}: the deploy imports them (content-index deploy), and content-index d1 import --local does it for a local server.`,
    );
  }
  return new Error(`The D1 database ${target.database} failed: ${message}`);
}
