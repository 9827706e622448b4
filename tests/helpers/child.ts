import type { ChildProcess } from 'node:child_process';

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
