import type fs from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Location } from '../../build/core/content/layout.ts';
import type { ContentEntry, ContentModel } from '../../build/core/content/model.ts';
import { LANGUAGES } from '../../build/core/edge/languages.ts';
import { GENERATION_PLACEHOLDER } from '../../build/core/edge/mcp/d1-sql.ts';
import { isContentIndexError } from '../../build/core/errors.ts';
import {
  joinable,
  type SerializerRegistry,
  type VersionContext,
} from '../../build/core/serializers/registry.ts';
import { type BuildOptions, build, SERIALIZERS } from '../../build/index.ts';
import {
  type FileRecord,
  FragmentStore,
  STORE_DIR,
  type StoreOptions,
  shardOf,
} from '../../build/stages/fragment-store.ts';
import { DEFAULT_MAX_FILE_BYTES, type Listing } from '../../build/stages/load.ts';
import { entryKeys } from '../../build/stages/mcp-output.ts';
import type { ParsedSource } from '../../build/stages/parse/parse-source.js';
import { ParseCache, pendingBody } from '../../build/stages/parse-cache.ts';
import { writeFilePieces } from '../../build/stages/stored-bytes.ts';
import { writePrivateFiles } from '../../build/stages/write-private.ts';
import { V2 } from '../fixtures/v2/serializer.ts';
import { d1ImportSql } from '../helpers/d1.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { HUGO, privateFiles, sameAsCold } from '../helpers/same-as-cold.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

// Acceptance 2 of the incremental engine (issue 23): between incremental builds (the project's kept
// items and fragments, `.content-index/cache/`), files are edited (front matter and body), renamed and
// deleted, the configuration (routes, the canonical language, whether bodies are searched), the schema
// and the lifecycle change, a Hugo cascade (an _index.md) is added, edited and removed, and the clock passes a future item's date, a Hugo page's expiryDate and a
// version's sunset; each time, every byte the build publishes (the output folder and the /mcp data,
// embedded or the D1 import, bodies included) is what a build from nothing gives.

let site: TempSite | undefined;
afterEach(() => site?.dispose());

// The store's writes, made to fail or to wait where a test says (a full disk; a save still writing
// when the next build learns): every write goes through as it is otherwise. Given to the stores those
// tests open, not put in by mocking the module: the suite's files share their modules (isolate: false),
// and a file run before this one in the same process had loaded the real one, so the writes were
// neither failed nor held (three tests failing, two of them by timing out).
const writes = {
  fail: undefined as RegExp | undefined,
  hold: undefined as { path: RegExp; reached: () => void; until: Promise<void> } | undefined,
};
const storeWrites: StoreOptions['writePieces'] = async (path, pieces) => {
  if (writes.fail?.test(path)) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  const hold = writes.hold;
  if (hold?.path.test(path)) {
    writes.hold = undefined;
    hold.reached();
    await hold.until;
  }
  return writeFilePieces(path, pieces);
};
afterEach(() => {
  writes.fail = undefined;
  writes.hold = undefined;
});

/** Holds the next write to a path `path` matches: `reached` once it is held, until `release` is called. */
function holdWrite(path: RegExp): { reached: Promise<void>; release: () => void } {
  let release = () => {};
  const reached = new Promise<void>((resolve) => {
    writes.hold = {
      path,
      reached: resolve,
      until: new Promise<void>((done) => {
        release = done;
      }),
    };
  });
  return { reached, release };
}

// Bodies are searched (`mcp.bodies`, on by default): each file has a text of its own, which the
// embedded index, the D1 import and the snippets' texts carry.
const FILES = {
  'content/posts/uno.es.md': md(
    { title: 'Uno', description: 'El primero', date: '2025-01-10', tags: ['ia', 'ml'] },
    'Los **modelos** de lenguaje aprenden de los datos.\n\n```python\nprint("hola")\n```\n',
  ),
  'content/posts/uno.en.md': md(
    { title: 'One', description: 'The first', date: '2025-01-10', tags: ['ia'] },
    'Running language models on a laptop.\n',
  ),
  'content/posts/uno.pt-br.md': md(
    { title: 'Um', date: '2025-01-11', tags: ['ia', 'ml'] },
    'O aprendizado dos modelos de linguagem.\n',
  ),
  'content/posts/dos.es.md': md(
    { title: 'Dos', date: '2025-02-01', tags: ['rust'] },
    'Préstamos sin miedo.\n',
  ),
  'content/posts/borrador.es.md': md(
    { title: 'Borrador', date: '2025-03-01', draft: true },
    'Un secreto zqxborrador.\n',
  ),
  'content/posts/manana.es.md': md({ title: 'Mañana', date: '2026-07-01T00:00:00Z' }, 'Llega mañana.\n'),
  'content/projects/motor.es.md': md(
    { title: 'Motor', date: '2025-01-01', technologies: ['Rust', 'C++'] },
    'Un motor gráfico.\n',
  ),
  'content/projects/motor.en.md': md({ title: 'Engine', date: '2025-01-01' }, 'A graphics engine.\n'),
  'content/projects/motor.pt-br.md': md({ title: 'Motor', slug: 'motor-grafico' }, 'Um motor gráfico.\n'),
  'content/tips/atajo.es.md': md({ title: 'Atajo', description: 'Un atajo de teclado' }, ''),
  // Hugo's expiryDate: published until the clock passes it (the builds follow Hugo's rules).
  'content/tips/caduca.es.md': md(
    { title: 'Caduca', date: '2025-01-02', expiryDate: '2026-06-15' },
    'Vence.\n',
  ),
};

/** Before the future post's date and v1's sunset; then past each. */
const JUNE = new Date('2026-06-01T00:00:00Z');
const JULY = new Date('2026-07-02T00:00:00Z');
const LATER = new Date('2028-01-01T00:00:00Z');

function headers(versions: Record<string, Record<string, string>>): string {
  const helper = join(PROJECT_ROOT, 'build/core/config/lifecycle-config.ts');
  return `import { defineHeaders } from ${JSON.stringify(helper)};\nexport default defineHeaders({ versions: ${JSON.stringify(versions)} });\n`;
}

const titles = async (s: TempSite, version = 'v1') =>
  (await s.readJson<{ content: { title: string }[] }>(`api/${version}/content.json`)).content.map(
    (c) => c.title,
  );

describe('an incremental build gives the bytes of a build from nothing', () => {
  for (const backend of ['embedded', 'd1'] as const) {
    it(`after edits, renames, deletes, configuration, schema, lifecycle and clock changes (${backend})`, async () => {
      const config = { ...FIXTURE_CONFIG, mcp: { backend } };
      site = await tempSite({ ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, config);
      const s = site;
      const path = (p: string) => join(s.root, p);
      let clock = JUNE;
      const options = (more: BuildOptions = {}): BuildOptions => ({
        clock: () => clock,
        hugo: HUGO,
        ...more,
      });

      // From nothing, then nothing changed: recognised, and nothing is run.
      let result = await sameAsCold(s, options());
      expect(result?.incremental.redone).toBe(5);
      expect(result?.mcp?.backend).toBe(backend);
      // The bodies are in the MCP data (the D1 import's bodies table, the module's body texts).
      expect(Object.values(await privateFiles(s.root)).join('')).toContain(
        'Running language models on a laptop.',
      );
      result = await sameAsCold(s, options());
      expect(result?.incremental.unchanged).toBe(true);
      expect(await titles(s)).toEqual(['Dos', 'Uno', 'Caduca', 'Motor', 'Atajo']);

      // A file of its output gone, or the whole output: not taken as unchanged, and written again.
      await rm(join(s.out, 'llms.txt'));
      result = await sameAsCold(s, options());
      expect(result?.incremental.unchanged).toBe(false);
      await rm(s.out, { recursive: true, force: true });
      result = await sameAsCold(s, options());
      expect(result?.incremental).toMatchObject({ unchanged: false, redone: 0 });

      // One file edited: its item alone is made again.
      await s.write(
        'content/posts/dos.es.md',
        md({ title: 'Dos editado', date: '2025-02-01', tags: ['rust', 'go'] }),
      );
      result = await sameAsCold(s, options());
      expect(result?.incremental).toMatchObject({ unchanged: false, redone: 1, redoneItems: ['post/dos'] });

      // A body edit: the file is read, and its item made again (its body is searched).
      await s.write('content/posts/uno.en.md', `${FILES['content/posts/uno.en.md']}More text.\n`);
      result = await sameAsCold(s, options());
      expect(result?.incremental).toMatchObject({ unchanged: false, redone: 1, redoneItems: ['post/uno'] });

      // A cascade in the section's list page (Hugo's _index.md) reaches every post below it, with no
      // post's file changed: an expiryDate passed, then edited in place to one ahead, then taken away.
      const cascade = (expiryDate: string) =>
        s.write('content/posts/_index.md', md({ title: 'Entradas', cascade: { expiryDate } }));
      await cascade('2026-05-01');
      result = await sameAsCold(s, options());
      expect(await titles(s)).toEqual(['Caduca', 'Motor', 'Atajo']);
      await cascade('2027-05-01');
      result = await sameAsCold(s, options());
      expect(result?.incremental.unchanged).toBe(false);
      expect(await titles(s)).toEqual(['Dos editado', 'Uno', 'Caduca', 'Motor', 'Atajo']);
      await rm(path('content/posts/_index.md'));
      result = await sameAsCold(s, options());
      expect(await titles(s)).toEqual(['Dos editado', 'Uno', 'Caduca', 'Motor', 'Atajo']);

      // Renamed (a new item), a translation deleted, a file added, two items paired by translationKey.
      await rename(path('content/tips/atajo.es.md'), path('content/tips/atajo-nuevo.es.md'));
      await rm(path('content/posts/uno.pt-br.md'));
      await s.write('content/tips/nuevo.es.md', md({ title: 'Nuevo', date: '2025-05-05', tags: ['datos'] }));
      await s.write(
        'content/posts/two.en.md',
        md({ title: 'Two', translationKey: 'dos', date: '2025-02-02' }),
      );
      await s.write(
        'content/posts/dos.es.md',
        md({ title: 'Dos editado', date: '2025-02-01', translationKey: 'dos' }),
      );
      result = await sameAsCold(s, options());
      expect(result?.incremental.redoneItems.sort()).toEqual([
        'post/dos',
        'post/uno',
        'tip/atajo-nuevo',
        'tip/nuevo',
      ]);
      expect(await titles(s)).toEqual(['Nuevo', 'Dos editado', 'Uno', 'Caduca', 'Motor', 'Atajo']);

      // A file that cannot be read, then fixed: the same problems as from nothing, then the same output.
      await s.write('content/posts/uno.es.md', '---\ntitle: [Uno\n---\n');
      expect(await sameAsCold(s, options())).toBeUndefined();
      await s.write('content/posts/uno.es.md', FILES['content/posts/uno.es.md']);
      await sameAsCold(s, options());

      // The configuration: a name (no item changes: none is made again), then routes (every one is).
      const configure = (more: Record<string, unknown>) =>
        s.write('site.config.ts', `export default ${JSON.stringify({ ...config, ...more })};\n`);
      await configure({ name: 'Otro' });
      result = await sameAsCold(s, options());
      expect(result?.incremental).toMatchObject({ redone: 0, assembled: 8 });
      const routes = { post: { es: '/articulos/{slug}/' } };
      await configure({ name: 'Otro', routes });
      result = await sameAsCold(s, options());
      expect(result?.incremental.redone).toBeGreaterThan(0);

      // Another canonical language: English, the items without an English file left out.
      await configure({
        name: 'Otro',
        routes,
        canonicalLanguage: 'en',
        content: { withoutCanonical: 'leave-out' },
      });
      result = await sameAsCold(s, options());
      expect(await titles(s)).toEqual(['Two', 'One', 'Engine']);
      // Bodies no longer searched: every item's MCP material is made again, without them.
      await configure({ name: 'Otro', routes, mcp: { backend, bodies: false } });
      result = await sameAsCold(s, options());
      expect(Object.values(await privateFiles(s.root)).join('')).not.toContain('on a laptop');
      expect(await titles(s)).toEqual(['Nuevo', 'Dos editado', 'Uno', 'Caduca', 'Motor', 'Atajo']);
      await configure({ name: 'Otro', routes });
      result = await sameAsCold(s, options());

      // The clock passes the future post's date: nothing changed on disk, and the build is not skipped.
      clock = JULY;
      result = await sameAsCold(s, options());
      expect(result?.incremental).toMatchObject({ unchanged: false, redoneItems: ['post/manana'] });
      expect(await titles(s)).toContain('Mañana');
      // And past the tip's expiryDate (2026-06-15): it is left out, as Hugo leaves it out.
      expect(await titles(s)).not.toContain('Caduca');

      // The schema: a registry with a v2 (another schema, another body) and the lifecycle publishing it.
      const withV2: SerializerRegistry = { ...SERIALIZERS, v2: V2 };
      await s.write(
        'headers.config.ts',
        headers({ v1: { published: '2025-01-15', sunset: '2027-07-02' }, v2: { published: '2026-07-01' } }),
      );
      result = await sameAsCold(s, options({ serializers: withV2 }));
      expect((await s.readJson<{ current: string }>('api/versions.json')).current).toBe('v2');
      expect(await titles(s)).toContain('Mañana');
      result = await sameAsCold(s, options({ serializers: withV2 }));
      expect(result?.incremental.unchanged).toBe(true);

      // The clock passes v1's sunset: v1 is withdrawn, with no file changed.
      clock = LATER;
      result = await sameAsCold(s, options({ serializers: withV2 }));
      expect(result?.incremental.unchanged).toBe(false);
      expect(Object.keys(await snapshotDir(s.out))).not.toContain('api/v1/content.json');

      // A kept item's stamp changed with nothing else (a checkout): read again, not made again.
      await utimes(path('content/projects/motor.es.md'), new Date(), new Date());
      result = await sameAsCold(s, options({ serializers: withV2 }));
      expect(result?.incremental).toMatchObject({ unchanged: false, redone: 0 });
    });
  }
});

describe('a clock set back', () => {
  it("trusts nothing a later clock made: the index, the kept store and a named save give a build from nothing's bytes", async () => {
    site = await tempSite(FILES);
    const s = site;
    const hugo = HUGO;
    // In July the future post is published and the tip past its expiryDate is not; in June, the reverse.
    await sameAsCold(s, { clock: () => JULY, hugo });
    expect(await titles(s)).toContain('Mañana');
    let result = await sameAsCold(s, { clock: () => JUNE, hugo });
    expect(result?.incremental.unchanged).toBe(false);
    expect(await titles(s)).not.toContain('Mañana');
    expect(await titles(s)).toContain('Caduca');
    result = await sameAsCold(s, { clock: () => JULY, hugo });
    expect(await titles(s)).toContain('Mañana');

    // dev's kept store, saves of another file named: the second would patch the first's walks, July's.
    const store = FragmentStore.open(s.root, { racyMs: 0 });
    const saved = join(s.root, 'content/posts/dos.es.md');
    const save = async (title: string, clock: Date) => {
      await s.write('content/posts/dos.es.md', md({ title, date: '2025-02-01' }, 'Préstamos.\n'));
      return sameAsCold(s, { clock: () => clock, hugo, store, changed: new Set([saved]) });
    };
    await save('Dos, otra vez', JULY);
    expect(store.walk(store.listing as Listing)).toBeDefined();
    result = await save('Dos, una vez más', JUNE);
    // Every item assembled again at the earlier clock; fragments made for the entries that differ.
    expect(result?.incremental).toMatchObject({ assembled: 7, redoneItems: ['post/dos', 'tip/caduca'] });
    expect(await titles(s)).not.toContain('Mañana');
    expect(await titles(s)).toContain('Caduca');
    // Written and read back, the store keeps the latest clock it was taught: July's.
    await store.save();
    expect(FragmentStore.open(s.root).clock).toBe(JULY.getTime());
  });
});

describe("a list page's dates", () => {
  it('reach the pages below it when the clock passes them, whatever dates those pages set themselves', async () => {
    // Found by incremental-sequences.test.ts. A list page whose cascade gives it an expiryDate goes when
    // that day comes, and takes every page below it with it (Hugo), even a page whose own expiryDate is
    // later. The clock's next change was worked out from each page's own dates alone: the build after
    // the list page's day was taken for unchanged and still published the page.
    const { s, options } = await keptSite({
      'content/posts/dos.es.md': md({ title: 'Dos', date: '2025-01-10', expiryDate: '2027-01-01' }),
      // Dated ahead: it comes out, with the pages below it, on its day.
      'content/tips/_index.md': md({ title: 'Trucos', publishDate: '2026-06-10' }, ''),
      'content/tips/atajo.es.md': md({ title: 'Atajo', date: '2025-01-10' }),
    });
    let clock = JUNE;
    const at = (): BuildOptions => ({ ...options, clock: () => clock, hugo: HUGO });
    await s.write(
      'content/posts/_index.md',
      md({ title: 'Entradas', cascade: { expiryDate: '2026-06-15' } }, ''),
    );
    await sameAsCold(s, at());
    expect(await titles(s)).toEqual(['Dos']);
    clock = new Date('2026-06-12T00:00:00Z');
    let result = await sameAsCold(s, at());
    expect(result?.incremental.unchanged).toBe(false);
    expect(await titles(s)).toEqual(['Dos', 'Atajo']);
    clock = new Date('2026-06-18T00:00:00Z');
    result = await sameAsCold(s, at());
    expect(result?.incremental.unchanged).toBe(false);
    expect(await titles(s)).toEqual(['Atajo']);
  });
});

describe('the D1 import', () => {
  /** 300 posts on D1: more than one file of entries (128 on average, PART_ENTRIES). */
  const postsOnD1 = async (): Promise<TempSite> => {
    const posts: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      const n = String(i).padStart(3, '0');
      posts[`content/posts/nota-${n}.es.md`] = md(
        { title: `Nota ${n}`, date: `2025-01-${String((i % 28) + 1).padStart(2, '0')}` },
        `El cuerpo de la nota ${n}: modelos de lenguaje.\n`,
      );
    }
    site = await tempSite(
      { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
      { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
    );
    return site;
  };

  /** The import's files, each by its stamp (inode and mtime): a file written again has a new one. */
  const stampsOf = async (root: string) => {
    const d1 = join(root, '.content-index/d1');
    const found: Record<string, string> = {};
    for (const name of await readdir(d1)) {
      const st = await stat(join(d1, name));
      found[name] = `${st.ino}:${st.mtimeMs}`;
    }
    return found;
  };
  /** The import's entries files that hold the rows of the item `id` (its key is in each row). */
  const holding = async (root: string, names: readonly string[], id: string) => {
    const key = `'${entryKeys([id])[0]}'`;
    const found: string[] = [];
    for (const name of names.filter((n) => n.startsWith('entries-')))
      if ((await readFile(join(root, '.content-index/d1', name), 'utf8')).includes(key)) found.push(name);
    return found;
  };
  const kindOf = (name: string) => name.replace(/-[0-9a-f]{16}\.sql$/, '');

  it("rewrites only the files of the entries that changed, and joins as a build from nothing's", async () => {
    // The import is the same statements in every build but for the files an edit touches: a file's
    // name is a digest of what it holds, and the generation, which every statement names, is put in by
    // the import as it joins them.
    const s = await postsOnD1();
    const first = await build({ root: s.root, clock: () => JUNE });
    const before = await stampsOf(s.root);
    const entriesFiles = Object.keys(before).filter((name) => name.startsWith('entries-'));
    expect(entriesFiles.length).toBeGreaterThan(1);
    // Words the site holds already: the one-typo look-ups (the terms' file) stay as they were.
    await s.write(
      'content/posts/nota-150.es.md',
      md({ title: 'Nota 150', date: '2025-01-11' }, 'El cuerpo de la nota 150: lenguaje de modelos.\n'),
    );
    const edited = await build({ root: s.root, clock: () => JUNE });
    expect(edited.incremental.redoneItems).toEqual(['post/nota-150']);
    expect(edited.mcp?.d1?.generation).not.toBe(first.mcp?.d1?.generation);
    const after = await stampsOf(s.root);
    const kept = Object.keys(after).filter((name) => before[name] === after[name]);
    const written = Object.keys(after).filter((name) => before[name] !== after[name]);
    expect(written.sort()).toEqual([
      ...(await holding(s.root, written, 'post/nota-150')),
      'import.json',
      'parts.json',
    ]);
    expect(written.map(kindOf)).toEqual(['entries', 'import.json', 'parts.json']);
    expect(kept.map(kindOf).sort()).toEqual(
      ['done', 'order', 'schema', 'terms', ...entriesFiles.slice(1).map(() => 'entries')].sort(),
    );
    const sql = await d1ImportSql(s.root);
    expect(sql).toContain('lenguaje de modelos');
    expect(sql).toContain(`INSERT INTO ci_${edited.mcp?.d1?.generation}_bodies (pos, lang, text) SELECT`);
    expect(sql).not.toContain(GENERATION_PLACEHOLDER);
    // A file removed by hand is written again by the next build; the import is a build from nothing's.
    await rm(join(s.root, '.content-index/d1', written[0] as string));
    await build({ root: s.root, clock: () => JUNE });
    expect(await d1ImportSql(s.root)).toBe(sql);
    await rm(join(s.root, '.content-index'), { recursive: true });
    await build({ root: s.root, clock: () => JUNE });
    expect(await d1ImportSql(s.root)).toBe(sql);
    expect(Object.keys(await stampsOf(s.root)).sort()).toEqual(Object.keys(after).sort());
  });

  it('writes the order and the one file of entries an item joins or leaves, not every file after it', async () => {
    // Every entry after an item added or removed moves by one place. Each row names its entry by a key
    // and takes its place from the order table as it is inserted, and a file ends where a key says, not
    // at a count: the other files hold the same bytes wherever their entries now stand.
    const s = await postsOnD1();
    await build({ root: s.root, clock: () => JUNE });
    const changedBy = async (change: () => Promise<unknown>, id: string) => {
      const before = await stampsOf(s.root);
      await change();
      const result = await build({ root: s.root, clock: () => JUNE });
      const after = await stampsOf(s.root);
      const written = Object.keys(after).filter((name) => before[name] !== after[name]);
      const gone = Object.keys(before).filter((name) => !(name in after));
      const entries = Object.keys(after).filter((name) => name.startsWith('entries-'));
      // The import is a build from nothing's, byte for byte.
      const sql = await d1ImportSql(s.root);
      await rm(join(s.root, '.content-index'), { recursive: true });
      await build({ root: s.root, clock: () => JUNE });
      expect(await d1ImportSql(s.root)).toBe(sql);
      return { result, written, gone, entries, holding: await holding(s.root, Object.keys(after), id) };
    };
    // The newest post, of words the site has (the one-typo look-ups stay as they were): the first
    // place, every other post one further.
    const added = await changedBy(
      () =>
        s.write(
          'content/posts/nota-300.es.md',
          md({ title: 'Nota 300', date: '2025-12-01' }, 'El cuerpo de la nota 300: modelos de lenguaje.\n'),
        ),
      'post/nota-300',
    );
    expect(added.result.incremental.redoneItems).toEqual(['post/nota-300']);
    expect(added.holding).toHaveLength(1);
    // The count of items is in the schema's first line and the last file's statement.
    expect(added.written.map(kindOf).sort()).toEqual(
      ['done', 'entries', 'import.json', 'order', 'parts.json', 'schema'].sort(),
    );
    expect(added.written).toContain(added.holding[0]);
    expect(added.entries.length).toBeGreaterThan(1);
    expect(added.result.mcp?.files.filter((file) => file.named?.kept)).toHaveLength(added.entries.length - 1);
    // And removed again: the file it was in is the file it was added to, as it was before.
    const removed = await changedBy(() => rm(join(s.root, 'content/posts/nota-300.es.md')), 'post/nota-300');
    expect(removed.holding).toEqual([]);
    expect(removed.written.map(kindOf).sort()).toEqual(
      ['done', 'entries', 'import.json', 'order', 'parts.json', 'schema'].sort(),
    );
    expect(removed.gone.filter((name) => name.startsWith('entries-'))).toEqual(added.holding);
  });

  it("makes the one-typo look-ups of the unchanged files' kept terms and the changed files' entries", async () => {
    // Files of entries: parts.json keeps each file's distinct terms by its name (a
    // digest of its rows, terms included), and the next build splits only the changed files' entries.
    const s = await postsOnD1();
    const partsFile = join(s.root, '.content-index/d1/parts.json');
    const termsOf = async () =>
      Object.fromEntries(
        Object.entries(
          JSON.parse(await readFile(partsFile, 'utf8')) as Record<string, { terms: string }>,
        ).map(([name, part]) => [name, part.terms]),
      );
    const fromNothing = async () => {
      const kept = await d1ImportSql(s.root);
      await rm(join(s.root, '.content-index'), { recursive: true });
      await build({ root: s.root, clock: () => JUNE });
      expect(await d1ImportSql(s.root)).toBe(kept);
      return kept;
    };
    const first = await build({ root: s.root, clock: () => JUNE });
    const kept = await termsOf();
    const entries = first.mcp?.d1?.parts.map((part) => part.path.split('/').pop() ?? '');
    expect(Object.keys(kept).sort()).toEqual(entries?.filter((name) => name.startsWith('entries-')).sort());
    expect(kept[Object.keys(kept)[0] as string]?.split(' ')).toContain('cuerp'); // cuerpo, stemmed

    // A word new to the site, in an entry of the middle file: in the look-ups, as from nothing.
    const edit = (words: string) =>
      s.write(
        'content/posts/nota-150.es.md',
        md({ title: 'Nota 150', date: '2025-01-11' }, `El cuerpo de la nota 150: ${words}.\n`),
      );
    await edit('zanahorias moradas');
    const edited = await build({ root: s.root, clock: () => JUNE });
    // A file the build took as written before, and did not make, gone by the time it is written (dev:
    // an earlier save's /mcp data, written while this build ran, removed it): made again from its rows.
    const taken = edited.mcp?.files.find((file) => file.named?.kept);
    expect(taken?.path).toMatch(/\/entries-[0-9a-f]{16}\.sql$/);
    const sql = await d1ImportSql(s.root);
    await rm(join(s.root, taken?.path ?? ''));
    await writePrivateFiles(s.root, edited.mcp?.files ?? []);
    expect(await d1ImportSql(s.root)).toBe(sql);
    const carrot = Object.values(await termsOf())
      .flatMap((terms) => terms.split(' '))
      .find((term) => term.startsWith('zanahori'));
    expect(carrot).toBeDefined();
    expect(await fromNothing()).toContain(`, '${carrot}')`);
    // The word gone from the one entry that had it: gone from the look-ups too.
    await edit('modelos de lenguaje');
    await build({ root: s.root, clock: () => JUNE });
    expect(await fromNothing()).not.toContain(`'${carrot}'`);

    // An unchanged file's terms are read from parts.json, not split again: a term written there by
    // hand under another file's name reaches the look-ups (the file is trusted by name, as the SQL
    // files are), and a damaged parts.json is made again from the entries.
    const named = JSON.parse(await readFile(partsFile, 'utf8')) as Record<string, { terms: string }>;
    // A file of entries the edits below leave as it is.
    const [editedFile] = await holding(s.root, Object.keys(named), 'post/nota-150');
    const otherFile = Object.keys(named).find((name) => name !== editedFile) as string;
    const described = named[otherFile] as { terms: string };
    await writeFile(
      partsFile,
      JSON.stringify({ ...named, [otherFile]: { ...described, terms: `${described.terms} escrita` } }),
    );
    await edit('zanahorias moradas');
    await build({ root: s.root, clock: () => JUNE });
    expect(await d1ImportSql(s.root)).toContain(", 'escrita')");
    await writeFile(partsFile, '{');
    await edit('modelos de lenguaje');
    await build({ root: s.root, clock: () => JUNE });
    expect(await fromNothing()).not.toContain("'escrita'");
  });
});

/**
 * A site of `files` and its store, kept between builds as dev keeps it: files written this instant are
 * trusted by their stamps (no racy window), as files saved earlier.
 */
/**
 * Two posts built with their addresses checked against the site generator's pages (`sitePages`), and
 * those pages then written into the output as a generator writes them.
 */
async function siteWithPages() {
  site = await tempSite({
    'content/posts/uno.es.md': md({ title: 'Uno', date: '2025-01-10' }),
    'content/posts/dos.es.md': md({ title: 'Dos', date: '2025-02-01' }),
  });
  const s = site;
  const options: BuildOptions = { clock: () => JUNE, sitePages: 'error' };
  await build({ root: s.root, ...options });
  for (const page of ['blog/index.html', 'blog/uno/index.html', 'blog/dos/index.html'])
    await s.write(`public/${page}`, `<h1>${page}</h1>\n`);
  return { s, options };
}

async function keptSite(files: Record<string, string>) {
  site = await tempSite(files);
  const s = site;
  const store = FragmentStore.open(s.root, { racyMs: 0 });
  const options: BuildOptions = { clock: () => JUNE, store };
  return { s, store, options, path: (p: string) => join(s.root, p) };
}

describe("a new item refused by its version's schema", () => {
  it('is named by its place in the whole body, as a build from nothing names it', async () => {
    // A version joined from its items whose item breaks its schema for one title: a kept store checks
    // only the items it makes again, and names a problem by the item's place among them all.
    const item = (entry: ContentEntry) => ({
      type: entry.type,
      title: entry.canonical.title.includes('roto') ? 7 : entry.canonical.title,
      urls: Object.fromEntries(
        LANGUAGES.flatMap((lang) => {
          const url = entry.translations[lang]?.url;
          return url === undefined ? [] : [[lang, url]];
        }),
      ),
    });
    const broken = {
      ...V2,
      serialize: joinable(
        (model: ContentModel, ctx: VersionContext) => ({
          ...(V2.serialize(model, ctx) as object),
          items: model.entries.map(item),
        }),
        {
          item,
          envelope: (_counts, ctx) => {
            const { items: _items, ...body } = V2.serialize(
              { entries: [] } as unknown as ContentModel,
              ctx,
            ) as {
              items: unknown;
            };
            return { body: { ...body, items: [] }, items: 'items' };
          },
        },
      ),
    };
    const kept = await keptSite(FILES);
    const { s } = kept;
    await s.write(
      'headers.config.ts',
      headers({ v1: { published: '2025-01-15', sunset: '2027-07-02' }, v2: { published: '2026-06-01' } }),
    );
    const options = { ...kept.options, serializers: { ...SERIALIZERS, v2: broken } };
    await sameAsCold(s, options);
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo roto', description: 'Un atajo' }));
    const refused = (more: BuildOptions) =>
      build({ root: s.root, ...options, ...more }).then(
        () => [],
        (error: unknown) => {
          if (!isContentIndexError(error)) throw error;
          return error.problems;
        },
      );
    const problems = await refused({});
    expect(problems.map((p) => p.field)).toEqual(['items.4.title']);
    // A build from nothing names the same item by the same place.
    expect(await refused({ store: FragmentStore.memory(), cache: false })).toEqual(problems);
  });
});

describe('a kept store (as dev keeps it between builds)', () => {
  it('gives the bytes of a build from nothing after it saved, its bodies read from the files it wrote', async () => {
    // The item store leaves the D1 rows of the bodies in its files (stored-bytes.ts) and points them at
    // the file it writes in place of one. Forty posts: post/nota-02 shares its file with post/nota-28.
    const posts: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      const n = String(i).padStart(2, '0');
      posts[`content/posts/nota-${n}.es.md`] = md(
        { title: `Nota ${n}`, date: `2025-01-${String((i % 28) + 1).padStart(2, '0')}` },
        `El cuerpo número ${n}, con acentos: señal, ${'texto '.repeat(i + 1)}fin.\n`,
      );
    }
    site = await tempSite(
      { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
      {
        ...FIXTURE_CONFIG,
        mcp: { backend: 'd1' },
      },
    );
    const s = site;
    const options: BuildOptions = { clock: () => JUNE };
    await build({ root: s.root, ...options });
    expect(shardOf('post/nota-02')).toBe(shardOf('post/nota-28'));
    const store = FragmentStore.open(s.root);
    const kept = (): BuildOptions => ({ ...options, store });
    const edit = (n: string, title: string) =>
      s.write(
        `content/posts/nota-${n}.es.md`,
        md({ title, date: '2025-02-01' }, `Nuevo cuerpo de ${title}.\n`),
      );

    await edit('02', 'Nota dos editada');
    let result = await sameAsCold(s, kept());
    expect(result?.incremental.redoneItems).toEqual(['post/nota-02']);
    // Its file rewritten: post/nota-28's body, still in the old file, is now in the new one.
    await store.save();
    await edit('00', 'Nota cero editada');
    result = await sameAsCold(s, kept());
    expect(result?.incremental.redoneItems).toEqual(['post/nota-00']);
    expect(await d1ImportSql(s.root)).toContain(
      `El cuerpo número 28, con acentos: señal, ${'texto '.repeat(29)}fin.`,
    );
    await store.save();
    await edit('28', 'Nota veintiocho editada');
    result = await sameAsCold(s, kept());
    expect(result?.incremental.redoneItems).toEqual(['post/nota-28']);
    // Made by this process and saved: its entry's JSON is let go, read back from the file when asked.
    expect(store.items.get('post/nota-28')?.entryJson).toBeDefined();
    await store.save();
    expect(store.items.get('post/nota-28')?.entryJson).toBeUndefined();
    await edit('02', 'Nota dos editada otra vez');
    result = await sameAsCold(s, kept());
    expect(result?.incremental.redoneItems).toEqual(['post/nota-02']);
    await store.save();
    // Read back by another store, each entry with its bodies: the embedded backend's share is made
    // from them (nothing recalled: the configuration changed).
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...FIXTURE_CONFIG, mcp: { backend: 'embedded' } })};\n`,
    );
    result = await sameAsCold(s, { ...options, store: FragmentStore.open(s.root) });
    expect(result?.incremental).toMatchObject({ unchanged: false, redone: 0 });
    expect(result?.mcp?.backend).toBe('embedded');
  });

  it("takes the other items' keys from their records when the changed files are named, and moves a file between items as a build from nothing", async () => {
    const { s, options, path } = await keptSite(FILES);
    const first = await build({ root: s.root, ...options });
    // Every item of the files: the five published, the draft and the one dated ahead.
    const items = 7;
    expect(first.incremental.keyed).toBe(items);
    const english = (extra: Record<string, unknown>) =>
      s.write(
        'content/posts/uno.en.md',
        md(
          { title: 'One', description: 'The first', date: '2025-01-10', tags: ['ia'], ...extra },
          'Running language models on a laptop.\n',
        ),
      );
    // A translation joins another item (Hugo's translationKey), then comes back: both items are keyed
    // and redone, the others keep the keys they had.
    await english({ translationKey: 'dos' });
    let result = await sameAsCold(s, { ...options, changed: new Set([path('content/posts/uno.en.md')]) });
    expect(result?.incremental.keyed).toBe(2);
    expect([...(result?.incremental.redoneItems ?? [])].sort()).toEqual(['post/dos', 'post/uno']);
    await english({});
    result = await sameAsCold(s, { ...options, changed: new Set([path('content/posts/uno.en.md')]) });
    expect(result?.incremental.keyed).toBe(2);
    expect([...(result?.incremental.redoneItems ?? [])].sort()).toEqual(['post/dos', 'post/uno']);
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo editado', description: 'Un atajo' }, ''));
    result = await sameAsCold(s, { ...options, changed: new Set([path('content/tips/atajo.es.md')]) });
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/atajo'] });
    // Without the hint, each file's stamp tells the same; a file added reads its folder again, and
    // keys its item alone.
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo', description: 'Un atajo de teclado' }, ''));
    result = await sameAsCold(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/atajo'] });
    await s.write('content/tips/otro.es.md', md({ title: 'Otro', description: 'Otro atajo' }, ''));
    result = await sameAsCold(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/otro'] });
    expect(items).toBeGreaterThan(1);
  });

  it("patches the last build's walks of the site for a named save, and gives what a build from nothing gives", async () => {
    const kept = await keptSite(FILES);
    const { s, path } = kept;
    await build({ root: s.root, ...kept.options });
    expect(kept.store.walk(kept.store.listing as Listing)).toBeDefined();
    // As dev after a restart: the store read from its files, whose columns the saves below patch.
    await kept.store.save();
    const store = FragmentStore.open(s.root, { racyMs: 0 });
    const options = { ...kept.options, store };
    const walked = () => store.walk(store.listing as Listing) !== undefined;
    const save = async (file: string, front: Record<string, unknown>, more: BuildOptions = {}) => {
      await s.write(file, md(front, 'Un cuerpo.\n'));
      const result = await sameAsCold(s, { ...options, ...more, changed: new Set([path(file)]) });
      expect(walked()).toBe(true);
      return result;
    };
    // The first save after the restart walks the whole site, the other items keeping the keys their
    // records were made under (the key base their shards name); the next ones patch that walk.
    let result = await save('content/tips/atajo.es.md', { title: 'Atajo', description: 'Primero' });
    expect(result?.incremental.keyed).toBe(1);
    // An edit; a typo warned of, then fixed; a draft left out, then published again.
    // The store's records of the files are patched where the save is, not copied whole.
    const files = store.files;
    const dos = [...files.keys()].find((path) => path.endsWith('posts/dos.es.md')) as string;
    const was = files.get(dos);
    result = await save('content/posts/dos.es.md', { title: 'Dos editado', date: '2025-02-01' });
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['post/dos'] });
    expect(store.files).toBe(files);
    expect(was?.hash).toEqual(expect.any(String));
    expect(store.files.get(dos)?.hash).not.toBe(was?.hash);
    result = await save('content/posts/dos.es.md', { title: 'Dos', date: '2025-02-01', tgas: ['b'] });
    expect(result?.warnings.map((w) => w.field)).toEqual(['tgas']);
    result = await save('content/posts/dos.es.md', { title: 'Dos', date: '2025-02-01' });
    expect(result?.warnings).toEqual([]);
    await save('content/posts/dos.es.md', { title: 'Dos', date: '2025-02-01', draft: true });
    expect(await titles(s)).not.toContain('Dos');
    await save('content/posts/dos.es.md', { title: 'Dos', date: '2025-02-01' });
    expect(await titles(s)).toContain('Dos');
    // Dated ahead: left out until its day. A save of another file once the day has come publishes it.
    await save('content/posts/dos.es.md', { title: 'Dos', date: '2026-06-20T00:00:00Z' });
    expect(await titles(s)).not.toContain('Dos');
    await save(
      'content/tips/atajo.es.md',
      { title: 'Atajo', description: 'Un atajo' },
      { clock: () => JULY },
    );
    expect(await titles(s, 'v1')).toContain('Dos');
    // A translation that joins another item: the whole site is walked again, as a build from nothing.
    await save(
      'content/posts/uno.en.md',
      { title: 'One', date: '2025-01-10', translationKey: 'dos' },
      { clock: () => JULY },
    );
    await save(
      'content/posts/uno.es.md',
      { title: 'Uno otra vez', date: '2025-01-10' },
      { clock: () => JULY },
    );
    // Written and read back by another store: every file as the patched builds left it, nothing to do.
    await store.save();
    const reopened = FragmentStore.open(s.root, { racyMs: 0 });
    result = await sameAsCold(s, { ...options, clock: () => JULY, store: reopened });
    expect(result?.incremental.unchanged).toBe(true);
  });

  it('puts new pages named to a save into the last listing, and lists the folders again for anything else', async () => {
    const kept = await keptSite(FILES);
    const { s, store, path } = kept;
    await build({ root: s.root, ...kept.options });
    const listing = () => store.listing as Listing;
    /** A save of `files` named as dev's watcher names them: as a build from nothing, and whether listed again. */
    const save = async (files: Record<string, string | null>) => {
      const before = listing();
      for (const [file, text] of Object.entries(files))
        if (text === null) await rm(path(file), { recursive: true, force: true });
        else await s.write(file, text);
      const changed = new Set(Object.keys(files).map(path));
      const result = await sameAsCold(s, { ...kept.options, changed });
      return { result, listed: listing().at !== before.at, same: listing() === before };
    };
    const page = (title: string, more: Record<string, unknown> = {}) =>
      md({ title, date: '2025-04-01', ...more }, `${title}: un cuerpo.\n`);

    // A new post: in its place in the listing, its item alone keyed.
    let saved = await save({ 'content/posts/nueva.es.md': page('Nueva') });
    expect(saved).toMatchObject({ listed: false, same: false });
    expect(saved.result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['post/nueva'] });
    const paths = listing().tasks.map((task) => task.path);
    expect(paths).toContain('content/posts/nueva.es.md');
    expect(paths).toEqual([...paths].sort());
    // Its translation, and a new post beside it in one save.
    saved = await save({
      'content/posts/nueva.en.md': page('New'),
      'content/tips/otro.es.md': page('Otro'),
    });
    expect(saved).toMatchObject({ listed: false });
    expect(saved.result?.incremental.redoneItems).toEqual(['post/nueva', 'tip/otro']);
    // A file no type's glob selects, and a temporary file gone before the save: nothing to list.
    saved = await save({ 'content/posts/notas.txt': 'x', 'content/posts/.nueva.es.md.swp': null });
    expect(saved).toMatchObject({ listed: false, same: true });
    expect(saved.result?.incremental).toMatchObject({ keyed: 0, redoneItems: [] });
    // Renamed: the old name gone (still listed, read as gone), the new one put in.
    await rename(path('content/tips/otro.es.md'), path('content/tips/otra.es.md'));
    saved = await save({ 'content/tips/otro.es.md': null, 'content/tips/otra.es.md': page('Otro') });
    expect(saved).toMatchObject({ listed: false });
    expect(saved.result?.incremental.redoneItems).toEqual(['tip/otra']);
    expect(await titles(s)).toContain('Otro');
    // Listed again: a file in a folder the listing never looked in; a bundle's page, in a new folder
    // and in that one (whose page becomes a resource of it); a list page.
    for (const file of [
      'content/posts/2025/honda.es.md',
      'content/posts/haz/index.es.md',
      'content/posts/2025/index.es.md',
      'content/posts/_index.es.md',
    ]) {
      saved = await save({ [file]: page(file.includes('_index') ? 'Entradas' : 'Honda') });
      expect(saved.listed, file).toBe(true);
    }
    expect(listing().tasks.map((task) => task.path)).not.toContain('content/posts/2025/honda.es.md');
    // A resource of that bundle (a Markdown file beside its index.md) is no page: not put in.
    saved = await save({ 'content/posts/haz/notas.es.md': page('Notas') });
    expect(saved).toMatchObject({ listed: false, same: true });
    expect(listing().tasks.map((task) => task.path)).not.toContain('content/posts/haz/notas.es.md');
    // The bundle's page removed: its resource is a page of its own from then on, as from nothing.
    saved = await save({ 'content/posts/haz/index.es.md': null });
    expect(saved.listed).toBe(true);
    expect(listing().tasks.map((task) => task.path)).toContain('content/posts/haz/notas.es.md');
  });

  it("walks the whole site again when a save has its items' other files read through the parse cache", async () => {
    // 140 posts in three languages: a save of 130 Spanish files (under the 256 read one by one) has
    // 260 translations to read again with them, read through the parse cache.
    const posts: Record<string, string> = {};
    const name = (i: number) => `p${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 140; i++)
      for (const lang of ['es', 'en', 'pt-br'])
        posts[`content/posts/${name(i)}.${lang}.md`] = md({
          title: `${name(i)} ${lang}`,
          date: '2025-01-01',
        });
    const { s, options, path } = await keptSite(posts);
    await build({ root: s.root, ...options });
    const saved = Array.from({ length: 130 }, (_, i) => `content/posts/${name(i)}.es.md`);
    for (const [i, file] of saved.entries())
      await s.write(file, md({ title: `${name(i)} guardado`, date: '2025-01-01' }));
    const result = await sameAsCold(s, { ...options, changed: new Set(saved.map(path)) });
    expect(result?.incremental.redone).toBe(130);
    expect(await titles(s)).toHaveLength(140);
    // The report's "… of 420 files read": each file once, though the saved ones were read twice.
    expect([result?.incremental.read, result?.incremental.files]).toEqual([420, 420]);
  });

  it('looks again at the files named to a save that failed: the next save is refused as a build from nothing is', async () => {
    // Found by incremental-sequences.test.ts. A save with a YAML mistake fails before the build learns
    // anything; the save of another file after it took the broken file from its record, published its
    // old text and said "rebuilt".
    const { s, options, path } = await keptSite(FILES);
    await build({ root: s.root, ...options });
    const save = (file: string, text: string) =>
      s.write(file, text).then(() => sameAsCold(s, { ...options, changed: new Set([path(file)]) }));
    expect(await save('content/posts/uno.es.md', '---\ntitle: [Uno\n---\n')).toBeUndefined();
    expect(
      await save('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' })),
    ).toBeUndefined();
    // Fixed: both files as they are now, and the saves after it named alone again.
    let result = await save('content/posts/uno.es.md', FILES['content/posts/uno.es.md']);
    // post/uno is its text of before again: keyed, and its fragments kept.
    expect(result?.incremental).toMatchObject({ keyed: 2, redoneItems: ['post/dos'] });
    expect(await titles(s)).toContain('Dos editado');
    result = await save(
      'content/tips/atajo.es.md',
      md({ title: 'Atajo editado', description: 'Un atajo' }, ''),
    );
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/atajo'] });
  });

  it('sees a file added before a build that failed when the next save names another file', async () => {
    // A new English file clashes with another (the same translationKey): the build, told nothing, lists
    // it and fails. The save after it named an old file only; it took the listing of the last build that
    // learned, without the new file, and published the site without the clash.
    const { s, options, path } = await keptSite(FILES);
    await build({ root: s.root, ...options });
    await s.write('content/posts/otro.en.md', md({ title: 'Other', translationKey: 'uno' }));
    expect(await sameAsCold(s, options)).toBeUndefined();
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }));
    const named = { ...options, changed: new Set([path('content/posts/dos.es.md')]) };
    expect(await sameAsCold(s, named)).toBeUndefined();
    await rm(path('content/posts/otro.en.md'));
    await sameAsCold(s, options);
    // Found unchanged (nothing run): a save after it is still looked at alone.
    expect((await sameAsCold(s, options))?.incremental.unchanged).toBe(true);
    await s.write('content/posts/dos.es.md', md({ title: 'Dos', date: '2025-02-01' }));
    expect((await sameAsCold(s, named))?.incremental).toMatchObject({ keyed: 1, redoneItems: ['post/dos'] });
  });

  it('looks again at the files it could not trust yet (too recent for their stamps), named or not', async () => {
    site = await tempSite(FILES);
    const s = site;
    // Every file is too recent for its stamp: each is read again until it is older.
    const store = FragmentStore.open(s.root, { racyMs: 60_000 });
    const options: BuildOptions = { clock: () => JUNE, store };
    await build({ root: s.root, ...options });
    await s.write(
      'content/projects/motor.en.md',
      md({ title: 'Engine, unnamed', date: '2025-01-01' }, 'A.\n'),
    );
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo nombrado', description: 'Un atajo' }, ''));
    await sameAsCold(s, { ...options, changed: new Set([join(s.root, 'content/tips/atajo.es.md')]) });
    expect(await readFile(join(s.root, 'public/en/llms.txt'), 'utf8')).toContain('[Engine, unnamed]');
    expect(await titles(s)).toContain('Atajo nombrado');
    expect(store.walk(store.listing as Listing)).toBeDefined();
  });

  it("moves the changed items within the last build's order: one added, one moved by its date, one deleted, as a build from nothing orders them", async () => {
    const { s, store, options, path } = await keptSite(FILES);
    await build({ root: s.root, ...options });
    // The index's order, by each item's canonical address, and the order the store keeps for the next build.
    const published = async () =>
      (await s.readJson<{ content: { url: string }[] }>('api/v1/content.json')).content.map((c) => c.url);
    const ids = () => store.order?.ids ?? [];
    const kept = () => ids().map((id) => store.items.get(id)?.fragments?.facts.url);
    expect(kept()).toEqual(await published());
    // New, dated between two others: placed where its date puts it, not left at the end.
    await s.write('content/posts/medio.es.md', md({ title: 'Medio', date: '2025-01-20' }, 'En medio.\n'));
    await sameAsCold(s, { ...options, changed: new Set([path('content/posts/medio.es.md')]) });
    expect(kept()).toEqual(await published());
    expect(ids().indexOf('post/medio')).toBe(ids().indexOf('post/dos') + 1);
    // Moved: the oldest post dated newest.
    await s.write(
      'content/posts/uno.es.md',
      md({ title: 'Uno', description: 'El primero', date: '2025-05-01', tags: ['ia'] }, 'Los modelos.\n'),
    );
    await sameAsCold(s, { ...options, changed: new Set([path('content/posts/uno.es.md')]) });
    expect(ids()[0]).toBe('post/uno');
    await rm(path('content/posts/dos.es.md'));
    await sameAsCold(s, { ...options, changed: new Set([path('content/posts/dos.es.md')]) });
    expect(kept()).toEqual(await published());
    expect(ids()).not.toContain('post/dos');
  });

  it("keys every item again when a list page's cascade changed, whichever files the watcher named", async () => {
    const cascade = (expiryDate: string) => md({ title: 'Entradas', cascade: { expiryDate } });
    const kept = await keptSite({ ...FILES, 'content/posts/_index.md': cascade('2027-05-01') });
    const { s } = kept;
    // Hugo's rules: an expiryDate passed leaves the page out.
    const options: BuildOptions = { ...kept.options, hugo: HUGO };
    await build({ root: s.root, ...options });
    expect(await titles(s)).toContain('Uno');
    // The posts expire by the cascade; the watcher names the tip edited at the same time.
    await s.write('content/posts/_index.md', cascade('2026-05-01'));
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo editado', description: 'Un atajo' }, ''));
    const result = await sameAsCold(s, {
      ...options,
      changed: new Set([join(s.root, 'content/tips/atajo.es.md')]),
    });
    expect(await titles(s)).toEqual(['Caduca', 'Motor', 'Atajo editado']);
    expect(result?.incremental.keyed).toBe(7);
  });

  it('keys an item again whose file the parse cache read newer than its record (a save in a build that failed)', async () => {
    // Over 256 files to look at, the build reads every file through the parse cache, which learns what
    // a build that then fails read; the store does not. The next build, told only of other files,
    // finds the edited one known by its stamp, but reads its new text through the cache.
    const posts: Record<string, string> = {};
    const post = (n: number, title: string) => md({ title, date: '2025-01-10' }, `Cuerpo ${n}.\n`);
    for (let n = 0; n < 302; n++)
      posts[`content/posts/nota-${String(n).padStart(3, '0')}.es.md`] = post(n, `Nota ${n}`);
    site = await tempSite(posts);
    const s = site;
    const path = (n: number) => join(s.root, `content/posts/nota-${String(n).padStart(3, '0')}.es.md`);
    const cache = ParseCache.open(s.root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, racyMs: 0 });
    const store = FragmentStore.memory({ racyMs: 0 });
    const options: BuildOptions = { clock: () => JUNE, cache, store };
    await build({ root: s.root, ...options });
    await writeFile(path(0), post(0, 'Nota cero editada'));
    await writeFile(path(1), '---\ntitle: [sin cerrar\n---\n');
    await expect(build({ root: s.root, ...options, changed: new Set([path(0), path(1)]) })).rejects.toThrow();
    await writeFile(path(1), post(1, 'Nota 1'));
    const later = new Date(Date.now() + 60_000);
    const others = Array.from({ length: 300 }, (_, i) => path(i + 2));
    for (const other of others) await utimes(other, later, later);
    const result = await sameAsCold(s, { ...options, changed: new Set([path(1), ...others]) });
    expect(await titles(s)).toContain('Nota cero editada');
    expect(result?.incremental.redoneItems).toContain('post/nota-000');
  });

  it('reads every record when warmed, so that a build after it reads none (dev, before its first save)', async () => {
    site = await tempSite({
      'content/posts/uno.es.md': md({ title: 'Uno', date: '2025-01-10' }),
      'content/posts/dos.es.md': md({ title: 'Dos', date: '2025-01-11' }),
    });
    const s = site;
    const options: BuildOptions = { clock: () => JUNE };
    await build({ root: s.root, ...options });
    const store = FragmentStore.open(s.root);
    store.warm();
    // The store's files gone after the warm-up: what a build asks for next is what it read then.
    await rename(join(s.root, '.content-index/cache/items'), join(s.root, 'items-away'));
    expect([...store.items.keys()].sort()).toEqual(['post/dos', 'post/uno']);
    expect([...store.files.keys()].map((path) => path.split('/').pop()).sort()).toEqual([
      'dos.es.md',
      'uno.es.md',
    ]);
    await rename(join(s.root, 'items-away'), join(s.root, '.content-index/cache/items'));
    await s.write('content/posts/uno.es.md', md({ title: 'Uno editado', date: '2025-01-10' }));
    const result = await sameAsCold(s, { ...options, store });
    expect(result?.incremental.redoneItems).toEqual(['post/uno']);
  });

  it('reads an entry back by what its shard holds now, whichever record wrote it', async () => {
    // post/uno is kept whole first (a build that made no D1 rows), then with rows; a change that leaves
    // its entry as it was (another description of the site) makes a new record with its fragments,
    // written without its bodies. The old record's entry, asked for by those fragments, is then that
    // text: its bodies come from the rows.
    const config = { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } };
    let mate = 0;
    while (shardOf(`post/otra-${mate}`) !== shardOf('post/uno')) mate++;
    const other = `content/posts/otra-${mate}.es.md`;
    site = await tempSite(
      {
        'content/posts/uno.es.md': md({ title: 'Uno', date: '2025-01-10' }, 'Texto zqxuno del cuerpo.\n'),
        [other]: md({ title: 'Otra', date: '2025-01-11' }, 'Otro cuerpo.\n'),
        'wrangler.toml': `name = "t"\n${D1_WRANGLER}`,
      },
      config,
    );
    const s = site;
    const options: BuildOptions = { clock: () => JUNE };
    await build({ root: s.root, ...options, deployment: false });
    await s.write(other, md({ title: 'Otra editada', date: '2025-01-11' }, 'Otro cuerpo.\n'));
    await build({ root: s.root, ...options });
    const store = FragmentStore.open(s.root);
    const described = { ...config, description: 'Otra descripción' };
    await s.write('site.config.ts', `export default ${JSON.stringify(described)};\n`);
    let result = await sameAsCold(s, { ...options, store });
    expect(result?.incremental).toMatchObject({ assembled: 2, redone: 0 });
    await store.save();
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...described, mcp: { backend: 'embedded' } })};\n`,
    );
    result = await sameAsCold(s, { ...options, store });
    expect(result?.mcp?.backend).toBe('embedded');
    expect(Object.values(await privateFiles(s.root)).join('')).toContain('Texto zqxuno del cuerpo.');
  });

  it("lets go of each body once its item's MCP share is made (D1 rows, embedded data), and reads it back from its file for an item made again", async () => {
    const config = { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } };
    site = await tempSite(
      {
        'content/posts/uno.es.md': md({ title: 'Uno', date: '2025-01-10' }, 'El zqxuno dice hola.\n'),
        'content/posts/uno.en.md': md({ title: 'One', date: '2025-01-10' }, 'The zqxone says hello.\n'),
        'content/posts/dos.es.md': md({ title: 'Dos', date: '2025-01-11' }, 'El zqxdos, señal.\n'),
        'wrangler.toml': `name = "t"\n${D1_WRANGLER}`,
      },
      config,
    );
    const s = site;
    // Kept as dev keeps them: the parse cache and the store in memory from one build to the next.
    const cache = ParseCache.open(s.root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, bodies: true, racyMs: 0 });
    const options: BuildOptions = {
      clock: () => JUNE,
      cache,
      store: FragmentStore.open(s.root, { racyMs: 0 }),
    };
    expect((await sameAsCold(s, options))?.mcp?.backend).toBe('d1');
    // Every file was parsed with its body; none is held once the D1 rows are made.
    const paths = ['content/posts/uno.es.md', 'content/posts/uno.en.md', 'content/posts/dos.es.md'];
    const { hits } = cache.lookup(paths.map((path) => ({ path, absolute: join(s.root, path) })));
    for (const [i, hit] of hits.entries()) {
      expect(hit, paths[i]).toBeDefined();
      expect(hit?.outcome.body, paths[i]).toBeUndefined();
      expect(pendingBody(hit?.outcome as ParsedSource), paths[i]).toMatchObject({ hash: hit?.hash });
    }
    // The English file edited: its item is made again, the Spanish body put back from the store's rows.
    await s.write(
      'content/posts/uno.en.md',
      md({ title: 'One, edited', date: '2025-01-10' }, 'The zqxone again.\n'),
    );
    let result = await sameAsCold(s, options);
    expect(result?.incremental.redoneItems).toEqual(['post/uno']);
    expect(await d1ImportSql(s.root)).toContain('El zqxuno dice hola.');
    // A store that knows nothing (every item made again): the bodies the cache let go are read back
    // from their files, all at once, as a build from nothing gives them.
    result = await sameAsCold(s, { ...options, store: FragmentStore.memory() });
    expect(result?.incremental).toMatchObject({ redone: 2, bodies: 2 });
    expect(await d1ImportSql(s.root)).toContain('El zqxdos, señal.');
    // Served embedded, from nothing: each body is let go once the embedded data is made.
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...config, mcp: { backend: 'embedded' } })};\n`,
    );
    const fresh = new ParseCache(undefined, { bodies: true, racyMs: 0 });
    result = await sameAsCold(s, { clock: () => JUNE, cache: fresh, store: FragmentStore.memory() });
    expect(result?.mcp?.backend).toBe('embedded');
    expect(Object.values(await privateFiles(s.root)).join('')).toContain('El zqxdos, señal.');
    const embedded = fresh.lookup(paths.map((path) => ({ path, absolute: join(s.root, path) })));
    expect(embedded.hits.map((hit) => hit?.outcome.body)).toEqual([undefined, undefined, undefined]);
  });

  it("keeps an entry's bodies once, in its D1 rows, and puts them back where the entry is read again", async () => {
    // Quotes (doubled in SQL), accents, and English canonical: not the first of the languages.
    const config = { ...FIXTURE_CONFIG, canonicalLanguage: 'en', mcp: { backend: 'd1' } };
    site = await tempSite(
      {
        'content/posts/uno.es.md': md(
          { title: 'Uno', date: '2025-01-10' },
          "L'zqxuno, dice 'hola' ''dos''.\n",
        ),
        'content/posts/uno.en.md': md({ title: 'One', date: '2025-01-10' }, "It's zqxone, yes.\n"),
        'content/posts/solo.en.md': md({ title: 'Solo', date: '2025-01-11' }, 'Only zqxsolo, señal.\n'),
        'content/posts/solo.pt-br.md': md({ title: 'Só', date: '2025-01-11' }, 'Só zqxso, ação.\n'),
        'wrangler.toml': `name = "t"\n${D1_WRANGLER}`,
      },
      config,
    );
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    expect((await sameAsCold(s, options))?.mcp?.backend).toBe('d1');
    // Each body is once in the store (its D1 row), not again in the entry, nor in its canonical copy
    // (the comma: only a body's text has it, not the search terms).
    const stored = async () => {
      const dir = join(s.root, '.content-index/cache/items');
      const names = (await readdir(dir)).filter((name) => name !== 'index.bin');
      return (await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')))).join('');
    };
    for (const word of ['zqxuno,', 'zqxone,', 'zqxsolo,', 'zqxso,'])
      expect((await stored()).split(word).length - 1, word).toBe(1);
    // Another backend: the kept fragments make their embedded share from the entries read back, bodies
    // and all (the module carries them), as a build from nothing does; and back to D1.
    const configure = (backend: string) =>
      s.write('site.config.ts', `export default ${JSON.stringify({ ...config, mcp: { backend } })};\n`);
    await configure('embedded');
    let result = await sameAsCold(s, options);
    expect(result?.incremental.redone).toBe(0);
    expect(result?.mcp?.backend).toBe('embedded');
    expect(Object.values(await privateFiles(s.root)).join('')).toContain("L'zqxuno, dice 'hola' ''dos''.");
    await configure('d1');
    result = await sameAsCold(s, options);
    expect(result?.incremental.redone).toBe(0);
    expect(result?.model.entries.find((e) => e.id === 'post/solo')?.canonical.body).toBe(
      'Only zqxsolo, señal.',
    );
  });
});

describe('a build in a process of its own (its store read from its files)', () => {
  /** Each build with the store opened from the project's files, as a new process opens it, then saved. */
  const ownProcess = async (s: TempSite, options: BuildOptions) => {
    const store = FragmentStore.open(s.root, { racyMs: 0 });
    try {
      const result = await sameAsCold(s, { ...options, store });
      if (result) await store.save();
      return result;
    } finally {
      store.close();
    }
  };

  /** ownProcess, with the content files the main thread stat'ed meanwhile (`statSync`), in order. */
  const ownProcessStats = async (s: TempSite, options: BuildOptions) => {
    // The module object the build's `import { statSync }` is synced to (its type says read-only).
    const nodeFs = createRequire(import.meta.url)('node:fs') as { statSync: typeof fs.statSync };
    const { statSync } = nodeFs;
    const content = join(s.root, 'content');
    const stated: string[] = [];
    nodeFs.statSync = ((path: fs.PathLike, ...rest: never[]) => {
      if (String(path).startsWith(content) && String(path).endsWith('.md')) stated.push(String(path));
      return (statSync as (...args: unknown[]) => unknown)(path, ...rest);
    }) as typeof statSync;
    syncBuiltinESMExports();
    try {
      return { result: await ownProcess(s, options), stated };
    } finally {
      nodeFs.statSync = statSync;
      syncBuiltinESMExports();
    }
  };

  it('reads again only the folder a file came and went in, and finds nothing changed', async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    await ownProcess(s, options);
    // The module object the build's `import { readdir, readdirSync }` are synced to.
    const nodeFs = createRequire(import.meta.url)('node:fs') as typeof fs;
    const { readdir, readdirSync } = nodeFs;
    const read: string[] = [];
    const content = join(s.root, 'content');
    const counted = <F extends (...args: never[]) => unknown>(f: F) =>
      ((path: fs.PathLike, ...rest: never[]) => {
        if (String(path).startsWith(content)) read.push(String(path).slice(s.root.length + 1));
        return (f as unknown as (...args: unknown[]) => unknown)(path, ...rest);
      }) as unknown as F;
    // An editor's temporary file, gone again: the folder's stamp changed, its pages did not.
    await s.write('content/tips/.atajo.es.md.swp', 'x');
    await rm(join(s.root, 'content/tips/.atajo.es.md.swp'));
    await s.write('content/tips/notas.txt', 'no es una página');
    nodeFs.readdir = counted(readdir);
    nodeFs.readdirSync = counted(readdirSync);
    syncBuiltinESMExports();
    let result: Awaited<ReturnType<typeof build>>;
    try {
      const store = FragmentStore.open(s.root, { racyMs: 0 });
      result = await build({ root: s.root, ...options, store });
      await store.save();
      store.close();
    } finally {
      nodeFs.readdir = readdir;
      nodeFs.readdirSync = readdirSync;
      syncBuiltinESMExports();
    }
    expect(result.incremental.unchanged).toBe(true);
    expect(read).toEqual(['content/tips']);
    // And a page added there is built, as a build from nothing builds it.
    await s.write('content/tips/nuevo.es.md', md({ title: 'Nuevo', date: '2025-05-05' }, 'Nuevo.\n'));
    expect((await ownProcess(s, options))?.incremental).toMatchObject({
      keyed: 1,
      redoneItems: ['tip/nuevo'],
    });
    // A translation removed, its folder read again: no longer listed, its item is made again without it.
    await rm(join(s.root, 'content/projects/motor.pt-br.md'));
    expect((await ownProcess(s, options))?.incremental.redoneItems).toEqual(['project/motor']);
  });

  it('stamps each file of a build from nothing as its read opens it, none stat-ed first, and knows them by those stamps', async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    const { result, stated } = await ownProcessStats(s, options);
    expect(result?.incremental.read).toBe(result?.incremental.files);
    expect(result?.incremental.files).toBeGreaterThan(5);
    expect(stated).toEqual([]);
    // The stamps the reads took are the files' own: the next build reads none, and finds an edit by them.
    expect((await ownProcess(s, options))?.incremental).toMatchObject({ unchanged: true, read: 0 });
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }, 'Otro.\n'));
    expect((await ownProcess(s, options))?.incremental).toMatchObject({
      keyed: 1,
      redoneItems: ['post/dos'],
    });
  });

  it('takes the stamps of the files it knows on a worker thread on a large site, and finds an edit by them', async () => {
    site = await tempSite(FILES);
    const s = site;
    // Every site counts as large here: the stamps go to the worker from one file on.
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO, parallelThreshold: 1 };
    await ownProcess(s, options);
    // The file listed first: the check for an unchanged build stats it, finds it changed, and stops.
    const opened = FragmentStore.open(s.root, { racyMs: 0 });
    const first = (opened.listing as Listing).tasks[0];
    opened.close();
    if (!first) throw new Error('nothing listed');
    await s.write(first.path, md({ title: 'Primero editado', date: '2025-01-05' }, 'Otro texto.\n'));
    const { result, stated } = await ownProcessStats(s, options);
    // The main thread stat'ed the edited file alone; the worker took every other file's stamp.
    expect(stated).toEqual([first.absolute]);
    expect(result?.incremental).toMatchObject({ unchanged: false, read: 1, keyed: 1 });
    expect(result?.incremental.files).toBeGreaterThan(5);
  });

  it('keys only the items of the files whose stamps changed, and moves them in the order it kept, as a build from nothing', async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    // Every item of the files: the five published, the draft and the one dated ahead.
    let result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 7, placed: 5 });
    // Edited in place (no folder changed): its item alone is keyed, the others keep their records' keys,
    // and it alone is placed in the order the store kept.
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }, 'Otro.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, placed: 1, redoneItems: ['post/dos'] });
    // Moved by its date from last to first: placed in the kept order where a sort puts it.
    await s.write('content/posts/uno.es.md', md({ title: 'Uno', date: '2025-06-01' }, 'Primero ahora.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, placed: 1, redoneItems: ['post/uno'] });
    expect((await titles(s))[0]).toBe('Uno');
    // A translation joins another item (translationKey): both keyed, as the files' items say.
    await s.write(
      'content/posts/uno.en.md',
      md({ title: 'One', date: '2025-01-10', translationKey: 'dos' }, 'Running language models.\n'),
    );
    result = await ownProcess(s, options);
    expect(result?.incremental.keyed).toBe(2);
    // A file added: only its folder read again (the listing's `at` moves, its other folders' stamps
    // stay), its item alone keyed; removed again, no item keyed, and no longer listed. A folder added
    // or removed: every folder listed again, every item keyed.
    const listed = async () => {
      const store = FragmentStore.open(s.root, { racyMs: 0 });
      const folders = Object.fromEntries(
        (store.listing as Listing).folders.map(([p, st]) => [p, st?.ctimeMs]),
      );
      store.close();
      return folders;
    };
    const before = await listed();
    await s.write('content/tips/nuevo.es.md', md({ title: 'Nuevo', date: '2025-05-05' }, 'Nuevo.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/nuevo'] });
    const after = await listed();
    expect(Object.keys(after).filter((folder) => after[folder] !== before[folder])).toEqual([
      join(s.root, 'content/tips'),
    ]);
    await rm(join(s.root, 'content/tips/nuevo.es.md'));
    result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 0, redoneItems: [] });
    const kept = FragmentStore.open(s.root, { racyMs: 0 });
    expect((kept.listing as Listing).tasks.map((task) => task.path)).not.toContain(
      'content/tips/nuevo.es.md',
    );
    kept.close();
    await s.write('content/tips/nuevo.es.md', md({ title: 'Nuevo', date: '2025-05-05' }, 'Nuevo.\n'));
    await s.write('content/tips/2025/otro.es.md', md({ title: 'Otro', date: '2025-05-06' }, 'Otro.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental.keyed).toBe(9);
    await rm(join(s.root, 'content/tips/2025'), { recursive: true });
    result = await ownProcess(s, options);
    expect(result?.incremental.keyed).toBe(8);
    // A bundle's page removed: the file beside it is a page of its own from then on, as from nothing.
    await s.write('content/tips/haz/index.es.md', md({ title: 'Haz', date: '2025-05-07' }, 'Haz.\n'));
    await s.write('content/tips/haz/notas.es.md', md({ title: 'Notas', date: '2025-05-08' }, 'Notas.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental.redoneItems).toEqual(['tip/haz']);
    await rm(join(s.root, 'content/tips/haz/index.es.md'));
    result = await ownProcess(s, options);
    expect(result?.incremental.redoneItems).toEqual(['tip/notas']);
    await rm(join(s.root, 'content/tips/haz'), { recursive: true });
    await ownProcess(s, options);
    // The kept order with its last two items swapped, where moving the first item never looks: not
    // taken as the order (each pair is checked), a sort is.
    const order = join(s.root, STORE_DIR, 'order.txt');
    const ids = (await readFile(order, 'utf8')).split('\n');
    expect(ids).toHaveLength(6);
    expect(ids[0]).toBe('post/uno');
    await writeFile(order, [...ids.slice(0, 4), ids[5], ids[4]].join('\n'));
    await s.write('content/posts/uno.es.md', md({ title: 'Uno otra vez', date: '2025-06-01' }, 'Primero.\n'));
    result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, placed: 6, redoneItems: ['post/uno'] });
  });

  it("looks once at each file's stamp when the check for an unchanged build found one changed, wherever it lies", async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    await ownProcess(s, options);
    // The last file of the listing edited: the check for an unchanged build looks at every file before
    // it finds the change, and the build that follows takes those stamps, not every one again.
    const content = join(s.root, 'content');
    const looks = new Map<string, number>();
    // The module object the build's `import { statSync }` is synced to (syncBuiltinESMExports).
    const nodeFs = createRequire(import.meta.url)('node:fs') as { statSync: typeof fs.statSync };
    const statSync = nodeFs.statSync;
    const counting = ((path: Parameters<typeof fs.statSync>[0], ...rest: unknown[]) => {
      const at = String(path);
      if (at.startsWith(content) && at.endsWith('.md')) looks.set(at, (looks.get(at) ?? 0) + 1);
      return (statSync as (...args: unknown[]) => unknown)(path, ...rest);
    }) as typeof fs.statSync;
    await s.write(
      'content/tips/caduca.es.md',
      md({ title: 'Caduca otra', date: '2025-01-02', expiryDate: '2026-06-15' }),
    );
    const store = FragmentStore.open(s.root, { racyMs: 0 });
    nodeFs.statSync = counting;
    syncBuiltinESMExports();
    try {
      const result = await build({ root: s.root, ...options, store });
      expect(result.incremental).toMatchObject({ unchanged: false, redoneItems: ['tip/caduca'] });
      await store.save();
    } finally {
      nodeFs.statSync = statSync;
      syncBuiltinESMExports();
      store.close();
    }
    expect(looks.size).toBe(Object.keys(FILES).length);
    expect([...new Set(looks.values())]).toEqual([1]);
    // What it published is what a build from nothing publishes.
    expect((await ownProcess(s, options))?.incremental.unchanged).toBe(true);
  });

  // The index is never written ahead of the records of its files: a build that reads it back takes an
  // unchanged file's item's key from its record, and would publish a record older than the file.
  const edited = (s: TempSite, title: string) =>
    s.write('content/posts/dos.es.md', md({ title, date: '2025-02-01' }, 'Dos.\n'));
  /** A store kept open, as dev keeps it: built and saved, then built again after an edit, not saved. */
  const editedInKeptStore = async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    const store = FragmentStore.open(s.root, { racyMs: 0, writePieces: storeWrites });
    await build({ root: s.root, ...options, store });
    await store.save();
    await edited(s, 'Dos editado');
    await build({ root: s.root, ...options, store });
    return { s, options, store };
  };

  it('writes again a shard it could not write (a full disk) before the index that names its files', async () => {
    const { s, options, store } = await editedInKeptStore();
    try {
      writes.fail = /[0-9a-f]{2}\.items\./;
      await expect(store.save()).rejects.toThrow('no space left');
      writes.fail = undefined;
      await store.save();
    } finally {
      store.close();
    }
    // Another item edited: the build runs, and the first item's key is taken from its record.
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo editado' }, ''));
    const result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['tip/atajo'] });
    expect(await titles(s)).toContain('Dos editado');
  });

  it('writes no index while a later build learned during its save, and the process ends', async () => {
    const { s, options, store } = await editedInKeptStore();
    try {
      // The save held at its first shard while the next edit's build learns.
      const held = holdWrite(/[0-9a-f]{2}\.items\./);
      const saving = store.save();
      await held.reached;
      await edited(s, 'Dos otra vez');
      await build({ root: s.root, ...options, store });
      held.release();
      await saving;
    } finally {
      store.close();
    }
    const result = await ownProcess(s, options);
    expect(result?.incremental.unchanged).toBe(false);
    expect(await titles(s)).toContain('Dos otra vez');
  });

  it('takes no stamp from the check of an earlier build: a build recalled, then one whose check stops before the files', async () => {
    const { s, options } = await keptSite(FILES);
    await build({ root: s.root, ...options });
    expect((await build({ root: s.root, ...options })).incremental.unchanged).toBe(true);
    // A file edited in place, and a file of the output gone: the check stops at the outputs.
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }, 'Dos.\n'));
    await rm(join(s.out, 'llms.txt'));
    await sameAsCold(s, options);
    expect(await titles(s)).toContain('Dos editado');
  });

  it('keys by the base its shards share, a shard left empty by a deleted item aside', async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    await ownProcess(s, options);
    // An item of one file, alone in its shard: deleted, its shard is written empty, under this base.
    const ids = [
      'post/uno',
      'post/dos',
      'post/borrador',
      'post/manana',
      'project/motor',
      'tip/atajo',
      'tip/caduca',
    ];
    const single = ['tip/atajo', 'tip/caduca', 'post/borrador', 'post/manana'];
    const alone = single.find((id) => ids.filter((other) => shardOf(other) === shardOf(id)).length === 1);
    expect(alone).toBeDefined();
    const file = {
      'tip/atajo': 'tips/atajo',
      'tip/caduca': 'tips/caduca',
      'post/borrador': 'posts/borrador',
      'post/manana': 'posts/manana',
    }[alone as string];
    await rm(join(s.root, `content/${file}.es.md`));
    await ownProcess(s, options);
    // The configuration changed: every item keyed under another base, and every shard holding one
    // written again; the empty shard keeps the base it was written under.
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...FIXTURE_CONFIG, name: 'Otro' })};\n`,
    );
    await ownProcess(s, options);
    await s.write('content/posts/dos.es.md', md({ title: 'Dos editado', date: '2025-02-01' }, 'Dos.\n'));
    const result = await ownProcess(s, options);
    expect(result?.incremental).toMatchObject({ keyed: 1, redoneItems: ['post/dos'] });
  });

  it('takes no key from a shard another process wrote after the save its index is of (dev and a build at once)', async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    await ownProcess(s, options);
    // Two processes with the store open: dev (its store kept) and a build in another terminal.
    const dev = FragmentStore.open(s.root, { racyMs: 0, writePieces: storeWrites });
    const other = FragmentStore.open(s.root, { racyMs: 0, writePieces: storeWrites });
    try {
      await edited(s, 'Dos en dev');
      await build({ root: s.root, ...options, store: dev });
      await edited(s, 'Dos en la terminal');
      await build({ root: s.root, ...options, store: other });
      // The build's save writes its shards, then waits at its index while dev's save writes the same
      // shard (dev's older record) and an index; then the build's index lands last.
      const held = holdWrite(/index\.bin\./);
      const saving = other.save();
      await held.reached;
      await dev.save();
      held.release();
      await saving;
    } finally {
      dev.close();
      other.close();
    }
    // Another item edited, so that the next process builds: the first item's record is dev's, older
    // than the file the index names; its key is not taken from it.
    await s.write('content/tips/atajo.es.md', md({ title: 'Atajo editado' }, ''));
    const result = await ownProcess(s, options);
    expect(result?.incremental.keyed).toBe(7);
    expect(await titles(s)).toContain('Dos en la terminal');
  });

  it('is not taken for unchanged after a build that learned its files and failed (dev keeps what it learned)', async () => {
    const { s, options } = await siteWithPages();
    const store = FragmentStore.open(s.root, { racyMs: 0 });
    try {
      expect((await build({ root: s.root, ...options, store })).sitePages).toMatchObject({ checked: 3 });
      // A post whose page the generator has not written: the build fails after its items (a dead
      // address), and dev saves the store as it does when idle.
      await s.write('content/posts/tres.es.md', md({ title: 'Tres', date: '2025-03-01' }));
      const failed = await build({ root: s.root, ...options, store }).catch((error: unknown) => error);
      expect(isContentIndexError(failed)).toBe(true);
      const again = await build({ root: s.root, ...options, store }).catch((error: unknown) => error);
      expect(isContentIndexError(again)).toBe(true);
      await store.save();
    } finally {
      store.close();
    }
    // The next process fails as well: the last build that wrote is not its result.
    const failed = await build({ root: s.root, ...options }).catch((error: unknown) => error);
    expect(isContentIndexError(failed) && failed.problems.map((p) => p.code)).toEqual(['address_dead']);
  });

  it('takes no key from records another build wrote than the one its index is of (a save cut short)', async () => {
    const config = { ...FIXTURE_CONFIG };
    site = await tempSite(FILES, config);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    const store = join(s.root, STORE_DIR);
    const copyOf = async () =>
      Object.fromEntries(
        await Promise.all(
          (await readdir(store)).map(async (name) => [name, await readFile(join(store, name))]),
        ),
      ) as Record<string, Buffer>;
    await ownProcess(s, options);
    const before = await copyOf();
    // Another site address: every item's record is made again, and every shard written.
    await s.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...config, site: 'https://otro.example/' })};\n`,
    );
    await ownProcess(s, options);
    // Cut short: the index of the build before, with its shards (all of them, then half) or none.
    const shards = Object.keys(before).filter((name) => name !== 'index.bin' && name !== 'order.txt');
    expect(shards.length).toBeGreaterThan(1);
    const after = await copyOf();
    for (const kept of [[], shards.slice(0, Math.ceil(shards.length / 2))]) {
      for (const [name, bytes] of Object.entries(after)) await writeFile(join(store, name), bytes);
      for (const name of ['index.bin', ...kept]) await writeFile(join(store, name), before[name] as Buffer);
      await s.write('site.config.ts', `export default ${JSON.stringify(config)};\n`);
      await rm(s.out, { recursive: true, force: true });
      const result = await ownProcess(s, options);
      expect(result?.incremental.keyed).toBe(7);
      expect(
        (await s.readJson<{ content: { url: string }[] }>('api/v1/content.json')).content[0]?.url,
      ).toMatch(/^https:\/\/example\.com\//);
    }
  });
});

describe("the items' addresses", () => {
  it("are checked again when an edit moves one onto another's, and fail as a build from nothing does", async () => {
    site = await tempSite(FILES);
    const s = site;
    const options: BuildOptions = { clock: () => JUNE, hugo: HUGO };
    await sameAsCold(s, options);
    // A title edited: no address moves, and the others are not looked at again.
    await s.write('content/posts/dos.es.md', md({ title: 'Dos bis', date: '2025-02-01', tags: ['rust'] }));
    expect((await sameAsCold(s, options))?.incremental.redone).toBe(1);
    // The edited item takes the address of an item this build keeps as it was: refused.
    await s.write('content/posts/dos.es.md', md({ title: 'Dos', date: '2025-02-01', slug: 'uno' }));
    const failed = await build({ root: s.root, ...options }).catch((error: unknown) => error);
    expect(isContentIndexError(failed) && failed.problems.map((p) => [p.code, p.file])).toEqual([
      ['address_conflict', expect.stringMatching(/^content\/posts\/(dos|uno)\.es\.md$/)],
    ]);
    await sameAsCold(s, options);
    // Moved away again: built.
    await s.write('content/posts/dos.es.md', md({ title: 'Dos', date: '2025-02-01', slug: 'dos-bis' }));
    expect((await sameAsCold(s, options))?.incremental.redone).toBe(1);
  });
});

describe('a build checked against the site generator’s pages', () => {
  it('is taken for unchanged only while those pages are as they were', async () => {
    const { s, options } = await siteWithPages();
    let result = await build({ root: s.root, ...options });
    expect(result.sitePages).toMatchObject({ ran: true, checked: 3 });
    result = await build({ root: s.root, ...options });
    expect(result.incremental.unchanged).toBe(true);
    expect(result.sitePages).toMatchObject({ ran: true, checked: 3 });
    // A generator run that no longer writes a page: the index's address to it is dead, and said.
    await rm(join(s.out, 'blog/dos/index.html'));
    const failed = await build({ root: s.root, ...options }).catch((error: unknown) => error);
    expect(isContentIndexError(failed) && failed.problems.map((p) => [p.code, p.file])).toEqual([
      ['address_dead', 'content/posts/dos.es.md'],
    ]);
  });
});

describe("the store's index", () => {
  it('gives back every file of the listing with its stamp, hash and item, whatever its path holds', async () => {
    // Written as a line of JSON, number columns as floats, paths and hashes as NUL-separated text:
    // a path with a line break, an emoji, a page bundle, a file without a language, a translationKey.
    site = await tempSite({}, FIXTURE_CONFIG);
    const root = site.root;
    const task = (path: string, location: Location) => ({ path, absolute: join(root, path), location });
    const listing: Listing = {
      key: 'clave',
      tasks: [
        task('content/posts/línea\nrota.es.md', {
          type: 'post',
          name: 'línea\nrota',
          dir: 'posts',
          lang: 'es',
        }),
        task('content/posts/🚀/index.md', { type: 'post', name: '🚀', dir: 'posts', bundle: true }),
        task('content/tips/sin-idioma.md', { type: 'tip', name: 'sin-idioma', dir: '' }),
        task('content/projects/motor.pt-br.md', {
          type: 'project',
          name: 'motor',
          dir: 'projects',
          lang: 'pt-br',
        }),
      ],
      branches: [],
      problems: [],
      warnings: [],
      links: [],
      folders: [['content', null]],
      at: 1_700_000_000_123.5,
    };
    const record = (n: number, item: string, racy = false): FileRecord => ({
      stamp: {
        size: n,
        mtimeMs: 1_700_000_000_000.25 + n,
        ctimeMs: 1_700_000_000_500.75 + n,
        ino: 2 ** 40 + n,
      },
      racy,
      hash: `hash-${n}`,
      item,
    });
    const files = new Map<string, FileRecord>([
      ['content/posts/línea\nrota.es.md', record(1, 'post/línea\nrota')],
      ['content/posts/🚀/index.md', record(2, 'post/🚀', true)],
      // The third file has no record (the last build could not read it).
      ['content/projects/motor.pt-br.md', record(4, 'post/clave-de-traducción')],
    ]);
    // The index as JSON that versions before wrote: removed once the new one is written.
    await mkdir(join(root, STORE_DIR), { recursive: true });
    await writeFile(join(root, STORE_DIR, 'index.json'), '{"format":7}');
    const store = FragmentStore.open(root);
    store.learn(listing, files, new Map());
    await store.save();
    expect((await readdir(join(root, STORE_DIR))).sort()).toEqual(['index.bin']);

    const back = FragmentStore.open(root);
    expect(back.listing).toEqual(listing);
    expect(back.files).toEqual(files);
    // Columns patched where a record changed, the listing as it was: the same as written whole.
    const edited = new Map(back.files);
    edited.set('content/posts/🚀/index.md', record(7, 'post/🚀'));
    back.learn(back.listing as Listing, edited, new Map());
    await back.save();
    const again = FragmentStore.open(root);
    expect(again.listing).toEqual(listing);
    expect(again.files).toEqual(edited);
  });
});
