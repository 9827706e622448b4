/**
 * `npm run bench`: builds deterministic synthetic sites of 1,000 and 10,000 items with content-index
 * and, when `hugo` is on the PATH, with Hugo into the same JSON index (bench/hugo.ts); measures whole
 * processes (wall and peak memory), each stage, the dev loop from a save to the served edit, the MCP
 * server and a load test. Prints tables, then every target with its figure, its ratio to Hugo and a
 * verdict (a missed build target with its profile), and writes the figures to bench/results/latest.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BuildReport } from '../build/report.ts';
import { DEV_V8_FLAGS } from '../build/runtime/dev-process.ts';
import { RACY_MS } from '../build/stages/parse-cache.ts';
import { freePort } from '../tests/helpers/pages-dev.ts';
import { D1_SITE_WRANGLER } from './_built-site.ts';
import { monotonicUs, profileBuild, profilesIn, type Span, selfTimes } from './_profile.ts';
import { type DevHugoFigures, devHugoBench, devHugoLines } from './dev-hugo.ts';
import { writeSite } from './generate-site.ts';
import { hugoProject, hugoVersion, sameIndex } from './hugo.ts';
import { type LoadFigures, loadLines, loadTest } from './load.ts';
import { type McpFigures, mcpBench, mcpRows, mcpVerdicts } from './mcp.ts';
import { measure, median, percentile, processFloor, type Run, startCost, WITHOUT_ENV } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DEV_RUNS = Number(process.env.BENCH_DEV_RUNS ?? 20);
/** `BENCH_ONLY=builds` (or `builds,dev`) skips the rest: the MCP server and the load test. */
const ONLY = process.env.BENCH_ONLY?.split(',');
const BIN = join(ROOT, 'bin/content-index.js');
/**
 * `BENCH_NODES=/path/to/node,…`: other Node binaries the builds are measured on as well, each beside
 * this one in every round (a current LTS line, whose compile cache the bin turns on). The targets'
 * verdicts are this Node's; the others' are printed beside them.
 */
const OTHER_NODES = (process.env.BENCH_NODES ?? '').split(',').filter(Boolean).map(nodeAt);

/** A Node binary and the version it says it is; the bench stops, saying why, when it cannot run. */
function nodeAt(path: string): { path: string; version: string } {
  const asked = spawnSync(path, ['--version'], { encoding: 'utf8' });
  const version = asked.stdout?.trim() ?? '';
  if (asked.error || asked.status !== 0 || !version.startsWith('v'))
    throw new Error(`BENCH_NODES: ${path} does not run as a Node (\`${path} --version\` failed)`);
  return { path, version };
}

type Stages = BuildReport['timings'];

/**
 * Waits, after a site is generated, until its files are older than the racy window: a build reads a
 * file changed within RACY_MS of it again at the next build, by content. An author's files are that
 * old; a site just generated is not, and without the wait the first edited build of the 1k site read
 * all its 2,588 files again (587 ms against 350–367 for the next two, one run).
 */
function pastRacyWindow(): Promise<void> {
  return new Promise((r) => setTimeout(r, RACY_MS + 500));
}

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
  /** For each build whose target this size missed: its profile (bench/_profile.ts). */
  profiles: Partial<Record<BuildKind, string[]>>;
  /** The same builds on each of BENCH_NODES, in the same rounds. */
  others: OtherNodeFigures[];
}

export type OtherNodeFigures = Pick<SizeFigures, BuildKind> & { node: string };

type BuildKind = 'cold' | 'edited' | 'unchanged';

/** A build's target: at most this share of Hugo's build in the same run, or these milliseconds. */
interface BuildTarget {
  items: number;
  kind: BuildKind;
  label: string;
  ratio?: number;
  ms?: number;
}

const BUILD_TARGETS: BuildTarget[] = [
  { items: 10_000, kind: 'edited', label: '10k items, one file edited, with the cache', ratio: 0.3 },
  { items: 10_000, kind: 'unchanged', label: '10k items, nothing changed', ratio: 0.15 },
  { items: 10_000, kind: 'cold', label: '10k items, no cache (no .content-index/)', ratio: 0.7 },
  { items: 1000, kind: 'edited', label: '1k items build, one file edited, whole process', ms: 300 },
  { items: 1000, kind: 'unchanged', label: '1k items build, nothing changed, whole process', ms: 300 },
  { items: 1000, kind: 'cold', label: '1k items build, no cache, whole process', ms: 300 },
];
/** Every build of a size, D1 output included at 10,000 items ('auto'), under this peak. */
const PEAK_MIB = 300;
/** Dev, save → the edit served, median of the saves. */
const DEV_TARGETS: Record<number, number> = { 1000: 100, 10000: 250 };

/**
 * A build's figure against its target: the ratio to Hugo (when it has one) and whether it is met. `on`:
 * the figures of another Node (BENCH_NODES), judged against the same Hugo runs.
 */
function judged(
  target: BuildTarget,
  size: SizeFigures,
  on: Pick<SizeFigures, BuildKind> = size,
): { ms: number; ratio: number; met: boolean } {
  const ms = on[target.kind].ms;
  const ratio = size.hugo ? ms / size.hugo.ms : Number.NaN;
  const met =
    target.ratio !== undefined ? ratio <= target.ratio : ms <= (target.ms ?? Number.POSITIVE_INFINITY);
  return { ms, ratio, met };
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
  await pastRacyWindow();
  const version = hugoVersion();
  const hugo = version ? await hugoProject(workdir, site) : undefined;
  const build = (node = process.execPath) => measure(node, [BIN, 'build', '--json'], site, true);
  const report = (run: Run) => JSON.parse(run.stdout) as BuildReport;
  // The file each `edited` build follows: its title changes every time (and its size with it).
  const edited = join(site, 'content/posts/post-00000.es.md');
  const original = await readFile(edited, 'utf8');
  const cold = async (node?: string) => {
    await rm(join(site, '.content-index'), { recursive: true, force: true });
    await rm(join(site, 'public'), { force: true });
    return build(node);
  };
  // Warm the page cache (both tools read the same files) and the tools' own files (and each other
  // Node's compile cache).
  await hugo?.build();
  for (const node of OTHER_NODES) {
    await cold(node.path);
    await build(node.path);
  }
  await cold();
  await build();
  type Runs = Record<BuildKind, Run[]>;
  const runsOf = (): Runs => ({ cold: [], edited: [], unchanged: [] });
  const figuresOf = (of: Runs): Pick<SizeFigures, BuildKind> => ({
    cold: figures(of.cold, of.cold.map(report)),
    edited: figures(of.edited, of.edited.map(report)),
    unchanged: figures(of.unchanged, of.unchanged.map(report)),
  });
  const runs = { hugo: [] as Run[], ...runsOf() };
  const others = OTHER_NODES.map(runsOf);
  // Each Node's three builds in a row: the caches an edited build finds are its own Node's.
  // `other`: which of BENCH_NODES, so that each Node's edit is a change of its own.
  const round = async (into: Runs, i: number, node?: string, other?: number) => {
    into.cold.push(await cold(node));
    const marker = `Editado ${i} ${'x'.repeat(i)}${other === undefined ? '' : ` (otro ${other})`}`;
    await writeFile(edited, original.replace(/^title: .*$/m, `title: "${marker}"`));
    const run = await build(node);
    const served = await readFile(join(site, 'public/api/v1/content.json'), 'utf8');
    if (!served.includes(marker)) throw new Error('the edited build did not publish the edit');
    into.edited.push(run);
    into.unchanged.push(await build(node));
  };
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so drift in the machine's load hits every one alike.
    if (hugo) runs.hugo.push(await hugo.build());
    await round(runs, i);
    for (const [k, node] of OTHER_NODES.entries()) await round(others[k] as Runs, i, node.path, k);
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
  const measured: SizeFigures = {
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
    ...figuresOf(runs),
    contentJson: { bytes: content?.bytes ?? 0, gzipBytes: content?.gzipBytes ?? 0 },
    profiles: {},
    others: OTHER_NODES.map((node, k) => ({ node: node.version, ...figuresOf(others[k] as Runs) })),
  };
  // A missed target is shown with where the time of such a build goes.
  const missed = new Set(
    BUILD_TARGETS.filter(
      (t) =>
        t.items === items &&
        (!judged(t, measured).met ||
          measured[t.kind].peakRssMiB >= PEAK_MIB ||
          measured.cold.peakRssMiB >= PEAK_MIB),
    ).map((t) => t.kind),
  );
  for (const kind of ['cold', 'edited', 'unchanged'] as const) {
    if (!missed.has(kind)) continue;
    if (kind === 'cold') await rm(join(site, '.content-index'), { recursive: true, force: true });
    if (kind === 'edited') await writeFile(edited, original.replace(/^title: .*$/m, 'title: "Perfilado"'));
    if (kind === 'unchanged') await build();
    measured.profiles[kind] = await profileBuild(BIN, site);
  }
  await writeFile(edited, original);
  return measured;
}

export interface DevFigures {
  items: number;
  medianMs: number;
  p95Ms: number;
  runs: number[];
  /** When the target was missed: where dev's time goes from each save to its rebuild's end. */
  profile?: string[];
}

/**
 * Save-to-served latency of `content-index dev`: edit one file, poll the index until the edit shows.
 * `profile`: dev runs under V8's sampling profiler, and what it did from each save to the end of that
 * save's rebuild (and local D1 import) is summed, its start left out.
 */
async function measureDevLoop(
  items: number,
  runs: number,
  workdir: string,
  profile = false,
): Promise<DevFigures> {
  const site = join(workdir, `dev-${items}${profile ? '-profiled' : ''}`);
  const profiles = profile ? await mkdtemp(join(tmpdir(), 'content-index-dev-profile-')) : undefined;
  const spans: Span[] = [];
  let figures: DevFigures | undefined;
  // As the build measurements: past the embedded ceiling (10,000 items) the MCP data goes to D1, and dev
  // imports each build into wrangler's local D1 after the edit is served.
  await writeSite(site, {
    items,
    seed: 11,
    config: { mcp: { backend: 'auto' } },
    wrangler: D1_SITE_WRANGLER,
  });
  // The generated files made as old as an author's before dev starts.
  await pastRacyWindow();
  const port = await freePort();
  // Profiled, dev runs in this process (the bin starts no second Node under a profiler,
  // build/runtime/dev-process.ts), with the V8 flags the bin gives it otherwise: one profile, of dev.
  const flags = profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`, ...DEV_V8_FLAGS] : [];
  const child = spawn(process.execPath, [...flags, BIN, 'dev', '--port', String(port)], {
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
    // dev serves while its first local D1 import runs (a minute at 10,000 items): the first save waits
    // for it, as every later save waits for its own save's import. Without this the saves and the
    // imports were one apart, and each save was served while the import before it ran.
    if (log.includes('until the local D1 import is done'))
      await until(() => log.includes('D1 (local)'), 'the first local D1 import never finished', 600_000);
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
      const fromUs = monotonicUs();
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
      // The profile's span ends with the rebuild: the import after it is wrangler's, and idle.
      spans.push({ fromUs, toUs: monotonicUs() });
      if (log.includes('D1 (local)') || items > 6000)
        await until(() => settled().imports > before.imports, 'the local D1 import never finished', 600_000);
      await new Promise((r) => setTimeout(r, 200));
    }
    figures = {
      items,
      medianMs: median(times),
      p95Ms: percentile(times, 95),
      runs: times.map((t) => Math.round(t)),
    };
  } finally {
    child.kill('SIGTERM');
    // dev stops on SIGTERM and exits by itself: the profiler writes its profiles then.
    await new Promise((r) => child.once('exit', r));
    if (profiles && figures === undefined) await rm(profiles, { recursive: true, force: true });
  }
  if (profiles) {
    figures.profile = selfTimes(await profilesIn(profiles), 14, spans);
    await rm(profiles, { recursive: true, force: true });
  }
  return figures;
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

/** A target's rows: this Node's figures under the target's label, then each of BENCH_NODES' beneath. */
function byNode(label: string, size: SizeFigures): [string, Pick<SizeFigures, BuildKind>][] {
  return [[label, size], ...size.others.map((o): [string, OtherNodeFigures] => [`… on Node ${o.node}`, o])];
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

/**
 * dist/'s build id, built first when stale: in a source checkout the bin rebuilds dist/ whenever the
 * sources changed, inside the process being measured.
 */
async function distBuild(): Promise<string> {
  await measure(process.execPath, [BIN, '--version'], ROOT);
  return readFile(join(ROOT, 'dist/build-id'), 'utf8').catch(() => '');
}

async function main(): Promise<void> {
  const distAtStart = await distBuild();
  // Measured before anything else runs: what the variables the builds run without cost a start here.
  const startCosts = startCost(process.execPath);
  // Each Node's start and the CLI's load, before anything else loads the machine.
  const floors = [process.execPath, ...OTHER_NODES.map((n) => n.path)].map((node) => processFloor(node, BIN));
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
        const measured = await measureDevLoop(items, DEV_RUNS, workdir);
        const target = DEV_TARGETS[items];
        // A missed target is shown with where dev's time goes: five more saves, under the profiler.
        if (target !== undefined && measured.medianMs > target) {
          measured.profile = (await measureDevLoop(items, 5, workdir, true)).profile;
        }
        dev.push(measured);
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
    ...OTHER_NODES.map((node, k) => [
      `… on Node ${node.version}: cold / edited / unchanged (ms${hugo ? ', × Hugo' : ''})`,
      ...results.map((r) => {
        const on = r.others[k];
        return on ? [on.cold, on.edited, on.unchanged].map((f) => versusHugo(f, r.hugo)).join(' / ') : '—';
      }),
    ]),
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
            `dev: save → edit served (ms, median of ${DEV_RUNS}; p95)`,
            ...results.map((r) => {
              const d = dev.find((f) => f.items === r.items);
              return d ? `${fmt(d.medianMs)} (${fmt(d.p95Ms)})` : '—';
            }),
          ],
        ]
      : []),
  ];
  console.log(
    `median of ${RUNS} runs each (dev: ${DEV_RUNS} saves), whole processes, Node ${process.version}${OTHER_NODES.length > 0 ? ` (builds also on Node ${OTHER_NODES.map((n) => n.version).join(', ')})` : ''}\n`,
  );
  if (startCosts) {
    console.log(
      `the builds run without ${WITHOUT_ENV.join(', ')}, which this machine sets (BENCH_KEEP_ENV=1 keeps it): \`node -e 0\` here takes ${fmt(startCosts.withMs)} ms with it and ${fmt(startCosts.withoutMs)} ms without (medians of ${startCosts.runs}), time no build of a machine without it pays\n`,
    );
  }
  const nodes = [process.version, ...OTHER_NODES.map((n) => n.version)];
  console.log(
    `before a build's first stage, whole processes (medians of 15): ${nodes.map((version, k) => `Node ${version}: \`node -e 0\` ${fmt(floors[k]?.startMs ?? Number.NaN)} ms, \`content-index --version\` (the CLI loaded) ${fmt(floors[k]?.loadMs ?? Number.NaN)} ms`).join('; ')}\n`,
  );
  printTable(rows);
  if (mcp) {
    // Its own sites (bench/mcp.ts DEFAULT_MCP_OPTIONS): embedded at 1k and 5k with and without bodies (with
    // bodies past the ceiling: where `auto` serves them, and measured embedded anyway) and at 500 with, D1
    // at 10k with and without and 50k without; the worst requests at the largest embedded sites and on D1.
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
  // Every target: its figure, its ratio to Hugo in this run, and a verdict (issue 23).
  const targets: string[][] = [['target', 'figure', '× Hugo', 'verdict']];
  for (const t of BUILD_TARGETS) {
    const size = results.find((r) => r.items === t.items);
    if (!size) continue;
    const label =
      t.ratio !== undefined ? `${t.label} ≤ ${t.ratio}× Hugo` : `${t.label} ≤ ${fmt(t.ms ?? 0)} ms`;
    for (const [name, on] of byNode(label, size)) {
      const { ms, ratio, met } = judged(t, size, on);
      targets.push([
        name,
        `${fmt(ms)} ms`,
        Number.isFinite(ratio) ? `${fmt(ratio, 2)}×` : '—',
        t.ratio !== undefined && !size.hugo ? 'no Hugo to compare' : verdict(met),
      ]);
    }
  }
  for (const r of results) {
    const label = `${fmt(r.items)} items, peak memory of every build (no cache / edited / unchanged) < ${PEAK_MIB} MiB`;
    for (const [name, on] of byNode(label, r)) {
      const peaks = [on.cold, on.edited, on.unchanged].map((f) => f.peakRssMiB);
      targets.push([
        name,
        `${peaks.map((p) => fmt(p)).join(' / ')} MiB`,
        r.hugo ? `${fmt(Math.max(...peaks) / r.hugo.peakRssMiB, 2)}×` : '—',
        verdict(Math.max(...peaks) < PEAK_MIB),
      ]);
    }
  }
  for (const d of dev) {
    const target = DEV_TARGETS[d.items];
    targets.push([
      `dev, ${fmt(d.items)} items: save → edit served, median of ${d.runs.length}${target === undefined ? '' : ` ≤ ${target} ms`}`,
      `${fmt(d.medianMs)} ms (p95 ${fmt(d.p95Ms)})`,
      '—',
      target === undefined ? '—' : verdict(d.medianMs <= target),
    ]);
  }
  printTable(targets);
  // A build target missed: where the time of that build goes, and its stages (docs/performance.md says
  // what would meet it).
  for (const r of results) {
    for (const [kind, lines] of Object.entries(r.profiles)) {
      console.log(
        `\n${fmt(r.items)} items, ${kind} build (a target missed): stages ${STAGES.map((st) => `${st} ${fmt(r[kind as BuildKind].stagesMs[st])}`).join(' / ')} ms`,
      );
      for (const line of lines ?? []) console.log(line);
    }
  }
  for (const d of dev) {
    if (!d.profile) continue;
    console.log(`\ndev, ${fmt(d.items)} items (a target missed), from each save to its rebuild's end:`);
    for (const line of d.profile) console.log(line);
  }
  if (mcp) {
    console.log('');
    for (const line of mcpVerdicts(mcp)) console.log(line);
  }
  console.log('');
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
  if (load) for (const line of loadLines(load)) console.log(line);
  if (load?.runs.some((r) => !r.ok)) process.exitCode = 1;
  const out = join(ROOT, 'bench/results');
  await mkdir(out, { recursive: true });
  await writeFile(
    join(out, 'latest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, without: WITHOUT_ENV, startCosts, floors, results, dev, devHugo, mcp, load }, null, 2)}\n`,
  );
  console.log('\nfigures written to bench/results/latest.json');
  if ((await distBuild()) !== distAtStart) {
    // Seen once: a run whose 10k unchanged build "peaked" at 797 MiB, which was esbuild's.
    console.log(
      'NOT ONE BUILD: the sources changed during the run and the measured processes rebuilt dist/ (their time and memory include it); run the bench from a checkout nothing edits (git worktree add)',
    );
    process.exitCode = 1;
  }
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
