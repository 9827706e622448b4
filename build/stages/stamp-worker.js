// The stamp worker's entry (stamps-aside.ts): the stamp of each path it is given, as statStamp takes it
// (size, mtimeMs, ctimeMs, ino; NaN for a path that has none), in one array handed back without a copy.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const paths = /** @type {string} */ (workerData.paths).split('\u0000');
const stamps = new Float64Array(paths.length * 4).fill(Number.NaN);
paths.forEach((path, i) => {
  let stats;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return;
  }
  if (!stats) return;
  stamps[i * 4] = stats.size;
  stamps[i * 4 + 1] = stats.mtimeMs;
  stamps[i * 4 + 2] = stats.ctimeMs;
  stamps[i * 4 + 3] = stats.ino;
});
parentPort?.postMessage(stamps, [stamps.buffer]);
