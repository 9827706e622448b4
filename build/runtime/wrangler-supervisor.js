// Runs `node <wrangler bin> <args…>` in a process group of its own and ends the whole group (wrangler,
// the Node process it starts, workerd) when the content-index process that started this one goes away.
// A SIGKILLed parent cannot clean up after itself; its end still closes our stdin (a pipe from it),
// and that is what we watch. workerd ignores SIGTERM on its own, so whatever outlives the graceful stop
// is killed. Plain JavaScript: it runs without a TypeScript loader.
import { spawn } from 'node:child_process';

const [bin, ...args] = process.argv.slice(2);
if (!bin) {
  process.stderr.write('usage: wrangler-supervisor.js <wrangler bin> [args…]\n');
  process.exit(2);
}
const groups = process.platform !== 'win32';
const child = spawn(process.execPath, [bin, ...args], {
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: groups,
});

/** @param {NodeJS.Signals | 0} signal */
function signal(signal) {
  try {
    if (groups && child.pid) process.kill(-child.pid, signal);
    else if (signal !== 0) child.kill(signal);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

let stopping = false;
/** @param {number} code */
function stop(code) {
  if (stopping) return;
  stopping = true;
  signal('SIGTERM');
  const started = Date.now();
  const poll = setInterval(() => {
    const left = groups ? signal(0) : child.exitCode === null && child.signalCode === null;
    if (!left) {
      clearInterval(poll);
      process.exit(code);
    }
    if (Date.now() - started > 5000) signal('SIGKILL');
  }, 50);
}

process.stdin.on('end', () => stop(0));
process.stdin.on('error', () => stop(0));
process.stdin.resume();
for (const name of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.on(name, () => stop(0));
child.on('exit', (code) => stop(code ?? 1)); // wrangler ended by itself: take what is left of it along
