/**
 * MCP figures for `npm run bench`, measured on the code the `/mcp` Function runs: the project's Functions
 * compiled by wrangler into the deployed Worker script, called in Node with the Requests a 2026-07-28
 * client sends (stateless `tools/call` of `search_content`) and an `env.ASSETS` that serves the built
 * `public/`. Each sample runs in a fresh process (bench/_mcp-sample.mjs).
 *
 * - cold first call: a fresh process per sample, timed from the first Request (before the data file is
 *   fetched) to the last byte of its Response: data fetch and parse, index load, server set-up, the call.
 * - warm calls: one process, after a warm-up, each call timed from Request to the last byte of the body,
 *   over the queries of bench/_mcp-requests.ts in turn; and the same calls one level lower, on the tool
 *   function alone (bench/_mcp-tool-sample.ts), to tell the search from the protocol handling around it.
 *
 * `BENCH_MCP_PROFILE=DIR` writes a `node --cpu-prof` profile of every sample into DIR.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtSyntheticSite, functionsWorker, ROOT } from './_built-site.ts';
import { SEARCH_QUERIES, toolCallBody, toolCallHeaders, WORST_CASE_QUERY } from './_mcp-requests.ts';

export interface McpFigures {
  items: number;
  /** `public/mcp/data.json`: what a cold isolate fetches and parses. */
  dataBytes: number;
  /** `retainedMiB`: the heap the loaded data and index keep (Workers allow an isolate 128 MB). */
  cold: { runs: number[]; medianMs: number; assetMedianMs: number; retainedMiB: number };
  /** `worstCaseMedianMs`: a word in every item (WORST_CASE_QUERY), which no query set above has. */
  warm: {
    calls: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    worstCaseMedianMs: number;
    /** The same calls on the tool function alone (bench/_mcp-tool-sample.ts): the part that is search. */
    tool: { p50Ms: number; p99Ms: number };
  };
}

export interface McpOptions {
  coldRuns: number;
  warmCalls: number;
}

/** The synthetic sites' hosts are example.com; loopback is what `wrangler pages dev` is reached on. */
const ENDPOINT = 'http://127.0.0.1:8788/mcp';

/** Builds the Worker once and a synthetic site per size, then measures each. */
export async function mcpBench(
  workdir: string,
  sizes: readonly number[],
  options: McpOptions = { coldRuns: 7, warmCalls: 2000 },
): Promise<McpFigures[]> {
  const worker = await functionsWorker(join(workdir, 'mcp-worker'));
  const figures: McpFigures[] = [];
  for (const items of sizes) {
    const publicDir = await builtSyntheticSite(join(workdir, `mcp-site-${items}`), items);
    figures.push(await measureMcp(worker, publicDir, items, workdir, options));
  }
  return figures;
}

/** Table rows for bench/run.ts: a label, then one cell per size. */
export function mcpRows(figures: readonly McpFigures[]): string[][] {
  const cells = (f: (m: McpFigures) => number, digits: number) => figures.map((m) => f(m).toFixed(digits));
  const runs = figures[0]?.cold.runs.length ?? 0;
  const calls = figures[0]?.warm.calls ?? 0;
  return [
    ['MCP mcp/data.json (KiB)', ...cells((m) => m.dataBytes / 1024, 0)],
    [
      `MCP cold first search_content (ms, median of ${runs}; target < 50 at 1k)`,
      ...cells((m) => m.cold.medianMs, 1),
    ],
    ['  of which fetching mcp/data.json (ms)', ...cells((m) => m.cold.assetMedianMs, 1)],
    ['  heap kept by the loaded data and index (MiB)', ...cells((m) => m.cold.retainedMiB, 1)],
    [`MCP warm search_content p50 (ms, ${calls} calls)`, ...cells((m) => m.warm.p50Ms, 2)],
    ['MCP warm search_content p99 (ms, target < 5 at 10k)', ...cells((m) => m.warm.p99Ms, 2)],
    ['  the tool function alone, p50 (ms)', ...cells((m) => m.warm.tool.p50Ms, 2)],
    ['  the tool function alone, p99 (ms)', ...cells((m) => m.warm.tool.p99Ms, 2)],
    [
      `  a word in every item ("${WORST_CASE_QUERY.query}", ms, median)`,
      ...cells((m) => m.warm.worstCaseMedianMs, 2),
    ],
  ];
}

/** The targets, checked on the figures: cold first call at 1,000 items, warm p99 at 10,000. */
export function mcpVerdicts(figures: readonly McpFigures[]): string[] {
  const at = (items: number) => figures.find((m) => m.items === items);
  const lines: string[] = [];
  const small = at(1000);
  const large = at(10000);
  if (small) {
    const met = small.cold.medianMs < 50 ? 'met' : 'MISSED';
    lines.push(
      `MCP cold first search_content at 1000 items: ${small.cold.medianMs.toFixed(1)} ms (target < 50: ${met})`,
    );
  }
  if (large) {
    const met = large.warm.p99Ms < 5 ? 'met' : 'MISSED';
    lines.push(
      `MCP warm search_content p99 at 10000 items: ${large.warm.p99Ms.toFixed(2)} ms (target < 5: ${met})`,
    );
  }
  return lines;
}

export async function measureMcp(
  worker: string,
  publicDir: string,
  items: number,
  workdir: string,
  options: McpOptions,
): Promise<McpFigures> {
  const plan = join(workdir, 'mcp-requests.json');
  await writeFile(
    plan,
    JSON.stringify({
      url: ENDPOINT,
      headers: toolCallHeaders('search_content'),
      bodies: SEARCH_QUERIES.map((args, i) => toolCallBody(i + 1, 'search_content', args)),
      worst: toolCallBody(0, 'search_content', WORST_CASE_QUERY),
    }),
  );
  const dataBytes = (await stat(join(publicDir, 'mcp/data.json'))).size;
  const colds: { firstCallMs: number; assetMs: number; retainedBytes: number }[] = [];
  for (let i = 0; i < options.coldRuns; i++) {
    colds.push(JSON.parse(await sample(['cold', worker, publicDir, plan])));
  }
  const { timings, worst } = JSON.parse(
    await sample(['warm', worker, publicDir, plan, String(options.warmCalls)]),
  ) as { timings: number[]; worst: number[] };
  const { timings: toolTimings } = JSON.parse(
    await sample(['tool', join(publicDir, 'mcp/data.json'), String(options.warmCalls)]),
  ) as { timings: number[] };
  const sorted = [...timings].sort((a, b) => a - b);
  const toolSorted = [...toolTimings].sort((a, b) => a - b);
  return {
    items,
    dataBytes,
    cold: {
      runs: colds.map((c) => c.firstCallMs),
      medianMs: median(colds.map((c) => c.firstCallMs)),
      assetMedianMs: median(colds.map((c) => c.assetMs)),
      retainedMiB: median(colds.map((c) => c.retainedBytes)) / 2 ** 20,
    },
    warm: {
      calls: timings.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? 0,
      worstCaseMedianMs: median(worst),
      tool: { p50Ms: percentile(toolSorted, 0.5), p99Ms: percentile(toolSorted, 0.99) },
    },
  };
}

async function sample(args: string[]): Promise<string> {
  const profile = process.env.BENCH_MCP_PROFILE;
  if (profile) await mkdir(profile, { recursive: true });
  // workerd forbids code generation from strings; so does the sample, so that libraries take the path
  // they take on the platform (zod, for one, compiles its parsers with new Function where it may).
  const flags = [
    '--disallow-code-generation-from-strings',
    ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []),
  ];
  return new Promise((resolve, reject) => {
    const [mode, ...rest] = args;
    const script =
      mode === 'tool'
        ? ['--import', 'tsx', join(ROOT, 'bench/_mcp-tool-sample.ts'), ...rest]
        : ['--expose-gc', join(ROOT, 'bench/_mcp-sample.mjs'), ...args];
    const child = spawn(process.execPath, [...flags, ...script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`_mcp-sample.mjs ${args[0]} exited ${code}\n${stderr}`)),
    );
  });
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

// `npx tsx bench/mcp.ts`: the MCP figures alone (BENCH_SIZES as in bench/run.ts).
if (process.argv[1] === import.meta.filename) {
  const sizes = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
  const workdir = await mkdtemp(join(tmpdir(), 'content-index-bench-mcp-'));
  try {
    const figures = await mcpBench(workdir, sizes);
    for (const row of [['items', ...sizes.map(String)], ...mcpRows(figures)]) console.log(row.join('\t'));
    console.log(JSON.stringify(figures));
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
