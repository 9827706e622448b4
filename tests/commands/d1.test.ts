import { execFile, spawn } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSite } from '../../bench/generate-site.ts';
import { writePrivateFiles } from '../../build/stages/write-private.ts';
import { D1_SITE, generations, localD1, WRANGLER_ENV } from '../helpers/d1.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// `content-index d1 import` against wrangler's local D1 (a real SQLite): each build's tables are a
// generation of their own, switched to only once completely imported; the one live before stays, for
// isolates still serving it; older ones are dropped.

let site: TempSite;
let state: string;
beforeAll(async () => {
  site = await tempSite(D1_SITE.files, D1_SITE.config);
  state = await mkdtemp(join(tmpdir(), 'content-index-d1-state-'));
});
afterAll(async () => {
  await site?.dispose();
  await rm(state, { recursive: true, force: true });
});

/** The local D1 runner's runs during the last import, one line each (its stand-in logs them). */
async function localRuns(): Promise<string[]> {
  return (await readFile(join(state, 'wrangler.log'), 'utf8')).trim().split('\n').filter(Boolean);
}

/** `content-index d1 import --persist-to <persistTo>` in `root`, as a user runs it: its output. */
function d1Import(
  root: string,
  persistTo: string,
  env: NodeJS.ProcessEnv = WRANGLER_ENV,
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/content-index.js'), 'd1', 'import', '--persist-to', persistTo],
    { cwd: root, env, timeout: 180_000 },
  );
}

async function importD1(): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeFile(join(state, 'wrangler.log'), '');
  try {
    const { stdout, stderr } = await d1Import(site.root, state, {
      ...WRANGLER_ENV,
      CONTENT_INDEX_D1_LOCAL: join(PROJECT_ROOT, 'tests/fixtures/wrangler/fake-d1-local.mjs'),
      FAKE_WRANGLER_LOG: join(state, 'wrangler.log'),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

async function buildGeneration(): Promise<string> {
  const result = await site.cli('build', '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).mcp.d1.generation;
}

it('imports each build as a new generation, switches to it, keeps the previous one and drops older ones', async () => {
  const a = await buildGeneration();
  const first = await importD1();
  expect(first.stdout).toMatch(
    new RegExp(
      `^✓ D1 content-index \\(local\\): imported ${a} \\(2 items\\) in [\\d.]+ s\\n✓ D1 content-index \\(local\\): ${a} is live\\n$`,
    ),
  );
  // Each run costs a second or more (a workerd started): the state, then the import with its switch in one file.
  expect((await localRuns()).map((line) => (line.includes('--file') ? 'file' : 'command'))).toEqual([
    'command',
    'file',
  ]);
  // The same content is the same generation: nothing to write.
  expect((await importD1()).stdout).toContain(`✓ D1 content-index (local): ${a} is imported already`);
  expect(await localRuns()).toHaveLength(1);

  await site.write('content/posts/tercera.es.md', md({ title: 'Tercera entrada', date: '2026-01-03' }));
  const b = await buildGeneration();
  expect(b).not.toBe(a);
  await importD1();
  expect(await generations(site.root, state)).toEqual({
    states: { [a]: 'previous', [b]: 'live' },
    withTables: [a, b].sort(),
  });

  await site.write('content/posts/cuarta.es.md', md({ title: 'Cuarta entrada', date: '2026-01-04' }));
  const c = await buildGeneration();
  expect((await importD1()).stdout).toContain(`✓ D1 content-index (local): ${c} is live; dropped ${a}`);
  // The older generation's tables go in a third run, once the new one is live.
  expect(await localRuns()).toHaveLength(3);
  expect(await generations(site.root, state)).toEqual({
    states: { [b]: 'previous', [c]: 'live' },
    withTables: [b, c].sort(),
  });
}, 360_000);

it('never switches to an import that was cut short, and starts it again from nothing next time', async () => {
  const before = await generations(site.root, state);
  const live = Object.keys(before.states).find((id) => before.states[id] === 'live');
  await site.write('content/posts/quinta.es.md', md({ title: 'Quinta entrada', date: '2026-01-05' }));
  const d = await buildGeneration();
  // The import stops half way: its last statements (the completion row among them) never run.
  const manifestFile = join(site.root, '.content-index/d1/import.json');
  const manifest = await readFile(manifestFile, 'utf8');
  const { parts, ...rest } = JSON.parse(manifest) as { parts: unknown[] };
  expect(parts.length).toBeGreaterThanOrEqual(4);
  await writeFile(manifestFile, JSON.stringify({ ...rest, parts: parts.slice(0, 2) }));
  const cut = await importD1();
  expect(cut.code).toBe(1);
  expect(cut.stderr).toContain(
    `D1 database content-index: the import of ${d} did not finish (its completion row is missing); nothing was switched`,
  );
  const after = await generations(site.root, state);
  expect(after.states).toEqual(before.states);
  expect(live && after.states[live]).toBe('live');
  // The whole import again: its first statements drop what the cut import left, then it completes.
  await writeFile(manifestFile, manifest);
  expect((await importD1()).stdout).toContain(`✓ D1 content-index (local): ${d} is live`);
}, 360_000);

it('finishes while a build writes the next /mcp data beside it (dev: a save during an import)', async () => {
  await site.write('content/posts/sexta.es.md', md({ title: 'Sexta entrada', date: '2026-01-06' }));
  const e = await buildGeneration();
  const running = importD1();
  // The import's own SQL file, once written: then the MCP data is written again, as a rebuild of dev
  // does, which removes from .content-index/d1/ and worker/ whatever is not the new data's.
  const root = join(site.root, '.content-index');
  const own = async () => (await readdir(root)).some((n) => n.startsWith('d1-import-'));
  const deadline = Date.now() + 60_000;
  while (!(await own()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(await own()).toBe(true);
  await writePrivateFiles(site.root, []);
  const done = await running;
  expect(done.stderr).not.toContain('Unable to read SQL');
  expect(done.stdout).toContain(`✓ D1 content-index (local): ${e} is live`);
  expect(await own()).toBe(false);
  // The MCP data back as the build wrote it, for what follows.
  await buildGeneration();
}, 360_000);

it("removes the copies of SQL and the lock that killed imports left behind, and no running import's", async () => {
  await site.write('content/posts/septima.es.md', md({ title: 'Séptima entrada', date: '2026-01-07' }));
  const g = await buildGeneration();
  // A process that has ended: its number names no process now.
  const ended = spawn(process.execPath, ['-e', '']);
  const gone = ended.pid as number;
  await new Promise((r) => ended.once('exit', r));
  const root = join(site.root, '.content-index');
  const left = `d1-import-${gone}-1.sql`;
  const running = `d1-import-${process.pid}-1.sql`;
  await writeFile(join(root, left), 'SELECT 1;\n');
  await writeFile(join(root, running), 'SELECT 1;\n');
  // The lock of an import killed on the way (one at a time into a local D1): taken over, then released.
  await writeFile(join(state, 'content-index-d1-import.lock'), `${gone}\n`);
  const result = await importD1();
  expect(result.stdout).toContain(`✓ D1 content-index (local): ${g} is live`);
  expect(result.stdout).not.toContain('waiting');
  expect((await readdir(state)).filter((n) => n.endsWith('.lock'))).toEqual([]);
  const names = (await readdir(root)).filter((n) => n.startsWith('d1-import-'));
  expect(names).toEqual([running]);
  await rm(join(root, running));
}, 360_000);

it('says there is nothing to import for a site on the embedded backend', async () => {
  const embedded = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  try {
    expect((await embedded.cli('build')).code).toBe(0);
    const result = await embedded.cli('d1', 'import');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '✓ nothing to import: the last build serves /mcp from the Function itself (backend embedded)\n',
    );
  } finally {
    await embedded.dispose();
  }
});

// NUL and other control characters never get this far: the build refuses them in published text.
it('imports hostile text exactly: quotes, SQL comments and separators, newlines, tabs, emoji', async () => {
  const hostile = await tempSite(
    {
      ...D1_SITE.files,
      'content/posts/comillas.es.md': `---\ntitle: "It's a '; DROP TABLE x; -- test /* not */ end"\ndescription: "line one\\nline two; \\\\ back \\t tab 🤖 ‘curly’"\ndate: 2026-01-03\ntags: ["a;b", "--c", "'d'"]\n---\nTexto.\n`,
    },
    D1_SITE.config,
  );
  const hostileState = await mkdtemp(join(tmpdir(), 'content-index-d1-hostile-'));
  try {
    expect((await hostile.cli('build')).code).toBe(0);
    const { stdout } = await d1Import(hostile.root, hostileState);
    expect(stdout).toContain('is live');
    const index = await hostile.readJson<{ content: { title: string; description?: string }[] }>(
      'api/v1/content.json',
    );
    const { generation } = JSON.parse(
      await readFile(join(hostile.root, '.content-index/d1/import.json'), 'utf8'),
    ) as { generation: string };
    const [rows = []] = (await localD1(
      hostile.root,
      hostileState,
      `SELECT item, tags FROM ci_${generation}_items ORDER BY pos`,
    )) as [{ item: string; tags: string }[]];
    expect(rows.map((r) => JSON.parse(r.item))).toEqual(index.content);
    expect(rows.map((r) => JSON.parse(r.tags))).toContainEqual(['a;b', '--c', "'d'"]);
  } finally {
    await hostile.dispose();
    await rm(hostileState, { recursive: true, force: true });
  }
}, 360_000);

/** The local D1's write-ahead log: its size, and how many times SQLite started it over (its header). */
async function writeAheadLog(persistTo: string): Promise<{ bytes: number; restarts: number }> {
  const folder = join(persistTo, 'v3/d1/miniflare-D1DatabaseObject');
  const name = (await readdir(folder)).find((n) => n.endsWith('.sqlite-wal') && !n.startsWith('metadata'));
  if (!name) throw new Error(`no write-ahead log in ${folder}`);
  const file = await open(join(folder, name), 'r');
  try {
    const header = Buffer.alloc(16);
    await file.read(header, 0, 16, 0);
    // The WAL header: magic, format version, page size, then the checkpoint sequence number, which
    // SQLite raises each time it writes the log from its start again.
    return { bytes: (await stat(join(folder, name))).size, restarts: header.readUInt32BE(12) };
  } finally {
    await file.close();
  }
}

// wrangler ran each import as one transaction, in a process of its own: SQLite never started the log
// over, and it grew by a whole import at every save of dev (1.7 GB after some 90 at 1,000 items).
it('keeps the local D1 write-ahead log to about one import, however many follow, and runs them one at a time', async () => {
  const files = Object.fromEntries(
    [...generateSite({ items: 150, seed: 3, words: [1500, 2500] })].map((f) => [f.path, f.content]),
  );
  const big = await tempSite(
    { ...files, 'wrangler.toml': D1_SITE.files['wrangler.toml'] },
    { ...D1_SITE.config },
  );
  const bigState = await mkdtemp(join(tmpdir(), 'content-index-d1-log-'));
  const edited = Object.keys(files).find((path) => path.endsWith('.es.md')) as string;
  try {
    const logs: { bytes: number; restarts: number }[] = [];
    for (let i = 0; i < 3; i++) {
      await big.write(edited, (files[edited] as string).replace(/^title: .*$/m, `title: "Edición ${i}"`));
      expect((await big.cli('build')).code).toBe(0);
      const { stdout } = await d1Import(big.root, bigState);
      expect(stdout).toContain('is live');
      logs.push(await writeAheadLog(bigState));
    }
    const [first, , third] = logs as [(typeof logs)[0], (typeof logs)[0], (typeof logs)[0]];
    // An import is more than the 1,000 pages (4 MB) after which SQLite copies the log back into the
    // database: the log starts over within each import, and the third leaves it as the first did (one
    // transaction an import, it held all three end to end: three times the first).
    expect(first.bytes).toBeGreaterThan(4_000_000);
    expect(first.restarts).toBeGreaterThan(0);
    expect(third.restarts).toBeGreaterThan(first.restarts);
    expect(third.bytes).toBeLessThan(1.5 * first.bytes);

    // Two imports of the next build at once (dev's and one by hand): one at a time, so the second finds
    // the build imported whole, never the first's completion row over tables the second began again.
    await big.write(edited, (files[edited] as string).replace(/^title: .*$/m, 'title: "Edición final"'));
    expect((await big.cli('build')).code).toBe(0);
    const both = await Promise.all([0, 1].map(() => d1Import(big.root, bigState)));
    const said = both.map((r) => r.stdout).join('');
    expect(said).toMatch(
      /… D1 content-index \(local\): waiting for the import under way into it \(process \d+\)/,
    );
    expect(said).toContain('is imported already');
    const { generation, items } = JSON.parse(
      await readFile(join(big.root, '.content-index/d1/import.json'), 'utf8'),
    ) as { generation: string; items: number };
    const [[counted] = []] = (await localD1(
      big.root,
      bigState,
      `SELECT count(*) AS n FROM ci_${generation}_items`,
    )) as [{ n: number }[]];
    expect(counted?.n).toBe(items);
  } finally {
    await big.dispose();
    await rm(bigState, { recursive: true, force: true });
  }
}, 360_000);
