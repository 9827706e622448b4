// Runs `node <wrangler bin> <args…>` in a process group of its own and ends the whole group (wrangler,
// the Node process it starts, workerd) when the content-index process that started this one goes away.
// `--exec <program> <args…>` runs another program the same way (dev --hugo: `hugo --watch`).
// A SIGKILLed parent cannot clean up after itself; its end still closes our stdin (a pipe from it),
// and that is what we watch. workerd ignores SIGTERM on its own, so whatever outlives the graceful stop
// is killed. Plain JavaScript: it runs without a TypeScript loader.
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const exec = argv[0] === '--exec';
const [bin, ...args] = exec ? argv.slice(1) : argv;
if (!bin) {
  process.stderr.write('usage: wrangler-supervisor.js <wrangler bin> [args…] | --exec <program> [args…]\n');
  process.exit(2);
}
const groups = process.platform !== 'win32';
const child = spawn(exec ? bin : process.execPath, exec ? args : [bin, ...args], {
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: groups,
});
// A program that cannot be started (not installed): said once, and the exit code a shell gives it.
child.on('error', (/** @type {Error} */ error) => {
  process.stderr.write(`${bin}: ${error.message}\n`);
  process.exit(127);
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
