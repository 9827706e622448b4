import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { type BuildResult, build } from '../../build/index.ts';
import { D1_DIR } from '../../build/stages/mcp-output.ts';
import { RowSpool } from '../../build/stages/row-spool.ts';
import { bytesOf, StoredBytes } from '../../build/stages/stored-bytes.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);

// A build that makes the D1 rows of many bodies (a build from nothing) holds none of their bytes until
// its end: each body's row goes to the item store's spool as it is made, and is read from there into
// the import and into the store's shards, which the save then holds it by.

let site: TempSite | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await site?.dispose();
  site = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const pieces = (result: BuildResult) =>
  (result.mcp?.files ?? []).flatMap((file) => (typeof file.content === 'string' ? [] : file.content));

/** What the process's open files are (Linux): a spool is a `rows-….spool`, unlinked once open. */
const openSpools = () =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.includes('.spool') ? [target] : [];
    } catch {
      return [];
    }
  });

it('a build from nothing holds no body row in memory, and writes the import a build without its store writes', async () => {
  const posts: Record<string, string> = {};
  for (let i = 0; i < 30; i++)
    posts[`content/posts/nota-${i}.es.md`] = md(
      { title: `Nota ${i}` },
      `Cuerpo ${i}: ${'palabra '.repeat(40 * (i + 1))}\n`,
    );
  site = await tempSite(
    { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
    { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
  );
  const before = process.platform === 'linux' ? openSpools() : [];
  const result = await build({ root: site.root });
  const all = pieces(result);
  // Bytes in memory are what the spool is against: every row is a text or a place in a file.
  expect(all.filter((piece) => piece instanceof Uint8Array)).toEqual([]);
  const stored = all.filter((piece) => piece instanceof StoredBytes);
  expect(stored.length).toBe(30);
  const text = Buffer.concat(stored.map(bytesOf)).toString('utf8');
  expect(text).toContain(`Cuerpo 29: ${'palabra '.repeat(3)}`);
  // Saved, the rows are in the store's shards: the spool is closed, and no file of it is left.
  if (process.platform === 'linux') expect(openSpools()).toEqual(before);
  const storeFiles = readdirSync(join(site.root, '.content-index', 'cache', 'items'));
  expect(storeFiles.filter((name) => name.endsWith('.spool'))).toEqual([]);

  const spooled = await snapshotDir(join(site.root, D1_DIR));
  rmSync(join(site.root, '.content-index'), { recursive: true, force: true });
  await build({ root: site.root, cache: false });
  expect(await snapshotDir(join(site.root, D1_DIR))).toEqual(spooled);
}, 60_000);

it('a check (a dry run) makes no spool: it writes nothing', async () => {
  const posts: Record<string, string> = {};
  for (let i = 0; i < 5; i++)
    posts[`content/posts/nota-${i}.es.md`] = md({ title: `Nota ${i}` }, `Cuerpo ${i}.\n`);
  site = await tempSite(
    { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
    { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
  );
  // A parse as large as any (parallelThreshold): its bodies are held, not spooled either.
  const result = await build({ root: site.root, dryRun: true, parallelThreshold: 1 });
  expect(pieces(result).filter((piece) => piece instanceof Uint8Array)).toHaveLength(5);
  expect(result.incremental.spooled).toBe(0);
  expect(existsSync(join(site.root, '.content-index'))).toBe(false);
});

it('gives back each kept row once flushed, a row past its buffer too, and knows when none is left in it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'content-index-spool-'));
  dirs.push(dir);
  const spool = RowSpool.open(dir) as RowSpool;
  const large = Buffer.alloc((1 << 20) + 5, 'x');
  const rows: unknown[] = [Buffer.from('fila pequeña'), large, Buffer.from('última')];
  for (const [i, row] of rows.entries()) spool.keep(rows, i, row as Uint8Array);
  // Nothing is a place before it is written: the last row waits in the buffer.
  expect(rows[2]).toBeInstanceOf(Uint8Array);
  spool.flush();
  const places = rows as StoredBytes[];
  expect(places.every((place) => place instanceof StoredBytes)).toBe(true);
  expect(places.map((place) => Buffer.from(bytesOf(place)).toString('utf8'))).toEqual([
    'fila pequeña',
    large.toString('utf8'),
    'última',
  ]);
  expect(spool.moved).toBe(false);
  // What a save does to a row it wrote into a shard: its place is in that file now.
  for (const place of places) place.fd = -1;
  expect(spool.moved).toBe(true);
  spool.close();
  expect(readdirSync(dir)).toEqual([]);
});

it('builds under a file-size limit the spool is past and the shards and import files are not', async () => {
  const posts: Record<string, string> = {};
  // 600 bodies of some 3 KB: a spool of about 1.9 MB; import files of 128 entries on average (about
  // 400 KB; this site's largest under 1 MB), shards of about 60 KB, and the largest output file,
  // Redoc's 1.1 MiB bundle, under the limit.
  for (let i = 0; i < 600; i++)
    posts[`content/posts/nota-${i}.es.md`] = md(
      { title: `Nota ${i}` },
      `Cuerpo ${i}: ${`palabra${i % 7} `.repeat(350)}\n`,
    );
  site = await tempSite(
    { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
    { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
  );
  const s = site;
  const bin = (limit: string) =>
    run(
      'bash',
      [
        '-c',
        `ulimit -f ${limit} && exec "${process.execPath}" "${join(PROJECT_ROOT, 'bin/content-index.js')}" build`,
      ],
      { cwd: s.root },
    );
  await bin('1300');
  const limited = await snapshotDir(join(s.root, D1_DIR));
  expect(Object.keys(limited).filter((name) => name.startsWith('entries-')).length).toBeGreaterThan(1);
  rmSync(join(s.root, '.content-index'), { recursive: true, force: true });
  await bin('unlimited');
  expect(await snapshotDir(join(s.root, D1_DIR))).toEqual(limited);
}, 120_000);
