import { type ChildProcess, spawn } from 'node:child_process';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../helpers/pages-dev.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite;
let child: ChildProcess;
let url: string;
let stdout = '';
let stderr = '';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
}

async function titles(): Promise<string[]> {
  const response = await fetch(`${url}/api/v1/content.json`, { headers: { 'cache-control': 'no-cache' } });
  const body = (await response.json()) as { content: { title: string }[] };
  return body.content.map((c) => c.title).sort();
}

beforeAll(async () => {
  site = await tempSite({ 'content/posts/primero.es.md': md({ title: 'Primero' }) });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/content-index.js'), 'dev', '--port', String(port)],
    {
      cwd: site.root,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (c) => (stdout += c));
  child.stderr?.on('data', (c) => (stderr += c));
  await until('the dev server', async () => (stdout.includes('✓ serving') ? true : undefined), 60_000);
});
afterAll(async () => {
  child?.kill('SIGTERM');
  await new Promise((r) => child?.once('exit', r));
  await site?.dispose();
});

it('serves the build, picks up an edit, keeps the last good build through a broken save, and recovers', async () => {
  expect(await titles()).toEqual(['Primero']);

  const saved = Date.now();
  await site.write('content/posts/segundo.es.md', md({ title: 'Segundo' }));
  await until('the new item', async () => ((await titles()).includes('Segundo') ? true : undefined));
  // A figure for the reader of the test log, not an assertion: speed belongs in `npm run bench`.
  console.info(`dev: an added file was served ${Date.now() - saved} ms after it was saved`);

  await site.write('content/posts/segundo.es.md', md({ title: '' }));
  // The problem and the closing line are two writes: a busy machine can deliver them in two chunks.
  await until('the error', async () =>
    stderr.includes('still serving the last good build') ? true : undefined,
  );
  expect(stderr).toContain('content/posts/segundo.es.md:2: title: must not be empty');
  expect(await titles()).toEqual(['Primero', 'Segundo']);

  await site.write('content/posts/segundo.es.md', md({ title: 'Segundo, arreglado' }));
  await until('the recovery', async () =>
    (await titles()).includes('Segundo, arreglado') ? true : undefined,
  );
  expect(await titles()).toEqual(['Primero', 'Segundo, arreglado']);
});

it('rebuilds when the site configuration is saved the way editors do (write a copy, rename it over)', async () => {
  await site.write(
    'site.config.ts.tmp',
    'export default { site: "https://renamed.example.com/", images: "https://images.example.com/" };\n',
  );
  await rename(join(site.root, 'site.config.ts.tmp'), join(site.root, 'site.config.ts'));
  await until('the new site address', async () => {
    const body = (await (await fetch(`${url}/api/v1/content.json`)).json()) as { site: string };
    return body.site === 'https://renamed.example.com/' ? true : undefined;
  });
});

it('rebuilds after a second rename-save of the configuration too', async () => {
  await site.write(
    'site.config.ts.tmp',
    'export default { site: "https://again.example.com/", images: "https://images.example.com/" };\n',
  );
  await rename(join(site.root, 'site.config.ts.tmp'), join(site.root, 'site.config.ts'));
  await until('the second site address', async () => {
    const body = (await (await fetch(`${url}/api/v1/content.json`)).json()) as { site: string };
    return body.site === 'https://again.example.com/' ? true : undefined;
  });
});
