import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { build, check, publish } from '../../build/index.ts';
import { FragmentStore, STORE_DIR } from '../../build/stages/fragment-store.ts';
import { D1_DIR } from '../../build/stages/mcp-output.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { connectStdio } from '../helpers/mcp.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { privateFiles, sameAsCold } from '../helpers/same-as-cold.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);

// What a build keeps to go faster (the item store, the compiled configuration) is only ever a shortcut:
// bytes of it that are not what the build wrote (a disk's fault, a hand's edit, a tool that rewrote them)
// are never published. Each file is changed in place, keeping its length and its form, so that only a
// seal or a digest can tell; each build after that publishes what a build from nothing publishes, byte
// for byte (sameAsCold), the D1 import included. (The parse cache's own: parse-cache-integrity.test.ts.)

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

async function d1Site(): Promise<TempSite> {
  const files: Record<string, string> = { 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` };
  for (let i = 0; i < 12; i++) {
    files[`content/posts/nota-${i}.es.md`] = md(
      { title: `Nota ${i}` },
      `Cuerpo ${i}: ${'palabra '.repeat(20)}\n`,
    );
    files[`content/posts/nota-${i}.en.md`] = md({ title: `Note ${i}` }, `Body ${i}: ${'word '.repeat(20)}\n`);
  }
  return tempSite(files, { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } });
}

type Section = 'items' | 'rows' | 'entries';

/**
 * Changes, in every shard of the store (or the first `shards`), the last `from` of a section into `to`
 * (as long): the file's length, its header, its form and its modification time stay what they were
 * (its change time cannot). In the rows section, the last is in a body's row (an item's rows end with
 * its bodies). Returns how many shards it changed.
 */
function damage(root: string, section: Section, from: string, to: string, shards = 32): number {
  expect(Buffer.byteLength(to)).toBe(Buffer.byteLength(from));
  let changed = 0;
  for (let shard = 0; shard < 32 && changed < shards; shard++) {
    const file = join(root, STORE_DIR, `${shard.toString(16).padStart(2, '0')}.items`);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    const newline = bytes.indexOf(10);
    const [items = 0, rows = 0, entries = 0] = bytes.toString('latin1', 0, newline).split(' ').map(Number);
    const start = { items: newline + 1, rows: newline + 1 + items, entries: newline + 1 + items + rows }[
      section
    ];
    const end = start + { items, rows, entries }[section];
    const at = bytes.lastIndexOf(from, end - Buffer.byteLength(from));
    if (at < start) continue;
    const { atime, mtime } = statSync(file);
    bytes.write(to, at);
    writeFileSync(file, bytes);
    utimesSync(file, atime, mtime);
    changed++;
  }
  return changed;
}

/**
 * The D1 site built, a body's row changed in every shard, and the import's files gone: the next build
 * makes every one of them again, from the rows the store kept.
 */
async function withDamagedRows(): Promise<TempSite> {
  const built = await d1Site();
  await build({ root: built.root });
  expect(damage(built.root, 'rows', 'palabra', 'palabro')).toBeGreaterThan(0);
  rmSync(join(built.root, D1_DIR), { recursive: true, force: true });
  return built;
}

it('a kept text changed in place is never published: its shard is made again', async () => {
  site = await d1Site();
  await build({ root: site.root });
  expect(damage(site.root, 'items', 'Nota', 'Nuta', 1)).toBe(1);
  // One file edited: the build reads every kept record to join the outputs (none changed: it runs not).
  await site.write('content/posts/nota-0.es.md', md({ title: 'Nota 0' }, 'Otro cuerpo.\n'));
  const result = await sameAsCold(site, {});
  // The llms.txt lines and item JSON of the damaged shards' items were made again from their files.
  expect(result?.incremental.redone).toBeGreaterThan(1);
  expect(result?.incremental.redone).toBeLessThan(12);
  expect(readFileSync(join(site.out, 'llms.txt'), 'utf8')).not.toContain('Nuta');
}, 60_000);

it('a kept body row changed in place never reaches the D1 import: the build runs again without the store', async () => {
  site = await withDamagedRows();
  const result = await sameAsCold(site, {});
  expect(result?.incremental.redone).toBe(12);
  const sql = Object.values(await privateFiles(site.root)).join('');
  expect(sql).toContain('palabra');
  expect(sql).not.toContain('palabro');
  // The store the build saved is whole again: the next build keeps every item, and publishes the same.
  const again = await sameAsCold(site, {});
  expect(again?.incremental.redone).toBe(0);
}, 60_000);

it('an entry changed in place is never read back into the outputs', async () => {
  site = await d1Site();
  // A v2 published beside v1, serialized from the whole model: every kept item's entry is read back
  // from the store to make it.
  const versions = { v1: { published: '2025-01-15', sunset: '2027-06-20' }, v2: { published: '2025-05-20' } };
  await site.write('headers.config.ts', `export default ${JSON.stringify({ versions })};\n`);
  await build({ root: site.root, serializers: WITH_V2 });
  expect(damage(site.root, 'entries', 'Nota', 'Nuta', 1)).toBe(1);
  await site.write('content/posts/nota-0.es.md', md({ title: 'Nota 0' }, 'Otro cuerpo.\n'));
  const result = await sameAsCold(site, { serializers: WITH_V2 });
  expect(result?.incremental.redone).toBe(12);
  expect(readFileSync(join(site.out, 'api/v2/content.json'), 'utf8')).toContain('Nota 3');
  expect(readFileSync(join(site.out, 'api/v2/content.json'), 'utf8')).not.toContain('Nuta');
}, 60_000);

it('a changed index is one that is not there: every item is made again', async () => {
  site = await d1Site();
  await build({ root: site.root });
  const index = join(site.root, STORE_DIR, 'index.bin');
  const bytes = readFileSync(index);
  // A path's letter (content/posts/nota-3.es.md read as another file's) keeps the index's form.
  const at = bytes.indexOf('nota-3.es.md');
  expect(at).toBeGreaterThan(0);
  bytes.write('nota-3.en.md', at);
  writeFileSync(index, bytes);
  const result = await sameAsCold(site, {});
  expect(result?.incremental.redone).toBe(12);
}, 60_000);

it("dev's store, damaged under it, is dropped in place and builds on from the sources", async () => {
  site = await withDamagedRows();
  const store = FragmentStore.open(site.root);
  const first = await sameAsCold(site, { store });
  expect(first?.incremental.redone).toBe(12);
  // The same store, as dev keeps it: the next build after an edit redoes that item alone.
  await site.write('content/posts/nota-5.es.md', md({ title: 'Nota 5' }, 'Otro cuerpo.\n'));
  const second = await sameAsCold(site, { store });
  expect(second?.incremental.redone).toBe(1);
  await store.save();
  store.close();
  // What it saved is whole: a build in a process of its own keeps every item.
  const third = await sameAsCold(site, {});
  expect(third?.incremental.redone).toBe(0);
}, 60_000);

it("dev's store, found damaged by the MCP stage publish() leaves for later, is dropped and the build run again whole", async () => {
  site = await withDamagedRows();
  const store = FragmentStore.open(site.root);
  let publishedRedone: number | undefined;
  const result = await sameAsCold(site, { store }, async (options) => {
    const { published, finish } = await publish({ ...options, store });
    publishedRedone = published.incremental.redone;
    return finish();
  });
  // Published from the kept items; the damage found making the D1 import, and everything made again.
  expect(publishedRedone).toBe(0);
  expect(result?.incremental.redone).toBe(12);
  expect(Object.values(await privateFiles(site.root)).join('')).not.toContain('palabro');
}, 60_000);

it('a check (a dry run) with a damaged store builds without it, and changes none of its files', async () => {
  site = await withDamagedRows();
  const index = readFileSync(join(site.root, STORE_DIR, 'index.bin'));
  const result = await check({ root: site.root });
  expect(result.incremental.redone).toBe(12);
  const sql = (result.mcp?.files ?? []).filter((f) => f.path.endsWith('.sql'));
  expect(sql.length).toBeGreaterThan(0);
  expect(readFileSync(join(site.root, STORE_DIR, 'index.bin'))).toEqual(index);
  expect(existsSync(join(site.root, D1_DIR))).toBe(false);
}, 60_000);

it('`content-index mcp --sources` never serves a body the store changed: it builds again without it', async () => {
  site = await d1Site();
  // Built by the bin, as the store the bin's MCP server reads is (a build from the sources in this
  // process keys its items under another tool's fingerprint, and the bin would make them all again).
  await run(process.execPath, [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'build'], { cwd: site.root });
  // The import's files are kept: no build reads the damaged rows, until the bodies are read back from
  // them for the MCP data built in memory.
  expect(damage(site.root, 'rows', 'palabra', 'xilofon')).toBeGreaterThan(0);
  const served = await connectStdio(['mcp', '--root', site.root]);
  try {
    const search = async (query: string) =>
      (await served.callTool('search_content', { query })).structuredContent as { total: number };
    expect((await search('palabra')).total).toBe(12);
    expect((await search('xilofon')).total).toBe(0);
  } finally {
    await served.close();
  }
}, 60_000);

it('a compiled configuration changed in place is compiled again, never imported', async () => {
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  const bin = join(PROJECT_ROOT, 'bin', 'content-index.js');
  // The bin compiles site.config.ts into the site's node_modules, and imports that module next time.
  await run(process.execPath, [bin, 'build'], { cwd: site.root });
  const cache = join(site.root, 'node_modules', '.cache', 'content-index', 'config');
  const compiled = readdirSync(cache)
    .filter((name) => name.endsWith('.mjs'))
    .map((name) => join(cache, name))
    .filter((file) => readFileSync(file, 'utf8').includes('"Fixture"'));
  expect(compiled).toHaveLength(1);
  const [file] = compiled as [string];
  writeFileSync(file, readFileSync(file, 'utf8').replace('"Fixture"', '"Fixturf"'));
  await site.write('content/posts/hola.es.md', md({ title: 'Hola otra vez' }));
  await run(process.execPath, [bin, 'build'], { cwd: site.root });
  const llms = readFileSync(join(site.out, 'llms.txt'), 'utf8');
  expect(llms).toContain('Fixture');
  expect(llms).not.toContain('Fixturf');
}, 60_000);

it('a D1 import file changed in place is written again, though its name and size are the same', async () => {
  site = await d1Site();
  await build({ root: site.root });
  const dir = join(site.root, D1_DIR);
  const [part] = readdirSync(dir)
    .filter((name) => name.startsWith('entries-'))
    .map((name) => join(dir, name));
  expect(part).toBeDefined();
  const bytes = readFileSync(part as string);
  const at = bytes.lastIndexOf('palabra');
  bytes.write('xilofon', at);
  writeFileSync(part as string, bytes);
  // Its stamp changed: the build runs, and publishes the import a build from nothing publishes.
  const result = await sameAsCold(site, {});
  expect(result?.incremental.redone).toBe(0);
  expect(readFileSync(part as string, 'utf8')).not.toContain('xilofon');
}, 60_000);
