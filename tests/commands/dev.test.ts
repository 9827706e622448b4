import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { quietNetworkRecording } from '../../build/runtime/devtools-quiet.ts';
import { RACY_MS } from '../../build/stages/parse-cache.ts';
import { descendants, exitWithin, killGroup, running } from '../helpers/child.ts';
import { freePort } from '../helpers/pages-dev.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite;
let child: ChildProcess;
let url: string;
let inspectorPort: number;
let stdout = '';
let stderr = '';

/** Waits for `probe`; on a timeout, says what the process waited on printed (`shown`; the shared dev's by default). */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  shown = () => `stdout:\n${stdout}\nstderr:\n${stderr}`,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}\n${shown()}`);
}

async function titles(): Promise<string[]> {
  // Bounded: a request wrangler holds for a worker it is restarting must not hold the test with it.
  const response = await fetch(`${url}/api/v1/content.json`, {
    headers: { 'cache-control': 'no-cache' },
    signal: AbortSignal.timeout(5000),
  });
  const body = (await response.json()) as { content: { title: string }[] };
  return body.content.map((c) => c.title).sort();
}

let wranglerPids: number[] = [];

beforeAll(async () => {
  site = await tempSite({ 'content/posts/primero.es.md': md({ title: 'Primero' }) });
  const port = await freePort();
  inspectorPort = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [
      join(PROJECT_ROOT, 'bin/content-index.js'),
      'dev',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
    ],
    {
      cwd: site.root,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (c) => (stdout += c));
  child.stderr?.on('data', (c) => (stderr += c));
  await until('the dev server', async () => (stdout.includes('✓ serving') ? true : undefined), 60_000);
  await until('the first answer', async () => ((await titles()).length === 1 ? true : undefined));
  wranglerPids = child.pid ? (await descendants(child.pid)).map((p) => p.pid) : [];
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  for (const pid of wranglerPids) if (running(pid)) process.kill(pid, 'SIGKILL'); // only if a test failed
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
  await site.remove('content/posts/segundo.es.md');
  await until('the deletion', async () => ((await titles()).length === 1 ? true : undefined));
  // Named by the watcher's event; on a loaded machine the look at the whole folder dev takes once idle
  // (a second after a build that trusted the watcher) can find the deletion first, and names the folder.
  await until('the deletion named', async () =>
    /rebuilt after (content\/posts\/segundo\.es\.md was deleted|a change to content:)/.test(stdout)
      ? true
      : undefined,
  );
});

it('prints warnings when they change, not again at every save', async () => {
  const warning = 'content/posts/tercero.es.md:3: tgas: is not a key content-index reads';
  const printed = () => stderr.split(warning).length - 1;
  const lineAfter = async (what: string, from: number) =>
    until(what, async () =>
      stdout
        .slice(from)
        .split('\n')
        .find((l) => l.includes('✓ rebuilt after')),
    );

  let from = stdout.length;
  await site.write('content/posts/tercero.es.md', md({ title: 'Tercero', tgas: ['ia'] }));
  await until('the new item', async () => ((await titles()).includes('Tercero') ? true : undefined));
  expect(await lineAfter('the rebuild', from)).not.toContain('printed before');
  await until('the warning', async () => (printed() === 1 ? true : undefined));

  from = stdout.length;
  await site.write('content/posts/primero.es.md', md({ title: 'Primero, otra vez' }));
  await until('the edit', async () => ((await titles()).includes('Primero, otra vez') ? true : undefined));
  expect(await lineAfter('the second rebuild', from)).toContain(
    '· the 1 warning printed before still stands',
  );
  expect(printed()).toBe(1);

  from = stdout.length;
  await site.write('content/posts/tercero.es.md', md({ title: 'Tercero', tags: ['ia'] }));
  expect(await lineAfter('the fix', from)).toContain('· no warnings now');
  expect(printed()).toBe(1);

  await site.write('content/posts/primero.es.md', md({ title: 'Primero' }));
  await site.remove('content/posts/tercero.es.md');
  await until('the site as it was', async () => ((await titles()).join() === 'Primero' ? true : undefined));
  // Five rebuilds since the warning was printed: a reprint would have come by now.
  expect(printed()).toBe(1);
});

it('refuses the save of another file while one is still broken, however long ago that one was read', async () => {
  const failed = () => stderr.split('still serving the last good build').length - 1;
  await site.write('content/posts/cuarto.es.md', md({ title: 'Cuarto' }));
  await until('the new item', async () => ((await titles()).includes('Cuarto') ? true : undefined));
  // Old enough for its stamp to be trusted (parse-cache.ts RACY_MS), and read once more by a save of
  // another file: dev's store then knows it by its stamp alone.
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
  await site.write('content/posts/primero.es.md', md({ title: 'Primero, de nuevo' }));
  await until('the edit', async () => ((await titles()).includes('Primero, de nuevo') ? true : undefined));

  const before = failed();
  await site.write('content/posts/cuarto.es.md', md({ title: '' }));
  await until('the error', async () => (failed() === before + 1 ? true : undefined));
  // The next save names primero.es.md alone; cuarto.es.md was taken from what the last good build had
  // read of it, and the site published with its old title.
  await site.write('content/posts/primero.es.md', md({ title: 'Primero' }));
  await until('the error again', async () => (failed() === before + 2 ? true : undefined));
  expect(await titles()).toEqual(['Cuarto', 'Primero, de nuevo']);

  await site.remove('content/posts/cuarto.es.md');
  await until('the site as it was', async () => ((await titles()).join() === 'Primero' ? true : undefined));
});

it("runs dev in a Node started with the V8 flags of a long-lived process, the bin's own child", async () => {
  if (!existsSync('/proc') || !child.pid) return; // the process table is read from /proc
  const cmdline = async (pid: number) =>
    (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const dev: string[][] = [];
  for (const { pid } of await descendants(child.pid)) {
    const args = await cmdline(pid);
    if (args.some((a) => a.endsWith('content-index.js')) && args.includes('dev')) dev.push(args);
  }
  expect(dev).toHaveLength(1);
  expect(dev[0]).toEqual(expect.arrayContaining(['--no-memory-reducer', '--no-flush-bytecode']));
  // The bin itself stays as it was started: one dev, not a chain of them.
  expect(await cmdline(child.pid)).not.toContain('--no-memory-reducer');
});

it("holds wrangler's inspector: another DevTools client is refused", async () => {
  // dev is the DevTools client of its wrangler, to turn the network recording off
  // (build/runtime/devtools-quiet.ts, whose test shows the recording on, then off). wrangler lets one
  // client in at a time: dev is that one, so another is refused.
  // dev connects when wrangler is ready, a moment after saying so: a client of ours let in before it
  // is closed at once (dev tries again) and made again, for 20 seconds at most.
  const refusal = async (): Promise<Error | undefined> => {
    try {
      (await quietNetworkRecording(inspectorPort)).close();
      return undefined;
    } catch (error) {
      return error as Error;
    }
  };
  let refused = await refusal();
  for (const deadline = Date.now() + 20_000; !refused && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 300));
    refused = await refusal();
  }
  expect(refused?.message).toMatch(/\(1013 Too many clients/);
  expect(await titles()).toEqual(['Primero']);
});

it("serves each save's /mcp data from dev itself: the Function's module never changes, so wrangler never reloads it", async () => {
  const module = join(site.root, '.content-index/worker/mcp-data.mjs');
  const pointer = await readFile(module, 'utf8');
  const url = /"url": "(http:\/\/127\.0\.0\.1:\d+\/mcp-data)"/.exec(pointer)?.[1];
  expect(pointer).toContain('"backend": "dev"');
  expect(url).toBeDefined();
  const data = async () => (await fetch(url as string)).text();
  for (const title of ['Pausa uno', 'Pausa dos', 'Pausa tres']) {
    await site.write('content/posts/pausa.es.md', md({ title }));
    // Served and its data with it: a "rebuilt" line alone may be another rebuild's (the deletion before,
    // found both by the watcher and by dev's idle look at the folder on a loaded runner).
    await until(`the rebuild for ${title}`, async () =>
      (await titles()).includes(title) && (await data()).includes(title) ? true : undefined,
    );
    // The module is the same bytes (wrangler rebuilds and reloads the Function when it changes, holding
    // every request for about a second); the data it points to is this save's.
    expect(await readFile(module, 'utf8')).toBe(pointer);
    expect(await data()).toContain(title);
  }
  expect(await data()).not.toContain('Pausa dos');
  // The Function asks again on every request: unchanged data is a 304.
  const first = await fetch(url as string);
  await first.arrayBuffer();
  const again = await fetch(url as string, { headers: { 'If-None-Match': first.headers.get('etag') ?? '' } });
  expect(again.status).toBe(304);
  // (tests/commands/dev-hugo.test.ts searches /mcp through the Function and the official client.)
  await site.remove('content/posts/pausa.es.md');
  await until('the deletion', async () => ((await titles()).includes('Pausa tres') ? undefined : true));
});

// Ctrl+C in a terminal signals the whole foreground process group, and so do systemd and `timeout` with
// SIGTERM: the bin and dev, its child, each get the signal, and dev must still stop once and cleanly.
it.each([
  ['SIGTERM to the bin', 'SIGTERM', false],
  ['Ctrl+C (SIGINT to its process group)', 'SIGINT', true],
  ['SIGTERM to its process group', 'SIGTERM', true],
] as const)("leaves the last build's /mcp data in the module when it stops: %s", async (_, signal, group) => {
  const other = await tempSite({ 'content/posts/uno.es.md': md({ title: 'Uno' }) });
  let started: ChildProcess | undefined;
  try {
    const { dev, printed } = await startDev(other.root, group);
    started = dev;
    await until(
      'the second dev server',
      async () => (printed().includes('✓ serving') ? true : undefined),
      60_000,
      () => `it printed:\n${printed()}`,
    );
    const module = join(other.root, '.content-index/worker/mcp-data.mjs');
    expect(await readFile(module, 'utf8')).toContain('"backend": "dev"');
    await other.write('content/posts/dos.es.md', md({ title: 'Dos, al parar' }));
    await until('the rebuild', async () => (printed().includes('✓ rebuilt after') ? true : undefined));
    if (group && dev.pid) process.kill(-dev.pid, signal);
    else dev.kill(signal);
    expect(await exitWithin(dev, 30_000)).toBe(0);
    const left = await dataLeft(other.root);
    expect(left).toContain('"backend":"embedded"');
    expect(left).toContain('Dos, al parar');
  } finally {
    // A dev that failed the test is not left running (with its wrangler) for the rest of the suite.
    if (group) killGroup(started);
    else if (started && started.exitCode === null && started.signalCode === null) started.kill('SIGKILL');
    await other.dispose();
  }
});

// A save's output is published before its MCP stage runs (publish in build/index.ts): a problem found
// there is told as the /mcp data's, with the edit already served, never as a build still not served.
it('serves the edit and says its /mcp data failed when only the MCP stage finds a problem', async () => {
  const other = await tempSite(
    { 'content/posts/uno.es.md': md({ title: 'Uno' }) },
    // The d1 backend with no D1 database bound in wrangler.toml: refused by the MCP stage alone.
    { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
  );
  let dev: ChildProcess | undefined;
  try {
    const started = await startDev(other.root, true);
    dev = started.dev;
    const { port, printed } = started;
    const served = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/content.json`);
      return ((await response.json()) as { content: { title: string }[] }).content.map((c) => c.title);
    };
    await until(
      'the dev server',
      async () => (printed().includes('✓ serving') ? true : undefined),
      60_000,
      printed,
    );
    const refusals = () =>
      printed().split('its /mcp data: 1 problem; /mcp serves the build before').length - 1;
    expect(refusals()).toBe(1);
    expect(printed()).toContain('has no D1 database bound as CONTENT_INDEX_DB');
    expect(printed()).not.toContain('still serving the last good build');
    await other.write('content/posts/uno.es.md', md({ title: 'Uno, editado' }));
    await until(
      'the edit',
      async () => ((await served()).includes('Uno, editado') ? true : undefined),
      30_000,
      printed,
    );
    await until('its /mcp data refused', async () => (refusals() === 2 ? true : undefined), 30_000, printed);
    expect(printed()).toMatch(/✓ rebuilt after a change to content\/posts\/uno\.es\.md: 1 item in \d+ ms/);
    expect(printed()).not.toContain('still serving the last good build');
    // Stopped as an author stops it: wrangler goes with it (a SIGKILL to the group alone left it running).
    dev.kill('SIGTERM');
    expect(await exitWithin(dev, 30_000)).toBe(0);
  } finally {
    killGroup(dev);
    await other.dispose();
  }
});

/** The /mcp data a project's module holds: the module's text, then the embedded data's bytes it imports. */
async function dataLeft(root: string): Promise<string> {
  const worker = join(root, '.content-index/worker');
  return (
    (await readFile(join(worker, 'mcp-data.mjs'), 'utf8')) +
    (await readFile(join(worker, 'mcp-data.bin'), 'utf8').catch(() => ''))
  );
}

/** `content-index dev` in `root` on a free port; `printed()` is what it has printed so far. */
async function startDev(
  root: string,
  detached: boolean,
): Promise<{ dev: ChildProcess; port: number; printed: () => string }> {
  let printed = '';
  const port = await freePort();
  const dev = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/content-index.js'), 'dev', '--port', String(port)],
    { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached },
  );
  dev.stdout?.on('data', (c) => (printed += c));
  dev.stderr?.on('data', (c) => (printed += c));
  return { dev, port, printed: () => printed };
}

/**
 * dev started on a site of its own, stopped by SIGTERM while a rebuild is under way: the rebuild's new
 * configuration writes a marker when it is loaded, then runs `then` (its top-level await).
 */
async function stopDuringRebuild(
  then: string,
): Promise<{ code: number | string | null; printed: string; module: string }> {
  const other = await tempSite({ 'content/posts/uno.es.md': md({ title: 'Uno' }) });
  let dev: ChildProcess | undefined;
  try {
    // Its own process group: a dev that never stops (it did) is killed with everything it started.
    const started = await startDev(other.root, true);
    dev = started.dev;
    await until(
      'the dev server',
      async () => (started.printed().includes('✓ serving') ? true : undefined),
      60_000,
    );
    const config = await readFile(join(other.root, 'site.config.ts'), 'utf8');
    await other.write('content/posts/dos.es.md', md({ title: 'Dos, a medio hacer' }));
    await other.write(
      'site.config.ts',
      // (Its path spelled out: the build compiles the configuration into a cache of its own.)
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(other.root, 'reading'))}, '');\n${then}\n${config}`,
    );
    await until('the slow rebuild', async () => (existsSync(join(other.root, 'reading')) ? true : undefined));
    dev.kill('SIGTERM');
    const code = await exitWithin(dev, 30_000);
    return { code, printed: started.printed(), module: await dataLeft(other.root) };
  } finally {
    killGroup(dev);
    await other.dispose();
  }
}

// A save's rebuild still under way when dev is asked to stop: it ended after the stop had written the
// data into the module, handed its own data to the server and put the pointer back (a CI run left it so).
it("finishes a rebuild under way when it stops, and leaves that rebuild's /mcp data in the module", async () => {
  const { code, printed, module } = await stopDuringRebuild('await new Promise((r) => setTimeout(r, 1500));');
  expect(code).toBe(0);
  expect(printed).toContain('✓ rebuilt after');
  expect(module).toContain('"backend":"embedded"');
  expect(module).toContain('Dos, a medio hacer');
});

// One that never ends (its configuration never finishes loading) does not hold the stop for ever.
it('stops all the same when the rebuild under way never ends, and leaves the build before in the module', async () => {
  const { code, printed, module } = await stopDuringRebuild('await new Promise(() => {});');
  expect(code).toBe(0);
  expect(printed).toContain('! the rebuild under way did not end within 10 s; stopping without it');
  expect(module).toContain('"backend":"embedded"');
});

it('serves every one of ten saves by rename and ten in place within a second, naming the file', async () => {
  const file = join(site.root, 'content/posts/primero.es.md');
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const title = `Primero ${i}`;
    const saved = Date.now();
    if (i < 10) {
      // As sed -i does: a temporary file in the same folder, renamed over the original.
      const temporary = join(site.root, `content/posts/sed${String(i).padStart(6, 'X')}`);
      await writeFile(temporary, md({ title }));
      await rename(temporary, file);
    } else {
      await writeFile(file, md({ title }));
    }
    await until(`save ${i}`, async () => ((await titles()).includes(title) ? true : undefined), 5000);
    times.push(Date.now() - saved);
  }
  console.info(`dev: saves served after ${times.join(', ')} ms`);
  for (const [i, ms] of times.entries()) expect(ms, `save ${i}`).toBeLessThanOrEqual(1000);
  const rebuilt = stdout.split('\n').filter((l) => l.includes('rebuilt after'));
  expect(rebuilt.length).toBeGreaterThanOrEqual(20);
  expect(stdout).toContain('rebuilt after a change to content/posts/primero.es.md');
  expect(stdout).not.toMatch(/sed[X0-9]{6}/); // never the temporary file
  for (const line of rebuilt)
    expect(line).toMatch(
      /after (a change to )?(content\/posts\/\w+\.es\.md|_headers|_redirects|site\.config\.ts|content:)/,
    );
});

it('does not rebuild on its own writes (the output folder, .content-index/)', async () => {
  const count = () => stdout.split('\n').filter((l) => l.includes('rebuilt after')).length;
  // Settled first (a save may be followed by one more rebuild that makes sure the last write was read)…
  let settled = count();
  for (let quiet = 0; quiet < 10; quiet++) {
    await new Promise((r) => setTimeout(r, 300));
    if (count() === settled) break;
    settled = count();
  }
  // …then quiet: a watcher that saw its own writes would set off one rebuild after another.
  await new Promise((r) => setTimeout(r, 1500));
  expect(count()).toBe(settled);
  expect(existsSync(join(site.root, 'public/api/v1/content.json'))).toBe(true);
});

it('keeps serving and rebuilding while 300 nested folders are created and deleted', async () => {
  const base = join(site.root, 'content/posts/churn');
  // Each chain of 10 nested folders is deleted as soon as it is made: the watcher meets folders that
  // are gone by the time it reads them (Node's recursive fs.watch threw ENOENT here and dev died).
  for (let round = 0; round < 5; round++) {
    for (let chain = 0; chain < 30; chain++) {
      const top = join(base, `r${round}c${chain}`);
      const deepest = join(top, ...Array.from({ length: 9 }, (_, d) => `d${d}`));
      mkdirSync(deepest, { recursive: true });
      writeFileSync(join(deepest, 'p.es.md'), md({ title: `Churn ${round} ${chain}` }));
      rmSync(top, { recursive: true, force: true });
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  // And once more with the folders left in place a moment, so their posts are built, then removed.
  for (let chain = 0; chain < 30; chain++) {
    const deepest = join(base, `kept${chain}`, ...Array.from({ length: 9 }, (_, d) => `d${d}`));
    await mkdir(deepest, { recursive: true });
    if (chain % 10 === 0) await writeFile(join(deepest, `p${chain}.es.md`), md({ title: `Kept ${chain}` }));
  }
  await until('the posts in the nested folders', async () =>
    (await titles()).filter((t) => t.startsWith('Kept')).length === 3 ? true : undefined,
  );
  await rm(base, { recursive: true, force: true });
  expect(child.exitCode).toBeNull();
  await site.write('content/posts/despues.es.md', md({ title: 'Después' }));
  await until('an edit after the churn', async () =>
    (await titles()).includes('Después') ? true : undefined,
  );
  await until('the churn gone from the index', async () =>
    (await titles()).some((t) => t.startsWith('Churn') || t.startsWith('Kept')) ? undefined : true,
  );
  expect(child.exitCode).toBeNull();
  // A half-written file may fail one rebuild (the next one, on its next event, passes); nothing worse.
  expect(stderr).not.toMatch(/internal error|ENOENT|could not be read|\n\s+at /);
});

it('keeps the last good build while the content folder is away, and notices it coming back without an edit', async () => {
  const served = await titles();
  await rename(join(site.root, 'content'), join(site.root, 'content-aside'));
  // An empty index is never served by accident: the missing folder is an error, the last build stays.
  await until('the missing folder named', async () =>
    stderr.includes('content: does not exist') ? true : undefined,
  );
  expect(await titles()).toEqual(served);
  // Back as it was, files and all: the folder itself is the change dev rebuilds for.
  const printed = stdout.length;
  await rename(join(site.root, 'content-aside'), join(site.root, 'content'));
  await until('a rebuild for the folder that came back', async () =>
    /✓ rebuilt after a change to content\b/.test(stdout.slice(printed)) ? true : undefined,
  );
  expect(await titles()).toEqual(served);
  // Away again, a post is written where no watcher looks; back, it is served without an edit.
  await rename(join(site.root, 'content'), join(site.root, 'content-aside'));
  await writeFile(join(site.root, 'content-aside/posts/vuelta.es.md'), md({ title: 'De vuelta' }));
  await rename(join(site.root, 'content-aside'), join(site.root, 'content'));
  await until('the folder back, with the post written while it was away', async () =>
    (await titles()).includes('De vuelta') ? true : undefined,
  );
  expect(await titles()).toEqual([...served, 'De vuelta'].sort());
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

it('serves changes to the root _headers and _redirects (wrangler re-reads the switched files)', async () => {
  const header = async () => (await fetch(`${url}/openapi.json`)).headers.get('x-author') ?? undefined;
  await site.write('_headers', '/*\n  X-Author: one\n');
  await until('the first header', async () => ((await header()) === 'one' ? true : undefined));
  await site.write('_headers', '/*\n  X-Author: two\n');
  await until('the changed header', async () => ((await header()) === 'two' ? true : undefined));

  await site.write('_redirects', '/viejo /nuevo 301\n');
  await until(
    'the new redirect',
    async () => {
      const response = await fetch(`${url}/viejo`, { redirect: 'manual' });
      return response.status === 301 ? true : undefined;
    },
    60_000,
  );
  await site.write('_redirects', '/viejo /otro 302\n');
  // As patient as for the first redirect: wrangler's own watcher of _redirects decides when it re-reads.
  await until(
    'the changed redirect',
    async () => {
      const response = await fetch(`${url}/viejo`, { redirect: 'manual' });
      return response.status === 302 ? true : undefined;
    },
    60_000,
  );
});

it.each([
  ['.', 'is the project root'],
  ['content/public', 'is inside the content folder'],
])('refuses the output folder %s before it builds or serves anything', async (out, reason) => {
  const other = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  try {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const dev = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/content-index.js'), 'dev', '--out', out], {
        cwd: other.root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      dev.stderr.on('data', (c) => (text += c));
      // 'close': its stderr read to the end, which 'exit' may come before.
      dev.once('close', (code) => resolve({ code, stderr: text }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`out: ${reason}`);
    expect(await readdir(other.root)).not.toContain('.content-index');
  } finally {
    await other.dispose();
  }
});

it('takes wrangler down with it when it is killed (SIGKILL): nothing keeps serving', async () => {
  wranglerPids = child.pid ? (await descendants(child.pid)).map((p) => p.pid) : [];
  if (existsSync('/proc')) expect(wranglerPids.length).toBeGreaterThan(0);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  // No request first: an orphaned wrangler dies on its first write to the dead parent's pipe, which a
  // request would cause; left alone it keeps serving.
  if (wranglerPids.length > 0)
    await until(
      'every process dev started to end',
      async () => (wranglerPids.some(running) ? undefined : true),
      15_000,
    );
  else await new Promise((r) => setTimeout(r, 5000));
  const answered = await fetch(`${url}/api/v1/content.json`).then(
    () => true,
    () => false,
  );
  expect(answered).toBe(false);
});
