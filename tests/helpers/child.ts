import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The child's exit code once it exits, or a sentence saying it did not within `ms` (a stop that hangs
 * fails the test with that, not with the test's own timeout). Asked right after the signal is sent.
 */
export function exitWithin(child: ChildProcess, ms: number): Promise<number | null | string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`still running after ${ms / 1000} s`), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Ends a child started with `detached: true` and everything it started, unless it is gone already. */
export function killGroup(child: ChildProcess | undefined): void {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}

/** Every process below `pid`, with its command line (Linux; elsewhere none). */
export async function descendants(pid: number): Promise<{ pid: number; command: string }[]> {
  if (!existsSync('/proc')) return [];
  const children = new Map<number, number[]>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const found: { pid: number; command: string }[] = [];
  const visit = async (p: number) => {
    for (const c of children.get(p) ?? []) {
      const command = (await readFile(`/proc/${c}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ');
      found.push({ pid: c, command });
      await visit(c);
    }
  };
  await visit(pid);
  return found;
}

/** Whether a process with this id is still there. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
