/**
 * `content-index dev --hugo` in a Hugo site as `init` sets it up: the time from a save to the moment
 * the served index lists the saved post AND its page answers with it (issue 22: within a second).
 * tests/commands/dev-hugo.test.ts holds the order (never an entry whose page is missing); this bench
 * measures how long it takes, which a test on a shared machine cannot judge.
 *
 * Run alone: `npx tsx bench/dev-hugo.ts` (BENCH_DEV_HUGO_SAVES=20 by default). Needs `hugo` on the PATH.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HUGO, hugoSite, userEnv } from '../tests/helpers/hugo-site.ts';
import { freePort } from '../tests/helpers/pages-dev.ts';
import { md } from '../tests/helpers/site.ts';

export interface DevHugoFigures {
  hugo: string;
  saves: number[];
}

const TARGET_MS = 1000;
/** Between saves, in turn. */
const PAUSES_MS = [300, 1500, 2500, 4000];

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`dev --hugo bench: timed out waiting for ${what}`);
}

/** Saves `count` times (new posts, edits, renames, in turn) and times each save until served. */
export async function devHugoBench(count = 20): Promise<DevHugoFigures | undefined> {
  if (!HUGO) return undefined;
  const site = await hugoSite('es-en-long-title-static-files', 'apuntes-bench');
  let child: ChildProcess | undefined;
  try {
    const init = await site.sh(process.execPath, ['node_modules/.bin/content-index', 'init']);
    if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let log = '';
    child = spawn(
      process.execPath,
      ['node_modules/.bin/content-index', 'dev', '--hugo', '--port', String(port)],
      {
        cwd: site.root,
        env: userEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (c) => (log += c));
    child.stderr?.on('data', (c) => (log += c));
    await until('the dev server', async () => (log.includes('✓ serving') ? true : undefined), 120_000);
    const listed = async (title: string) => {
      const response = await fetch(`${url}/api/v1/content.json`, {
        headers: { 'cache-control': 'no-cache' },
      });
      const body = (await response.json()) as { content: { title: string; url: string }[] };
      const item = body.content.find((c) => c.title === title);
      return item && new URL(item.url).pathname;
    };
    const served = async (path: string, title: string) => {
      const response = await fetch(`${url}${path}`);
      return response.status === 200 && (await response.text()).includes(`<h1>${title}</h1>`);
    };
    const file = (name: string) => join(site.root, 'content/posts', `${name}.md`);
    const saves: number[] = [];
    for (let n = 0; n < count; n++) {
      const kind = n % 3;
      const title = kind === 0 ? `Nuevo ${n}` : kind === 1 ? `Editado ${n - 1}` : `Editado ${n - 2}`;
      const started = performance.now();
      if (kind === 0) await writeFile(file(`bench-${n}`), md({ title }));
      else if (kind === 1) await writeFile(file(`bench-${n - 1}`), md({ title }));
      else await rename(file(`bench-${n - 2}`), file(`renombrado-${n - 2}`));
      const gone = kind === 2 ? `/posts/bench-${n - 2}/` : undefined;
      await until(`save ${n}`, async () => {
        const path = await listed(title);
        return path && path !== gone && (await served(path, title)) ? true : undefined;
      });
      saves.push(performance.now() - started);
      // The next save comes after this one settled, as an author's next save would, after pauses of
      // several lengths: one that lasts past dev's idle time (1 s) lands while wrangler reloads the
      // Function for the /mcp data written then, and waits for it.
      await new Promise((r) => setTimeout(r, PAUSES_MS[n % PAUSES_MS.length]));
    }
    return { hugo: HUGO, saves };
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child?.once('exit', r));
    }
    await site.dispose();
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/** The bench's lines: median, p95 and worst save, with the verdict against the one-second target. */
export function devHugoLines(figures: DevHugoFigures | undefined): string[] {
  if (!figures) return ['dev --hugo save → page and index served: skipped (hugo is not on the PATH)'];
  const sorted = [...figures.saves].sort((a, b) => a - b);
  const worst = sorted.at(-1) ?? Number.NaN;
  const p95 = quantile(sorted, 0.95);
  const verdict = worst <= TARGET_MS ? 'met' : p95 <= TARGET_MS ? 'missed by its worst save' : 'MISSED';
  return [
    `dev --hugo (${figures.hugo}), ${sorted.length} saves (new post, edit, rename) → page and index entry served:`,
    `  median ${quantile(sorted, 0.5).toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, worst ${worst.toFixed(0)} ms; target ≤ ${TARGET_MS} ms each: ${verdict}`,
  ];
}

if (process.argv[1] === import.meta.filename) {
  const count = Number(process.env.BENCH_DEV_HUGO_SAVES ?? 20);
  for (const line of devHugoLines(await devHugoBench(count))) console.log(line);
}
