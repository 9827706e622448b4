import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, exitWithin, killGroup, running } from '../helpers/child.ts';
import { HUGO, type HugoSite, hugoSite, userEnv } from '../helpers/hugo-site.ts';
import { connectV2Http } from '../helpers/mcp.ts';
import { freePort } from '../helpers/pages-dev.ts';
import { md } from '../helpers/site.ts';

// `npm run dev` as init writes it in a Hugo site (content-index dev --hugo): Hugo's watch mode keeps
// the pages current beside the API, so after every save the new page and its index entry are served
// together; hugo ends with dev, even when dev is killed.
if (!HUGO) console.warn('dev-hugo.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

let site: HugoSite;
let child: ChildProcess;
let url: string;
let stdout = '';
let stderr = '';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
}

/** The index entry with this title, if the served index lists it: its address on the local server. */
async function listed(title: string): Promise<string | undefined> {
  const response = await fetch(`${url}/api/v1/content.json`, {
    headers: { 'cache-control': 'no-cache' },
    signal: AbortSignal.timeout(5000),
  });
  const body = (await response.json()) as { content: { title: string; url: string }[] };
  const item = body.content.find((c) => c.title === title);
  return item && new URL(item.url).pathname;
}

/** Whether the page at `path` is served with this title (hugo's layout writes it as the H1). */
async function served(path: string, title: string): Promise<boolean> {
  const response = await fetch(`${url}${path}`);
  return response.status === 200 && (await response.text()).includes(`<h1>${title}</h1>`);
}

let started: { pid: number; command: string }[] = [];

describe.skipIf(!HUGO)(`dev --hugo (hugo ${HUGO ?? ''})`, () => {
  beforeAll(async () => {
    site = await hugoSite('es-en-long-title-static-files', 'apuntes-dev');
    const init = await site.sh(process.execPath, ['node_modules/.bin/content-index', 'init']);
    expect(init.code, init.stderr).toBe(0);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // The dev script init wrote, run as npm runs it (its bin from node_modules/.bin), on a free port.
    const script = JSON.parse(await site.read('package.json')).scripts.dev as string;
    expect(script).toBe('content-index dev --hugo');
    child = spawn(
      process.execPath,
      ['node_modules/.bin/content-index', ...script.split(' ').slice(1), '--port', String(port)],
      { cwd: site.root, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (c) => (stdout += c));
    child.stderr?.on('data', (c) => (stderr += c));
    await until('the dev server', async () => (stdout.includes('✓ serving') ? true : undefined), 90_000);
    await until('the first page and entry', async () => {
      const path = await listed('Hola mundo');
      return path && (await served(path, 'Hola mundo')) ? true : undefined;
    });
    started = child.pid ? await descendants(child.pid) : [];
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    for (const { pid } of started) if (running(pid)) process.kill(pid, 'SIGKILL'); // only if a test failed
    await site?.dispose();
  });

  it('serves each of ten saves (new posts, edits, renames) as its page and index entry together', async () => {
    expect(stdout).toContain('✓ hugo: pages built; hugo --watch keeps them current');
    const module = await site.read('.content-index/worker/mcp-data.mjs');
    const file = (name: string) => join(site.root, 'content/posts', `${name}.md`);
    const saves: { title: string; save: () => Promise<void>; gone?: string }[] = [];
    for (let i = 0; i < 4; i++)
      saves.push({
        title: `Nuevo ${i}`,
        save: () => writeFile(file(`nuevo-${i}`), md({ title: `Nuevo ${i}` })),
      });
    for (let i = 0; i < 4; i++)
      saves.push({
        title: `Editado ${i}`,
        save: () => writeFile(file(`nuevo-${i}`), md({ title: `Editado ${i}` })),
      });
    for (let i = 0; i < 2; i++)
      saves.push({
        title: `Editado ${i}`,
        // A rename: the same post, at the address its new file name gives it.
        save: () => rename(file(`nuevo-${i}`), file(`renombrado-${i}`)),
        gone: `/posts/nuevo-${i}/`,
      });
    const times: number[] = [];
    for (const [n, { title, save, gone }] of saves.entries()) {
      const saved = Date.now();
      await save();
      // The moment the index lists the save, its page is there: index and page agree, never an entry
      // whose page answers 404.
      const path = await until(
        `save ${n} in the index`,
        async () => {
          const at = await listed(title);
          return at && (!gone || at !== gone) ? at : undefined;
        },
        30_000,
      );
      times.push(Date.now() - saved);
      expect(
        await served(path, title),
        `save ${n}: ${path} when the index listed it\n${stdout}\n${stderr}`,
      ).toBe(true);
      if (gone) expect(path).toBe(`/posts/renombrado-${n - 8}/`);
    }
    // How fast is a figure of the bench (a timed test fails on a loaded machine); this test holds the order.
    console.info(`dev --hugo: each save's page and index entry served after ${times.join(', ')} ms`);
    expect(stderr).not.toMatch(/internal error|✗|changed since|was not written by content-index/);
    // /mcp, through the Function wrangler bundled at the start and the official client, finds the last
    // saves: the Function reads dev's data, and its module stayed the same bytes (no reload).
    expect(await site.read('.content-index/worker/mcp-data.mjs')).toBe(module);
    const found = await until('the last save in /mcp', async () => {
      const client = await connectV2Http(`${url}/mcp`);
      try {
        const result = await client.callTool('search_content', { query: 'Editado 3' });
        const items = (result.structuredContent as { items: { title: string }[] }).items;
        return items.some((item) => item.title === 'Editado 3') ? items : undefined;
      } finally {
        await client.close();
      }
    });
    expect(found.map((item) => item.title)).toContain('Editado 3');
  });

  it('serves the merged static/_redirects while hugo copies it again on every change of static/', async () => {
    await writeFile(
      join(site.root, 'static/_redirects'),
      '/viejo /posts/hola/ 301\n/nuevo /posts/redes/ 302\n',
    );
    // Hugo copies the file over the build's merged one; the rebuild that follows merges it again.
    await until('the merged file', async () => {
      const merged = await site.read('public/_redirects');
      return merged.includes('/nuevo /posts/redes/ 302') &&
        merged.includes('/api/content.json/ /api/content.json 308')
        ? true
        : undefined;
    });
    await until(
      'the new rule served',
      async () => ((await fetch(`${url}/nuevo`, { redirect: 'manual' })).status === 302 ? true : undefined),
      60_000,
    );
    // wrangler reloads its routing after each copy of _redirects (a 502 while it does): wait it out.
    await until(
      "the build's own rule served beside it",
      async () =>
        (await fetch(`${url}/api/content.json/`, { redirect: 'manual' })).status === 308 ? true : undefined,
      60_000,
    );
    expect((await fetch(`${url}/nuevo`, { redirect: 'manual' })).status).toBe(302);
  }, 150_000);

  it("stops, with hugo's own message, when hugo's first build fails", async () => {
    const broken = await hugoSite('es-en-long-title-static-files', 'roto');
    try {
      expect((await broken.sh(process.execPath, ['node_modules/.bin/content-index', 'init'])).code).toBe(0);
      await writeFile(join(broken.root, 'content/posts/roto.md'), '---\ntitle: [roto\n---\n');
      const result = await broken.sh(process.execPath, [
        'node_modules/.bin/content-index',
        'dev',
        '--hugo',
        '--port',
        String(await freePort()),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('hugo: could not build the pages: Error: Error building site:');
      expect(result.stderr).toContain('content/posts/roto.md');
      expect(result.stdout).not.toContain('✓ serving');
    } finally {
      await broken.dispose();
    }
  });

  it('stops, saying so and with no stack trace, when hugo ends during its first build', async () => {
    const short = await hugoSite('es-en-long-title-static-files', 'corta');
    let dev: ChildProcess | undefined;
    try {
      expect((await short.sh(process.execPath, ['node_modules/.bin/content-index', 'init'])).code).toBe(0);
      // The first build loads headers.config.ts (dev itself does not): it says so, then takes its time.
      const marker = join(short.root, 'reading');
      const headers = await short.read('headers.config.ts');
      await writeFile(
        join(short.root, 'headers.config.ts'),
        `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\nawait new Promise((r) => setTimeout(r, 3000));\n${headers}`,
      );
      let printed = '';
      dev = spawn(
        process.execPath,
        ['node_modules/.bin/content-index', 'dev', '--hugo', '--port', String(await freePort())],
        { cwd: short.root, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      dev.stdout?.on('data', (c) => (printed += c));
      dev.stderr?.on('data', (c) => (printed += c));
      await until('the first build', async () => (existsSync(marker) ? true : undefined), 60_000);
      const hugo = (dev.pid ? await descendants(dev.pid) : []).filter((p) => /(^|\/)hugo /.test(p.command));
      expect(hugo.length, printed).toBe(1);
      process.kill((hugo[0] as { pid: number }).pid, 'SIGKILL');
      expect(typeof (await exitWithin(dev, 30_000))).toBe('number');
      expect(printed).toContain('✗ hugo stopped (exit');
      expect(printed).not.toMatch(/ReferenceError|\n\s+at /);
      expect(printed).not.toContain('✓ serving');
    } finally {
      killGroup(dev);
      await short.dispose();
    }
  });

  it('takes hugo down with it when it is killed (SIGKILL)', async () => {
    started = child.pid ? await descendants(child.pid) : [];
    const hugo = started.filter((p) => /(^|\/)hugo /.test(p.command));
    if (existsSync('/proc')) expect(hugo.length, JSON.stringify(started)).toBe(1);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await until('every process dev started to end', async () =>
      started.some((p) => running(p.pid)) ? undefined : true,
    );
    // And with it, nothing writes pages any more.
    await writeFile(join(site.root, 'content/posts/tarde.md'), md({ title: 'Tarde' }));
    await new Promise((r) => setTimeout(r, 1500));
    expect(existsSync(join(site.root, 'public/posts/tarde/index.html'))).toBe(false);
  });
});
