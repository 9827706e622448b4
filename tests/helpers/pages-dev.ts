import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../../build/runtime/devtools-quiet.ts';
import { compatibilityArgs } from '../../build/runtime/wrangler.ts';
import { installFunctions } from './functions.ts';
import { PROJECT_ROOT } from './site.ts';

export interface PagesDev {
  url: string;
  /** wrangler's DevTools port (bench/load.ts turns DevTools network recording off through it). */
  inspectorPort: number;
  /** Everything wrangler printed, for assertions on Function invocations and for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A loopback port free when asked (dev picks wrangler's inspector port the same way). */
export const freePort = freeLoopbackPort;

/**
 * Serves `dir` with `wrangler pages dev` (workerd, the runtime Cloudflare Pages runs) from the project
 * root, so the project's functions/ and wrangler.toml apply. Resolves once a request gets an answer.
 */
export async function startPagesDev(
  dir: string,
  extraArgs: string[] = [],
  /** Run from this folder instead: its functions/ and wrangler.toml apply (none: a plain static site). */
  cwd = PROJECT_ROOT,
  /** A site's own wrangler (its bin/wrangler.js) instead of this repository's. */
  wrangler = join(PROJECT_ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
  /**
   * `persistTo`: wrangler's state folder (local D1 lives there), one the caller made and imported into,
   * kept on stop. `port`: this port and no other (tests of the helper itself); not tried again.
   */
  { persistTo, port }: { persistTo?: string; port?: number } = {},
): Promise<PagesDev> {
  // A free port is free only until someone takes it: another test's wrangler and workerd bind ports of
  // their own meanwhile (workerd once failed on "Address already in use" for its own port). Such a
  // start is tried again on other ports; any other failure is reported at once.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPagesDevOnce(dir, extraArgs, cwd, wrangler, persistTo, port);
    } catch (error) {
      const taken = error instanceof Error && /Address already in use|EADDRINUSE/.test(error.message);
      if (!taken || attempt >= 3 || port !== undefined) throw error;
    }
  }
}

async function startPagesDevOnce(
  dir: string,
  extraArgs: string[],
  cwd: string,
  wrangler: string,
  persistTo: string | undefined,
  asked: number | undefined,
): Promise<PagesDev> {
  const [port, inspectorPort] = [asked ?? (await freePort()), await freePort()];
  const state = persistTo ?? (await mkdtemp(join(tmpdir(), 'content-index-wrangler-')));
  let log = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [
      wrangler,
      'pages',
      'dev',
      dir,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      state,
      '--show-interactive-dev-session=false',
      ...compatibilityArgs(cwd),
      ...extraArgs,
    ],
    {
      cwd,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk) => (log += chunk));
  child.stderr?.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  // Whatever answers on the port is not proof enough: when two starts were given the same free port,
  // the second one's wrangler fails on "Address already in use" while the first one's server answers
  // its probe, and the test then ran against another site (live-check.test.ts did, once, in CI). So
  // it is ready when its own wrangler says so, for this port, and then answers.
  const ready = `Ready on ${url}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    if (!persistTo) await rm(state, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (log.includes(ready)) {
      try {
        // Bounded: whatever holds the port may accept and never answer.
        await fetch(`${url}/__content-index-ready`, { signal: AbortSignal.timeout(5000) });
        return { url, inspectorPort, output: () => log, stop };
      } catch {
        // Not answering yet: asked again below.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`wrangler pages dev did not start:\n${log}`);
}

/**
 * Serves a project of its own (a temporary site, built): this checkout's Functions are installed into it
 * first (functions.ts), so they bundle that project's `.content-index/worker/` data module.
 */
export async function startProjectPagesDev(
  dir: string,
  extraArgs: string[],
  root: string,
  options: { persistTo?: string } = {},
): Promise<PagesDev> {
  await installFunctions(root);
  return startPagesDev(dir, extraArgs, root, undefined, options);
}
