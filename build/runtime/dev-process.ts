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

/**
 * The process event dev stops on (as on SIGTERM) when the bin that started it asks, or goes away; the
 * bin's IPC message asking for it is the same string.
 */
export const STOP_EVENT = 'content-index:stop';

/** Set in the child's environment by runWithDevFlags; read (and removed) by followParent. */
const CHILD_ENV = 'CONTENT_INDEX_DEV_CHILD';

/**
 * Whether this process still has to start dev again with DEV_V8_FLAGS: not when it has them already,
 * nor when it was started with an inspector or a profiler, which then look at dev itself.
 */
export function needsDevFlags(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--(inspect|debug|cpu-prof|heap-prof|prof)\b/.test(arg))) return false;
  return !DEV_V8_FLAGS.every((flag) => execArgv.includes(flag));
}

/**
 * Runs `node <flags> <script> <args…>` with this process's stdio and Node options, and resolves to the
 * exit code to hand on. A stop asked of this process (Ctrl+C, SIGTERM, SIGHUP) is passed on once, as a
 * message dev takes as a clean stop: not as a signal, since a terminal's Ctrl+C (or a SIGTERM to the
 * process group) reaches dev itself too, and a second signal there is dev's "stop now"; and on Windows a
 * signal sent to a process ends it without any clean-up.
 */
export function runWithDevFlags(script: string, args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...DEV_V8_FLAGS, script, ...args], {
    // The IPC channel carries the stop, and is how the child sees this process end, SIGKILL included.
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [CHILD_ENV]: '1' },
  });
  let asked = false;
  const forward = () => {
    if (asked || !child.connected) return;
    asked = true;
    child.send(STOP_EVENT, () => undefined); // a child that has just gone is going anyway
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
 * In the child runWithDevFlags started: dev stops (STOP_EVENT) when the bin asks, or when the bin goes
 * away however it ends (a SIGKILLed bin cannot ask; its end closes the channel). The channel alone keeps
 * nothing running.
 */
export function followParent(): void {
  const child = process.env[CHILD_ENV] === '1' && typeof process.send === 'function';
  delete process.env[CHILD_ENV]; // not for what dev starts
  if (!child) return;
  // Gone already (killed while this process started): its channel closed before anyone listened.
  if (!process.connected) {
    stop();
    return;
  }
  process.channel?.unref();
  process.on('message', (message) => {
    if (message === STOP_EVENT) stop();
  });
  process.once('disconnect', stop);
}

function stop(): void {
  // dev listens once it serves; before that it has nothing to put back, and ends as on SIGTERM.
  const events: NodeJS.EventEmitter = process; // an event of our own: not among the typed ones
  if (events.listenerCount(STOP_EVENT) > 0) events.emit(STOP_EVENT);
  else process.exit(128 + constants.signals.SIGTERM);
}
