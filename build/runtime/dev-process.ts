// `content-index dev` is a long-lived process whose work comes in bursts (a save) after long idle spells
// (an author reading, a local D1 import of a minute). V8 spends those spells shrinking the heap (its
// memory reducer) and dropping the bytecode of functions not run lately, so each save after a pause first
// grows the heap back and compiles the build's code again: at 10,000 items, a save served in 535–603 ms
// as started, 384–393 ms with these flags (medians of five saves after a minute each, docs/performance.md).
// V8 reads them only at start, so dev runs in a child Node started with them; the bin (which imports
// this file only for `dev`) hands on the child's exit code.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

export const DEV_V8_FLAGS: readonly string[] = ['--no-memory-reducer', '--no-flush-bytecode'];

/** Whether this process still has to start dev again with DEV_V8_FLAGS (not when it has them already). */
export function needsDevFlags(execArgv: readonly string[] = process.execArgv): boolean {
  return !DEV_V8_FLAGS.every((flag) => execArgv.includes(flag));
}

/**
 * Runs `node <flags> <script> <args…>` with this process's stdio and Node options, and resolves to the
 * exit code to hand on. A stop asked of this process (Ctrl+C, SIGTERM, a closed terminal) is passed on
 * as SIGTERM, which dev takes as a clean stop: a terminal's Ctrl+C reaches both processes, and a second
 * SIGINT would end dev before it puts its last build's /mcp data back.
 */
export function runWithDevFlags(script: string, args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...DEV_V8_FLAGS, script, ...args], {
    // The IPC channel is how the child sees this process end, SIGKILL included (followParent).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const forward = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const name of signals) process.on(name, forward);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(
        `content-index dev: could not start Node again with ${DEV_V8_FLAGS.join(' ')}: ${error.message}\n`,
      );
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      // A shell's convention for a process ended by a signal: 128 + its number.
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 1));
    });
  });
}

/**
 * In the child runWithDevFlags started: stops dev as SIGTERM does when that parent goes away, however
 * it ends (a SIGKILLed parent cannot pass anything on; its end closes the IPC channel). The channel
 * alone keeps nothing running.
 */
export function followParent(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
