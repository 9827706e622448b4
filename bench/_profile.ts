import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
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
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`profiled build exited ${code}\n${stderr}`)),
      );
    });
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
    if (!file) return [];
    return selfTimes(JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile, top);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function selfTimes(profile: CpuProfile, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + ms);
  });
  return [
    `profile: ${Math.round(total)} ms sampled; the functions with the most time of their own:`,
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, ms]) =>
          `  ${Math.round(ms).toString().padStart(6)} ms  ${((ms / total) * 100).toFixed(1).padStart(4)}%  ${name}`,
      ),
  ];
}
