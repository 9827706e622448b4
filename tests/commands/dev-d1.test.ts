import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exitWithin } from '../helpers/child.ts';
import { D1_SITE, WRANGLER_ENV } from '../helpers/d1.ts';
import { installFunctions } from '../helpers/functions.ts';
import { connectV2Http } from '../helpers/mcp.ts';
import { freePort } from '../helpers/pages-dev.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// `content-index dev` on the D1 backend: every build whose content changed is imported into wrangler's
// local D1 (the state `wrangler pages dev` serves from) and switched to, with no manual step.

let site: TempSite;
let child: ChildProcess;
let url: string;
let output = '';

async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await Promise.resolve(done()).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}:\n${output}`);
}

async function search(query: string): Promise<string[]> {
  const client = await connectV2Http(`${url}/mcp`);
  try {
    const result = await client.callTool('search_content', { query });
    const found = result.structuredContent as { items: { title: string }[] } | undefined;
    return (found?.items ?? []).map((item) => item.title);
  } finally {
    await client.close();
  }
}

/** While this file exists, the local import's run hangs (fake-d1-local.mjs). */
let hangFlag: string;
let wranglerLog: string;

/** dev's environment: the local D1's runs through the stand-in, which logs them and can hold one. */
function devEnv(): NodeJS.ProcessEnv {
  return {
    ...WRANGLER_ENV,
    CONTENT_INDEX_D1_LOCAL: join(PROJECT_ROOT, 'tests/fixtures/wrangler/fake-d1-local.mjs'),
    FAKE_WRANGLER_LOG: wranglerLog,
    FAKE_D1_HANG_WHEN: hangFlag,
  };
}

/** Starts dev on the site, on a free port, and waits for it to serve and import. */
async function startDev(): Promise<void> {
  output = '';
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/content-index.js'), 'dev', '--port', String(port)],
    {
      cwd: site.root,
      env: devEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: the CLI and wrangler stop together
    },
  );
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  await until(
    'the first import and the server',
    () => output.includes('✓ serving') && output.includes('✓ D1 (local)'),
    90_000,
  );
}

beforeAll(async () => {
  site = await tempSite(D1_SITE.files, D1_SITE.config);
  hangFlag = join(site.root, 'hang-imports');
  wranglerLog = join(site.root, 'wrangler.log');
  await installFunctions(site.root);
  await startDev();
}, 180_000);
afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await site?.dispose();
});

it('imports the first build into local D1 and serves search from it', async () => {
  expect(output).toMatch(/✓ D1 \(local\): g[0-9a-f]{12} imported in [\d.]+ s and live/);
  await until('a search answered from D1', async () => (await search('transformers')).length === 1);
  expect(await search('transformers')).toEqual(['Segunda entrada sobre transformers']);
});

it('imports the next build after a save, and search finds the new item', async () => {
  const imports = (output.match(/✓ D1 \(local\)/g) ?? []).length;
  await site.write(
    'content/posts/tercera.es.md',
    md({ title: 'Tercera entrada sobre embeddings', date: '2026-01-03' }),
  );
  await until('the second import', () => (output.match(/✓ D1 \(local\)/g) ?? []).length > imports);
  await until('the new item in search', async () => (await search('embeddings')).length === 1);
  expect(await search('embeddings')).toEqual(['Tercera entrada sobre embeddings']);
});

it('stops at once during an import, ending its runner and leaving no copy of the SQL behind', async () => {
  await writeFile(hangFlag, '');
  await site.write('content/posts/cuarta.es.md', md({ title: 'Cuarta entrada', date: '2026-01-04' }));
  const copies = async () =>
    (await readdir(join(site.root, '.content-index'))).filter((n) => n.startsWith('d1-import-'));
  const hanging = async () => /^hanging (\d+)$/m.exec(await readFile(wranglerLog, 'utf8'))?.[1];
  await until('the import under way', async () => (await hanging()) !== undefined);
  expect(await copies()).toHaveLength(1);
  const pid = Number(await hanging());
  // Only dev is told (a process manager's stop, the bench's): not its process group, as a terminal's
  // Ctrl+C would, which would end the import's runner by itself.
  child.kill('SIGINT');
  expect(await exitWithin(child, 20_000), output).toBe(0);
  expect(await copies()).toEqual([]);
  expect(() => process.kill(pid, 0)).toThrow();
  expect(output).not.toContain('✗ D1 (local)');
}, 180_000);

it('imports a build made before dev into a local D1 that lacks it (a new clone, .wrangler/ removed)', async () => {
  await rm(hangFlag, { force: true });
  if (child.exitCode === null) {
    child.kill('SIGINT');
    await exitWithin(child, 20_000);
  }
  const first = site;
  site = await tempSite(
    {
      ...D1_SITE.files,
      'content/posts/tercera.es.md': md({ title: 'Tercera entrada sobre grafos', date: '2026-01-03' }),
    },
    D1_SITE.config,
  );
  await first.dispose();
  hangFlag = join(site.root, 'hang-imports');
  wranglerLog = join(site.root, 'wrangler.log');
  await installFunctions(site.root);
  // Built by the same content-index as dev (dist/, not the sources the tests run): dev's first build then
  // finds nothing changed since, and writes nothing; the local D1, never written, lacks its generation.
  await promisify(execFile)(process.execPath, [join(PROJECT_ROOT, 'bin/content-index.js'), 'build'], {
    cwd: site.root,
    env: devEnv(),
  });
  await startDev();
  expect(output).toContain('nothing changed since the last build');
  await until('a search answered from D1', async () => (await search('grafos')).length === 1, 60_000);
  expect(await search('grafos')).toEqual(['Tercera entrada sobre grafos']);
}, 180_000);
