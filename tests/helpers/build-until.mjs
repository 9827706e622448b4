// Runs one build of the site at argv[2] and kills itself (SIGKILL, no clean-up of any kind) right
// after the argv[3]-th step of the publication that changes the disk; 0 runs to the end. Prints the
// steps it went through as JSON before it dies, so the test knows where it stopped. Plain JavaScript
// over dist/ (the package by its own name; Vitest's global setup rebuilds it), as the CLI runs: a
// process per step, and compiling the TypeScript sources in each cost a second.
import { writeSync } from 'node:fs';
import { build } from 'content-index';

const [root, at] = process.argv.slice(2);
const stopAt = Number(at ?? 0);
/** @type {string[]} */
const steps = [];
await build({
  root,
  clock: () => new Date('2026-06-01T00:00:00Z'),
  onOutputStep: (step) => {
    steps.push(step);
    if (steps.length === stopAt) {
      writeSync(1, `${JSON.stringify(steps)}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
  },
});
writeSync(1, `${JSON.stringify([...steps, 'done'])}\n`);
