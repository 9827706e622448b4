import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEASURED_ENV } from './measure.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock (process.hrtime's), when sampling began. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the monotonic clock V8's profiles are stamped with (CLOCK_MONOTONIC, as process.hrtime). */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** A span of time, in monotonic microseconds, whose samples alone are counted. */
export interface Span {
  fromUs: number;
  toUs: number;
}

/** The profiles `node --cpu-prof` wrote into `dir` (one per thread that ran JavaScript). */
export async function profilesIn(dir: string): Promise<CpuProfile[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as CpuProfile));
}

/**
 * One build of `site` under V8's sampling profiler (`node --cpu-prof`): where its time went, as the
 * functions with the most time of their own (garbage collection and the file system's calls included),
 * for the bench to show beside a target it missed.
 */
export async function profileBuild(bin: string, site: string, top = 12): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'content-index-profile-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, bin, 'build', '--json'], {
        cwd: site,
        env: MEASURED_ENV,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`profiled build exited ${code}\n${stderr}`)),
      );
    });
    const [main] = await profilesIn(dir);
    return main ? selfTimes([main], top) : [];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The functions with the most time of their own in `profiles` (several threads' add up), counting only
 * the samples taken within `spans` when given: a dev session's saves, not its start.
 */
export function selfTimes(profiles: readonly CpuProfile[], top: number, spans?: readonly Span[]): string[] {
  const self = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      if (spans && !spans.some((s) => at >= s.fromUs && at <= s.toUs)) return;
      const node = byId.get(id);
      const ms = delta / 1000;
      total += ms;
      if (!node) return;
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
      const key = `${functionName || '(anonymous)'}${where}`;
      self.set(key, (self.get(key) ?? 0) + ms);
    });
  }
  const figure = (ms: number) => (ms >= 10 ? Math.round(ms).toString() : ms.toFixed(1));
  return [
    `profile: ${figure(total)} ms sampled; the functions with the most time of their own:`,
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, ms]) =>
          `  ${figure(ms).padStart(6)} ms  ${((ms / total) * 100).toFixed(1).padStart(4)}%  ${name}`,
      ),
  ];
}
