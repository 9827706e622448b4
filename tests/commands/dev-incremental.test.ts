import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeSite } from '../../bench/generate-site.ts';
import { RACY_MS } from '../../build/stages/parse-cache.ts';
import { freePort } from '../helpers/pages-dev.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

// Acceptance 3 of the incremental engine (issue 23): `content-index dev` on a site of 1,000 items, one
// file saved; the rebuild's own report (the line dev prints from it) says that item alone was redone,
// and the edit is served.

let root: string;
let child: ChildProcess | undefined;
let url: string;
let output = '';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}\n${output}`);
}

async function titles(): Promise<string[]> {
  const response = await fetch(`${url}/api/v1/content.json`, {
    headers: { 'cache-control': 'no-cache' },
    signal: AbortSignal.timeout(5000),
  });
  return ((await response.json()) as { content: { title: string }[] }).content.map((c) => c.title);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'content-index-dev-1000-'));
  await writeSite(root, { items: 1000, seed: 23, words: [20, 40] });
  // Files written this close to a build are read again by the next (their stamps cannot vouch for
  // them yet, parse-cache.ts RACY_MS): an author's files are older than that.
  await new Promise((r) => setTimeout(r, RACY_MS + 500));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/content-index.js'), 'dev', '--port', String(port)],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  await until('the dev server', async () => (output.includes('✓ serving') ? true : undefined));
  await until('the first answer', async () => ((await titles()).length === 1000 ? true : undefined));
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(root, { recursive: true, force: true });
});

it('a save at 1,000 items redoes that item alone, by the build report, and serves the edit', async () => {
  // The first build made every item (from nothing).
  expect(output).toMatch(
    /✓ built: 1000 items in \d+ ms \(1000 items redone, 0 kept; 2,\d{3} of \d+ files read\)/,
  );

  const file = join(root, 'content/posts/post-00002.es.md');
  const original = await readFile(file, 'utf8');
  const before = output.split('✓ rebuilt').length;
  await writeFile(file, original.replace(/^title: .*$/m, 'title: "Guardado una vez"'));
  await until('the edit served', async () =>
    (await titles()).includes('Guardado una vez') ? true : undefined,
  );
  await until('the rebuild line', async () => (output.split('✓ rebuilt').length > before ? true : undefined));
  const line = output
    .split('\n')
    .filter((l) => l.includes('✓ rebuilt after a change to content/posts/post-00002.es.md'))
    .at(-1);
  // From the build's report: one item's fragments made, the other 999 kept; that item's files read
  // (the saved one and its translations, to pair them again), no other.
  // The site's two configuration warnings (no contact address, no logo) were printed with the first
  // build; the save's line says they still stand rather than printing them again.
  const match =
    /: 1000 items in \d+ ms \(1 item redone \(post\/post-00002\), 999 kept; (\d) of \d+ files read\) · the 2 warnings printed before still stand$/.exec(
      line ?? '',
    );
  expect(match, line).not.toBeNull();
  expect(output.split('aiPlugin.contactEmail: is not set').length - 1, output).toBe(1);
  const itsFiles = (await readdir(join(root, 'content/posts'))).filter((n) => n.startsWith('post-00002.'));
  expect(Number(match?.[1])).toBe(itsFiles.length);
});
