import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = join(import.meta.dirname, '..');

/** GNU time: the peak resident memory of any command (Hugo's too), measured by the kernel. */
const GNU_TIME = '/usr/bin/time';
const hasGnuTime =
  existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true'], { encoding: 'utf8' }).status === 0;

/**
 * What the measured commands run without: NODE_EXTRA_CA_CERTS, when the machine sets it, unless
 * BENCH_KEEP_ENV=1. Node 20 reads and parses the certificates it names as each process starts (on a
 * machine that names the system's whole bundle there, some 50 ms of every start); Node 22 waits until a
 * TLS connection asks for them. The bench's builds open none (no `--live`), so that time is the
 * machine's, not the build's, and a machine without the variable never pays it.
 */
export const WITHOUT_ENV: readonly string[] =
  process.env.BENCH_KEEP_ENV === '1' ? [] : ['NODE_EXTRA_CA_CERTS'].filter((name) => name in process.env);
export const MEASURED_ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !WITHOUT_ENV.includes(name)),
);

/**
 * What the variables left out cost a Node start here: `node -e 0` with and without them, medians of
 * `runs` alternated runs (ms). Undefined when none is left out.
 */
export function startCost(
  node: string,
  runs = 15,
): { withMs: number; withoutMs: number; runs: number } | undefined {
  if (WITHOUT_ENV.length === 0) return undefined;
  const times = { with: [] as number[], without: [] as number[] };
  for (let i = 0; i < runs; i++) {
    for (const [key, env] of [
      ['with', process.env],
      ['without', MEASURED_ENV],
    ] as const) {
      const started = performance.now();
      spawnSync(node, ['-e', '0'], { env, stdio: 'ignore' });
      times[key].push(performance.now() - started);
    }
  }
  return { withMs: median(times.with), withoutMs: median(times.without), runs };
}

/**
 * What every whole-process build pays before its first stage, as the builds run it (MEASURED_ENV): a
 * Node that starts and stops (`node -e 0`), and one that starts and loads the CLI's modules
 * (`<bin> --version`), medians of `runs` alternated runs (ms). An absolute target (the 1k builds' 300 ms)
 * is met only with what is left after the second.
 */
export function processFloor(node: string, bin: string, runs = 15): { startMs: number; loadMs: number } {
  const times = { start: [] as number[], load: [] as number[] };
  for (let i = 0; i < runs; i++) {
    for (const [key, args] of [
      ['start', ['-e', '0']],
      ['load', [bin, '--version']],
    ] as const) {
      const started = performance.now();
      spawnSync(node, args, { env: MEASURED_ENV, stdio: 'ignore' });
      times[key].push(performance.now() - started);
    }
  }
  return { startMs: median(times.start), loadMs: median(times.load) };
}

export interface Run {
  ms: number;
  /** Peak resident memory of the process (worker threads included); NaN when it cannot be measured. */
  peakRssMiB: number;
  stdout: string;
}

/**
 * Runs a command to its end, in MEASURED_ENV: wall time from spawn to exit, and its peak RSS (GNU time's
 * %M, or for Node, process.resourceUsage().maxRSS reported by bench/_peak-rss.mjs when GNU time is
 * missing).
 */
export function measure(
  command: string,
  args: readonly string[],
  cwd: string,
  /** The command is a Node (another than this one's, say): the preload can report its peak. */
  node = command === process.execPath,
): Promise<Run> {
  const [file, argv] = hasGnuTime
    ? [GNU_TIME, ['-f', '\npeak-rss-kib=%M', command, ...args]]
    : [command, node ? ['--import', join(ROOT, 'bench/_peak-rss.mjs'), ...args] : [...args]];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, argv, { cwd, env: MEASURED_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      // With the preload, worker threads report too: the largest figure is the process's peak.
      const reported = [...stderr.matchAll(/peak-rss-kib=(\d+)/g)].map((m) => Number(m[1]));
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${stderr}`));
      else resolve({ ms, peakRssMiB: reported.length ? Math.max(...reported) / 1024 : Number.NaN, stdout });
    });
  });
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** The nearest-rank percentile (`p` of 100) of the values. */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};
