import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a lock (or held files), said well enough to tell that process apart from a later one with
 * the same pid. A pid alone is reused: every container's first process is pid 1, so a build killed in one
 * container left a lock naming pid 1 that the next container's build (pid 1 too) took for its own, or
 * for a live holder. With the process's start time, its pid namespace and the machine's boot, a holder
 * on this machine and in this namespace is checked exactly; one elsewhere (another container) cannot be,
 * and is judged by the heartbeat its lock carries (see place.ts).
 */
export interface ProcessMark {
  pid: number;
  /** Clock ticks after boot at which the process started (/proc/<pid>/stat, field 22); Linux only. */
  start?: string;
  /** The pid namespace (/proc/self/ns/pid); Linux only. */
  pidns?: string;
  /** The kernel's boot id; Linux only. */
  boot?: string;
  host: string;
}

/** This process's mark. */
export function processMark(): ProcessMark {
  return withoutUndefined({
    pid: process.pid,
    start: startTime(process.pid),
    pidns: read(() => readlinkSync('/proc/self/ns/pid')),
    boot: read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    host: hostname(),
  });
}

/** A mark as written (JSON), or a bare pid as earlier releases wrote; undefined when neither. */
export function parseMark(text: string): ProcessMark | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), host: '' };
  try {
    const value = JSON.parse(trimmed) as Partial<ProcessMark>;
    if (!Number.isInteger(value.pid) || typeof value.host !== 'string') return undefined;
    return value as ProcessMark;
  } catch {
    return undefined;
  }
}

/**
 * - `self`: this very process;
 * - `running`: another process on this machine and in this namespace, the one that wrote the mark;
 * - `gone`: that process has ended (its pid is free, or taken by a process that started later);
 * - `unknown`: written elsewhere (another container, machine or boot) or without what tells processes
 *   apart (an earlier release's bare pid): only time can tell.
 */
export function markState(mark: ProcessMark): 'self' | 'running' | 'gone' | 'unknown' {
  const me = processMark();
  if (mark.host === '') {
    // An earlier release's bare pid. Naming this process, it is not this process's: it never writes one.
    return mark.pid === me.pid || !isRunning(mark.pid) ? 'gone' : 'unknown';
  }
  // The same machine booted since: every process of the mark's time has ended.
  if (mark.host === me.host && mark.boot !== undefined && me.boot !== undefined && mark.boot !== me.boot)
    return 'gone';
  // Another machine or pid namespace (container): its pids mean nothing here.
  if (mark.host !== me.host || mark.boot !== me.boot || mark.pidns !== me.pidns) return 'unknown';
  if (mark.start === undefined || me.start === undefined) {
    // No /proc (macOS, Windows): the pid alone, as far as it goes.
    if (mark.pid === me.pid) return 'self';
    return isRunning(mark.pid) ? 'running' : 'gone';
  }
  if (mark.pid === me.pid) return mark.start === me.start ? 'self' : 'gone';
  return isRunning(mark.pid) && startTime(mark.pid) === mark.start ? 'running' : 'gone';
}

/** Whether a process with this id exists. */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function startTime(pid: number): string | undefined {
  return read(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  });
}

function read(get: () => string | undefined): string | undefined {
  try {
    return get() || undefined;
  } catch {
    return undefined;
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
