/**
 * How MiniSearch and Orama compare for the MCP server's search: bundle size in the Function, size of the
 * prepared index, time to load it on a cold isolate, query time. The corpus is the sample site's
 * translations, and the same corpus repeated to a few thousand documents for a large site.
 *
 *   npm i --no-save @orama/orama@3.1.18   # Orama is not a dependency; only this benchmark needs it
 *   npx tsx bench/search-libraries.ts
 *
 * Figures from this machine are in the README ("Search"); timings vary with load, sizes do not.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
// esbuild is wrangler's bundler, so it is installed already; it measures what the Function would ship.
import { build as bundle } from 'esbuild';
import MiniSearch from 'minisearch';
import { LANGUAGES } from '../build/core/edge/languages.ts';
import { foldTerm } from '../build/core/edge/mcp/text.ts';
import { build } from '../build/index.ts';

const ROOT = join(import.meta.dirname, '..');
const QUERIES = [
  'programacion',
  'aprendizaje automatico',
  'machine learning',
  'transformrs',
  'embed',
  'rust',
  'quantização',
];

/**
 * The corpus both engines were compared on: one flat document per translation. (The server has since
 * moved to one document per item, with each language's text in its own fields: see search-index.ts.)
 */
interface SearchDocument {
  id: number;
  title: string;
  description?: string;
  tags: string[];
  technologies: string[];
}

const MINISEARCH_OPTIONS = {
  idField: 'id',
  fields: ['title', 'description', 'tags', 'technologies'],
  storeFields: [],
  processTerm: (term: string) => foldTerm(term) || null,
  extractField: (doc: SearchDocument, field: string) => {
    const value = doc[field as keyof SearchDocument];
    return Array.isArray(value) ? value.join(' ') : (value as string);
  },
};

interface Engine {
  name: string;
  entry: string;
  index(docs: SearchDocument[]): Promise<string>;
  load(serialized: string): Promise<(query: string) => number>;
}

const minisearch: Engine = {
  name: 'MiniSearch 7.2',
  entry: `import MiniSearch from 'minisearch'; globalThis.engine = MiniSearch;`,
  index: async (docs) => {
    const index = new MiniSearch<SearchDocument>(MINISEARCH_OPTIONS);
    index.addAll(docs);
    return JSON.stringify(index);
  },
  load: async (serialized) => {
    const index = MiniSearch.loadJSON<SearchDocument>(serialized, MINISEARCH_OPTIONS);
    const options = {
      boost: { title: 3, tags: 2, technologies: 2, description: 1 },
      prefix: (term: string) => term.length >= 3,
      fuzzy: (term: string) => (term.length >= 5 ? 1 : false),
    };
    return (query) => {
      const all = index.search(query, { ...options, combineWith: 'AND' });
      return all.length > 0 ? all.length : index.search(query, { ...options, combineWith: 'OR' }).length;
    };
  },
};

/** The part of Orama's API used here; typed locally because Orama is not a dependency. */
interface OramaLib {
  create(options: { schema: Record<string, string> }): unknown;
  insertMultiple(db: unknown, docs: Record<string, string>[]): Promise<unknown> | unknown;
  save(db: unknown): unknown;
  load(db: unknown, raw: unknown): void;
  search(db: unknown, params: Record<string, unknown>): { count: number };
}

async function orama(): Promise<Engine | undefined> {
  const specifier: string = '@orama/orama';
  let lib: OramaLib;
  try {
    lib = (await import(specifier)) as OramaLib;
  } catch {
    console.warn('Orama is not installed: npm i --no-save @orama/orama@3.1.18');
    return undefined;
  }
  const schema = { title: 'string', description: 'string', tags: 'string', technologies: 'string' } as const;
  const flat = (d: SearchDocument) => ({
    id: String(d.id),
    title: d.title,
    description: d.description ?? '',
    tags: d.tags.join(' '),
    technologies: d.technologies.join(' '),
  });
  return {
    name: 'Orama 3.1',
    entry: `import { create, load, search } from '@orama/orama'; globalThis.engine = { create, load, search };`,
    index: async (docs) => {
      const db = lib.create({ schema });
      await lib.insertMultiple(db, docs.map(flat));
      return JSON.stringify(lib.save(db));
    },
    load: async (serialized) => {
      const db = lib.create({ schema });
      lib.load(db, JSON.parse(serialized));
      return (query) => {
        return lib.search(db, {
          term: query,
          tolerance: 1,
          boost: { title: 3, tags: 2, technologies: 2 },
          limit: 1000,
        }).count;
      };
    },
  };
}

async function corpus(): Promise<SearchDocument[]> {
  const { model } = await build({ root: ROOT, dryRun: true });
  return model.entries.flatMap((entry, i) =>
    LANGUAGES.flatMap((lang) => {
      const t = entry.translations[lang];
      if (!t) return [];
      const doc: SearchDocument = {
        id: i * LANGUAGES.length + LANGUAGES.indexOf(lang),
        title: t.title,
        tags: t.tags,
        technologies: entry.technologies ?? [],
      };
      if (t.description !== undefined) doc.description = t.description;
      return [doc];
    }),
  );
}

function scaled(docs: SearchDocument[], times: number): SearchDocument[] {
  return Array.from({ length: times }, (_, copy) =>
    docs.map((d) => ({ ...d, id: d.id + copy * 100_000, title: `${d.title} ${copy}` })),
  ).flat();
}

async function time<T>(run: () => Promise<T>, repeat = 1): Promise<{ value: T; ms: number }> {
  let value = await run();
  const started = performance.now();
  for (let i = 0; i < repeat; i++) value = await run();
  return { value, ms: (performance.now() - started) / repeat };
}

async function bundleBytes(entry: string): Promise<{ min: number; gzip: number }> {
  const out = await bundle({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    write: false,
  });
  const code = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { min: code.byteLength, gzip: gzipSync(code).byteLength };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function main(): Promise<void> {
  const engines = [minisearch, await orama()].filter((e): e is Engine => e !== undefined);
  const base = await corpus();
  const rows: string[] = [];
  rows.push(
    '| Library | Bundle (min / gzip) | Documents | Index JSON (raw / gzip) | Build | Load | Query (mean) | Hits per query |',
  );
  rows.push('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const engine of engines) {
    const size = await bundleBytes(engine.entry);
    for (const docs of [base, scaled(base, 50)]) {
      const built = await time(() => engine.index(docs), 3);
      const serialized = built.value;
      const loaded = await time(() => engine.load(serialized), 5);
      const query = loaded.value;
      const hits = QUERIES.map(query);
      const searched = await time(async () => QUERIES.map(query), 20);
      rows.push(
        `| ${engine.name} | ${kb(size.min)} / ${kb(size.gzip)} | ${docs.length} | ${kb(serialized.length)} / ${kb(gzipSync(serialized).byteLength)} | ${built.ms.toFixed(1)} ms | ${loaded.ms.toFixed(2)} ms | ${(searched.ms / QUERIES.length).toFixed(3)} ms | ${hits.join(' ')} |`,
      );
    }
  }
  const table = rows.join('\n');
  console.log(`Queries: ${QUERIES.join(', ')}\n\n${table}`);
  await writeFile(join(ROOT, 'bench', 'results', 'search-libraries.md'), `${table}\n`).catch(() => undefined);
}

await main();
