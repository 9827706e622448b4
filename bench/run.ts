/**
 * `npm run bench`: builds deterministic synthetic sites of 1,000 and 10,000 items and measures the
 * build against the parse floor, memory, stage scaling, output sizes and the dev loop. Prints a table
 * and writes the same figures to bench/results/latest.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BuildReport } from '../build/report.ts';
import { freePort } from '../tests/helpers/pages-dev.ts';
import { D1_SITE_WRANGLER } from './_built-site.ts';
import { writeSite } from './generate-site.ts';
import { type LoadFigures, loadLines, loadTest } from './load.ts';
import { type McpFigures, mcpBench, mcpRows, mcpVerdicts } from './mcp.ts';

const ROOT = join(import.meta.dirname, '..');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

interface Run {
  ms: number;
  peakRssMiB: number;
  stdout: string;
}

function runNode(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', join(ROOT, 'bench/_peak-rss.mjs'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      // Worker threads inherit --import and report too, when they end; the main thread's last line is
      // the process's peak, but the largest is the safe reading either way.
      const rss = Math.max(0, ...[...stderr.matchAll(/peak-rss-kib=(\d+)/g)].map((m) => Number(m[1])));
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}\n${stderr}`));
      else resolve({ ms, peakRssMiB: rss / 1024, stdout });
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

export interface SizeFigures {
  items: number;
  files: number;
  floorMs: number;
  buildMs: number;
  ratio: number;
  peakRssMiB: number;
  stagesMs: BuildReport['timings'];
  contentJson: { bytes: number; gzipBytes: number };
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
  const bin = join(ROOT, 'bin/content-index.js');
  // Warm the page cache and tsx's transform cache; the target is a warm-cache build.
  await runNode([join(ROOT, 'bench/parse-floor.mjs'), site], ROOT);
  await runNode([bin, 'build', '--json'], site);
  const floors: number[] = [];
  const builds: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so drift in machine load hits both alike.
    floors.push((await runNode([join(ROOT, 'bench/parse-floor.mjs'), site], ROOT)).ms);
    builds.push(await runNode([bin, 'build', '--json'], site));
  }
  const reports = builds.map((b) => JSON.parse(b.stdout) as BuildReport);
  const last = reports[reports.length - 1] as BuildReport;
  const stage = (name: keyof BuildReport['timings']) => median(reports.map((r) => r.timings[name]));
  const content = last.files.find((f) => f.path === 'api/v1/content.json');
  const floorMs = median(floors);
  const buildMs = median(builds.map((b) => b.ms));
  return {
    items,
    files,
    floorMs,
    buildMs,
    ratio: buildMs / floorMs,
    peakRssMiB: Math.max(...builds.map((b) => b.peakRssMiB)),
    stagesMs: {
      config: stage('config'),
      load: stage('load'),
      assemble: stage('assemble'),
      render: stage('render'),
      write: stage('write'),
    },
    contentJson: { bytes: content?.bytes ?? 0, gzipBytes: content?.gzipBytes ?? 0 },
  };
}

/** Save-to-served latency of `content-index dev`: edit one file, poll the index until the edit shows. */
async function measureDevLoop(
  items: number,
  workdir: string,
): Promise<{ items: number; medianMs: number; runs: number[] }> {
  const site = join(workdir, `dev-${items}`);
  await writeSite(site, { items, seed: 11 });
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin/content-index.js'), 'dev', '--port', String(port)], {
    cwd: site,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (c) => (log += c));
  child.stderr.on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}/api/v1/content.json`;
  try {
    const ready = Date.now() + 60_000;
    while (!log.includes('✓ serving')) {
      if (Date.now() > ready) throw new Error(`dev did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const runs: number[] = [];
    const file = join(site, 'content/posts/post-00000.es.md');
    const { readFile } = await import('node:fs/promises');
    const original = await readFile(file, 'utf8');
    for (let i = 0; i < 5; i++) {
      const marker = `Editado ${i} ${Date.now()}`;
      const started = performance.now();
      await writeFile(file, original.replace(/^title: .*$/m, `title: "${marker}"`));
      for (;;) {
        const body = await (await fetch(url)).text();
        if (body.includes(marker)) break;
        if (performance.now() - started > 30_000) throw new Error('edit never served');
        await new Promise((r) => setTimeout(r, 5));
      }
      runs.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 300));
    }
    return { items, medianMs: median(runs), runs };
  } finally {
    child.kill('SIGTERM');
  }
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

async function main(): Promise<void> {
  const workdir = await mkdtemp(join(tmpdir(), 'content-index-bench-'));
  const results: SizeFigures[] = [];
  let dev: Awaited<ReturnType<typeof measureDevLoop>> | undefined;
  let mcp: McpFigures | undefined;
  let load: LoadFigures | undefined;
  try {
    for (const items of SIZES) {
      process.stderr.write(`measuring ${items} items…\n`);
      results.push(await measureSize(items, workdir));
    }
    process.stderr.write('measuring the dev loop at 1000 items…\n');
    dev = await measureDevLoop(1000, workdir);
    process.stderr.write('measuring the MCP server…\n');
    mcp = await mcpBench(workdir);
    process.stderr.write('load test against wrangler pages dev…\n');
    load = await loadTest(workdir);
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
  const rows = [
    ['items', ...results.map((r) => String(r.items))],
    ['source files', ...results.map((r) => String(r.files))],
    ['parse floor, whole process (ms, median)', ...results.map((r) => fmt(r.floorMs))],
    ['cold build, whole process (ms, median)', ...results.map((r) => fmt(r.buildMs))],
    ['build / floor (target ≤ 1.3 at 10k)', ...results.map((r) => fmt(r.ratio, 2))],
    ['peak memory (MiB, target < 300)', ...results.map((r) => fmt(r.peakRssMiB))],
    ...(['config', 'load', 'assemble', 'render', 'write'] as const).map((s) => [
      `  stage ${s} (ms)`,
      ...results.map((r) => fmt(r.stagesMs[s])),
    ]),
    ['content.json raw (KiB)', ...results.map((r) => fmt(r.contentJson.bytes / 1024))],
    ['content.json gzip (KiB)', ...results.map((r) => fmt(r.contentJson.gzipBytes / 1024))],
  ];
  printTable(rows);
  if (mcp) {
    // Its own sizes: the embedded backend at 1k and 5k, D1 at 10k and 50k; the worst requests at 6k and on D1.
    console.log('');
    for (const block of [
      mcpRows({ ...mcp, d1: [], worst: [] }),
      mcpRows({ ...mcp, embedded: [], worst: [] }),
      mcpRows({ ...mcp, embedded: [], d1: [] }),
    ]) {
      if (block.length > 0) printTable(block);
    }
  }
  if (results.length >= 2) {
    const [small, large] = [results[0] as SizeFigures, results[results.length - 1] as SizeFigures];
    const scale = large.items / small.items;
    console.log(
      `\nscaling ${small.items} → ${large.items} items (×${scale}): build ×${fmt(large.buildMs / small.buildMs, 1)}, ` +
        (['load', 'assemble', 'render', 'write'] as const)
          .map((s) => `${s} ×${fmt(large.stagesMs[s] / Math.max(small.stagesMs[s], 0.01), 1)}`)
          .join(', '),
    );
  }
  if (dev)
    console.log(
      `dev loop, ${dev.items} items: an edited file is served ${fmt(dev.medianMs)} ms after the save (median of ${dev.runs.length}; target < 1000)`,
    );
  if (mcp) for (const line of mcpVerdicts(mcp)) console.log(line);
  if (load) for (const line of loadLines(load)) console.log(line);
  if (load?.runs.some((r) => !r.ok)) process.exitCode = 1;
  const out = join(ROOT, 'bench/results');
  await mkdir(out, { recursive: true });
  await writeFile(
    join(out, 'latest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results, dev, mcp, load }, null, 2)}\n`,
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
