/**
 * `npm run bench`: builds deterministic synthetic sites of 1,000 and 10,000 items with content-index
 * and, when `hugo` is on the PATH, with Hugo into the same JSON index (bench/hugo.ts); measures whole
 * processes (wall and peak memory), each stage, the dev loop from a save to the served edit, the MCP
 * server and a load test. Prints tables and writes the same figures to bench/results/latest.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BuildReport } from '../build/report.ts';
import { freePort } from '../tests/helpers/pages-dev.ts';
import { D1_SITE_WRANGLER } from './_built-site.ts';
import { type DevHugoFigures, devHugoBench, devHugoLines } from './dev-hugo.ts';
import { writeSite } from './generate-site.ts';
import { hugoProject, hugoVersion, sameIndex } from './hugo.ts';
import { type LoadFigures, loadLines, loadTest } from './load.ts';
import { type McpFigures, mcpBench, mcpRows, mcpVerdicts } from './mcp.ts';
import { measure, median, type Run } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DEV_RUNS = Number(process.env.BENCH_DEV_RUNS ?? 10);
/** `BENCH_ONLY=builds` (or `builds,dev`) skips the rest: the MCP server and the load test. */
const ONLY = process.env.BENCH_ONLY?.split(',');
const BIN = join(ROOT, 'bin/content-index.js');

type Stages = BuildReport['timings'];

/** One way of building, over RUNS runs: medians, and the largest peak. */
export interface BuildFigures {
  ms: number;
  runs: number[];
  peakRssMiB: number;
  stagesMs: Stages;
}

export interface SizeFigures {
  items: number;
  files: number;
  hugo?: BuildFigures & { version: string; sameIndex: boolean };
  /** No `.content-index/` at all: a first build, or CI without a restored cache. */
  cold: BuildFigures;
  /** The parse cache and the compiled configuration from the build before, and one file edited since. */
  edited: BuildFigures;
  /** The same, nothing changed since the build before. */
  unchanged: BuildFigures;
  contentJson: { bytes: number; gzipBytes: number };
}

function figures(runs: Run[], reports: (BuildReport | undefined)[]): BuildFigures {
  const stage = (name: keyof Stages) => median(reports.map((r) => r?.timings[name] ?? 0));
  return {
    ms: median(runs.map((r) => r.ms)),
    runs: runs.map((r) => Math.round(r.ms)),
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    stagesMs: {
      config: stage('config'),
      load: stage('load'),
      assemble: stage('assemble'),
      render: stage('render'),
      mcp: stage('mcp'),
      write: stage('write'),
    },
  };
}

async function measureSize(items: number, workdir: string): Promise<SizeFigures> {
  const site = join(workdir, `site-${items}`);
  // `auto`, as a growing site would set it: the MCP data is embedded at 1,000 items and in D1 at 10,000
  // (past the embedded ceiling, where `embedded` is refused), so the build writes its SQL instead.
  const files = await writeSite(site, {
    items,
    seed: 7,
    config: { mcp: { backend: 'auto' } },
    wrangler: D1_SITE_WRANGLER,
  });
  const version = hugoVersion();
  const hugo = version ? await hugoProject(workdir, site) : undefined;
  const build = () => measure(process.execPath, [BIN, 'build', '--json'], site);
  const report = (run: Run) => JSON.parse(run.stdout) as BuildReport;
  // The file each `edited` build follows: its title changes every time (and its size with it).
  const edited = join(site, 'content/posts/post-00000.es.md');
  const original = await readFile(edited, 'utf8');
  const cold = async () => {
    await rm(join(site, '.content-index'), { recursive: true, force: true });
    await rm(join(site, 'public'), { force: true });
    return build();
  };
  // Warm the page cache (both tools read the same files) and the tools' own files.
  await hugo?.build();
  await cold();
  await build();
  const runs = { hugo: [] as Run[], cold: [] as Run[], edited: [] as Run[], unchanged: [] as Run[] };
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so drift in the machine's load hits every one alike.
    if (hugo) runs.hugo.push(await hugo.build());
    runs.cold.push(await cold());
    const marker = `Editado ${i} ${'x'.repeat(i)}`;
    await writeFile(edited, original.replace(/^title: .*$/m, `title: "${marker}"`));
    const run = await build();
    const served = await readFile(join(site, 'public/api/v1/content.json'), 'utf8');
    if (!served.includes(marker)) throw new Error('the edited build did not publish the edit');
    runs.edited.push(run);
    runs.unchanged.push(await build());
  }
  // The same sources for both tools once more, to compare what they published.
  await writeFile(edited, original);
  let same = false;
  if (hugo) {
    await hugo.build();
    await build();
    same = await sameIndex(hugo.out, join(site, 'public'));
  }
  const last = report(runs.unchanged.at(-1) as Run);
  const content = last.files.find((f) => f.path === 'api/v1/content.json');
  return {
    items,
    files,
    ...(hugo &&
      version && {
        hugo: {
          ...figures(runs.hugo, []),
          version,
          sameIndex: same,
        },
      }),
    cold: figures(runs.cold, runs.cold.map(report)),
    edited: figures(runs.edited, runs.edited.map(report)),
    unchanged: figures(runs.unchanged, runs.unchanged.map(report)),
    contentJson: { bytes: content?.bytes ?? 0, gzipBytes: content?.gzipBytes ?? 0 },
  };
}

export interface DevFigures {
  items: number;
  medianMs: number;
  runs: number[];
}

/** Save-to-served latency of `content-index dev`: edit one file, poll the index until the edit shows. */
async function measureDevLoop(items: number, runs: number, workdir: string): Promise<DevFigures> {
  const site = join(workdir, `dev-${items}`);
  // As the build measurements: past the embedded ceiling (10,000 items) the MCP data goes to D1, and dev
  // imports each build into wrangler's local D1 after the edit is served.
  await writeSite(site, {
    items,
    seed: 11,
    config: { mcp: { backend: 'auto' } },
    wrangler: D1_SITE_WRANGLER,
  });
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'dev', '--port', String(port)], {
    cwd: site,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  let log = '';
  child.stdout.on('data', (c) => (log += c));
  child.stderr.on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}/api/v1/content.json`;
  const until = async (done: () => boolean, what: string, ms = 120_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`dev: ${what}:\n${log}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    await until(() => log.includes('✓ serving'), 'did not start');
    const settled = () => {
      // Every rebuild finished, and its local D1 import too when it has one.
      const rebuilt = log.split('✓ rebuilt').length + log.split('✗ rebuilt').length;
      const imports = log.split('D1 (local)').length;
      return { rebuilt, imports };
    };
    const times: number[] = [];
    const file = join(site, 'content/posts/post-00000.es.md');
    const original = await readFile(file, 'utf8');
    for (let i = 0; i < runs; i++) {
      const before = settled();
      const marker = `Editado ${i} ${Date.now()}`;
      const started = performance.now();
      await writeFile(file, original.replace(/^title: .*$/m, `title: "${marker}"`));
      for (;;) {
        const body = await (await fetch(url)).text();
        if (body.includes(marker)) break;
        if (performance.now() - started > 60_000) throw new Error(`edit never served:\n${log}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      times.push(performance.now() - started);
      // The next save waits for this one's rebuild (and D1 import) to finish, as an author's would.
      await until(() => settled().rebuilt > before.rebuilt, 'the rebuild never finished');
      if (log.includes('D1 (local)') || items > 6000)
        await until(() => settled().imports > before.imports, 'the local D1 import never finished');
      await new Promise((r) => setTimeout(r, 200));
    }
    return { items, medianMs: median(times), runs: times.map((t) => Math.round(t)) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';
const STAGES = ['config', 'load', 'assemble', 'render', 'mcp', 'write'] as const;

/** `2,800 ms (0.78× Hugo)`, or without Hugo the milliseconds alone. */
function versusHugo(ours: BuildFigures, hugo: BuildFigures | undefined): string {
  return hugo ? `${fmt(ours.ms)} (${fmt(ours.ms / hugo.ms, 2)}×)` : fmt(ours.ms);
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

async function main(): Promise<void> {
  const workdir = await mkdtemp(join(tmpdir(), 'content-index-bench-'));
  const results: SizeFigures[] = [];
  const dev: DevFigures[] = [];
  let mcp: McpFigures | undefined;
  let load: LoadFigures | undefined;
  let devHugo: DevHugoFigures | undefined;
  try {
    for (const items of SIZES) {
      process.stderr.write(`measuring ${items} items…\n`);
      results.push(await measureSize(items, workdir));
    }
    if (!ONLY || ONLY.includes('dev')) {
      for (const items of SIZES) {
        process.stderr.write(`measuring the dev loop at ${items} items…\n`);
        dev.push(await measureDevLoop(items, DEV_RUNS, workdir));
      }
      process.stderr.write('measuring dev --hugo (a save to its page and index entry served)…\n');
      devHugo = await devHugoBench();
    }
    if (!ONLY) {
      process.stderr.write('measuring the MCP server…\n');
      mcp = await mcpBench(workdir);
      process.stderr.write('load test against wrangler pages dev…\n');
      load = await loadTest(workdir);
    }
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
  const hugo = results.find((r) => r.hugo)?.hugo;
  const stages = (f: BuildFigures) => STAGES.map((s) => fmt(f.stagesMs[s])).join(' / ');
  const rows = [
    ['items', ...results.map((r) => fmt(r.items))],
    ['source files', ...results.map((r) => fmt(r.files))],
    ...(hugo
      ? [
          [
            `${hugo.version}: wall, whole process (ms, median)`,
            ...results.map((r) => fmt(r.hugo?.ms ?? Number.NaN)),
          ],
          ['… its peak memory (MiB)', ...results.map((r) => fmt(r.hugo?.peakRssMiB ?? Number.NaN))],
          [
            "… its index: content-index's items and counts",
            ...results.map((r) => (r.hugo?.sameIndex ? 'same' : 'DIFFERENT')),
          ],
        ]
      : []),
    [
      `cold build (no .content-index/): wall (ms${hugo ? ', × Hugo' : ''})`,
      ...results.map((r) => versusHugo(r.cold, r.hugo)),
    ],
    [
      `cached build, one file edited: wall (ms${hugo ? ', × Hugo' : ''})`,
      ...results.map((r) => versusHugo(r.edited, r.hugo)),
    ],
    [
      `cached build, nothing changed: wall (ms${hugo ? ', × Hugo' : ''})`,
      ...results.map((r) => versusHugo(r.unchanged, r.hugo)),
    ],
    [
      'peak memory (MiB): cold / edited / unchanged',
      ...results.map((r) => [r.cold, r.edited, r.unchanged].map((f) => fmt(f.peakRssMiB)).join(' / ')),
    ],
    [`stages, cold: ${STAGES.join(' / ')} (ms)`, ...results.map((r) => stages(r.cold))],
    [`stages, edited: ${STAGES.join(' / ')} (ms)`, ...results.map((r) => stages(r.edited))],
    [
      'content.json raw / gzip (KiB)',
      ...results.map((r) => `${fmt(r.contentJson.bytes / 1024)} / ${fmt(r.contentJson.gzipBytes / 1024)}`),
    ],
    ...(dev.length > 0
      ? [
          [
            'dev: save → edit served (ms, median)',
            ...results.map((r) => fmt(dev.find((d) => d.items === r.items)?.medianMs ?? Number.NaN)),
          ],
        ]
      : []),
  ];
  console.log(
    `median of ${RUNS} runs each (dev: ${DEV_RUNS} saves), whole processes, Node ${process.version}\n`,
  );
  printTable(rows);
  if (mcp) {
    // Its own sites (bench/mcp.ts DEFAULT_MCP_OPTIONS): embedded at 1k and 5k with and without bodies and
    // at 500 with, D1 at 10k with and without and 50k without; the worst requests at the largest embedded
    // sites and on D1.
    console.log('');
    for (const block of [
      mcpRows({ ...mcp, d1: [], worst: [] }),
      mcpRows({ ...mcp, embedded: [], worst: [] }),
      mcpRows({ ...mcp, embedded: [], d1: [] }),
    ]) {
      if (block.length > 0) printTable(block);
    }
  }
  console.log('');
  for (const r of results) {
    const ratio = (f: BuildFigures) => (r.hugo ? f.ms / r.hugo.ms : Number.NaN);
    if (r.items >= 10_000) {
      if (r.hugo)
        console.log(
          `${fmt(r.items)} items: cached build ${fmt(ratio(r.edited), 2)}× Hugo after an edit, ${fmt(ratio(r.unchanged), 2)}× unchanged, ${fmt(ratio(r.cold), 2)}× cold (target ≤ 0.40×): ${verdict(ratio(r.edited) <= 0.4)} cached, ${verdict(ratio(r.cold) <= 0.4)} cold`,
        );
      const peak = Math.max(r.cold.peakRssMiB, r.edited.peakRssMiB);
      console.log(
        `${fmt(r.items)} items: peak memory ${fmt(peak)} MiB (target < 300): ${verdict(peak < 300)}`,
      );
    }
    if (r.items === 1000)
      console.log(
        `1,000 items: ${fmt(r.edited.ms)} ms cached after an edit, ${fmt(r.cold.ms)} ms cold (target ≤ 500): ${verdict(r.edited.ms <= 500)} cached, ${verdict(r.cold.ms <= 500)} cold`,
      );
  }
  for (const d of dev) {
    const target = d.items >= 10_000 ? 300 : 100;
    console.log(
      `dev, ${fmt(d.items)} items: an edit is served ${fmt(d.medianMs)} ms after the save (median of ${d.runs.length}; target ≤ ${target}): ${verdict(d.medianMs <= target)}`,
    );
  }
  if (results.length >= 2) {
    const [small, large] = [results[0] as SizeFigures, results[results.length - 1] as SizeFigures];
    const scale = large.items / small.items;
    for (const kind of ['cold', 'edited'] as const) {
      const growth = (s: (typeof STAGES)[number]) =>
        large[kind].stagesMs[s] / Math.max(small[kind].stagesMs[s], 0.01);
      console.log(
        `scaling ${fmt(small.items)} → ${fmt(large.items)} items (×${scale}), ${kind}: build ×${fmt(large[kind].ms / small[kind].ms, 1)}, ${STAGES.map((s) => `${s} ×${fmt(growth(s), 1)}`).join(', ')}` +
          ` (no stage faster than linear: ${verdict(STAGES.every((s) => growth(s) <= scale * 1.1))})`,
      );
    }
  }
  if (devHugo || !ONLY || ONLY.includes('dev')) for (const line of devHugoLines(devHugo)) console.log(line);
  if (mcp) for (const line of mcpVerdicts(mcp)) console.log(line);
  if (load) for (const line of loadLines(load)) console.log(line);
  if (load?.runs.some((r) => !r.ok)) process.exitCode = 1;
  const out = join(ROOT, 'bench/results');
  await mkdir(out, { recursive: true });
  await writeFile(
    join(out, 'latest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results, dev, devHugo, mcp, load }, null, 2)}\n`,
  );
  console.log('\nfigures written to bench/results/latest.json');
}

function printTable(rows: string[][]): void {
  const width = rows
    .map((r) => r.map((c) => c.length))
    .reduce((a, b) => a.map((w, i) => Math.max(w, b[i] ?? 0)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(width[i] ?? 0) : c.padStart(width[i] ?? 0))).join(' | ')} |`;
  const [head, ...body] = rows;
  console.log(line(head ?? []));
  console.log(`| ${width.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`);
  for (const row of body) console.log(line(row));
}

await main();
