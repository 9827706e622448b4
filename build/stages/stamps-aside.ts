import type { Stamp } from './parse-cache.ts';

/** From this many files to look at, their stamps are taken on a worker thread (BuildOptions.parallelThreshold). */
export const STAMPS_ASIDE_FROM = 5_000;

/**
 * The stamps of `paths`, taken on a worker thread while the main thread goes on: a build in a process
 * of its own reads every item's record from the store (0.4–0.5 s at 10,000 items) before it looks at
 * each file's stamp (some 0.25 s for 25,900 files), and the second core is idle meanwhile. Undefined
 * when the worker fails: the caller takes them itself. The stamp of `paths[i]` is `undefined` when it has none.
 */
export function stampsAside(
  paths: readonly string[],
): Promise<((i: number) => Stamp | undefined) | undefined> {
  let taken: Promise<Float64Array>;
  try {
    // Started before this returns (an `await import()` would start it only once the caller's work is
    // done); only a large site's build loads node:worker_threads.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const worker = new Worker(new URL('./stamp-worker.js', import.meta.url), {
      workerData: { paths: paths.join('\u0000') },
    });
    taken = new Promise<Float64Array>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the stamp worker exited with code ${code}`)));
    });
  } catch {
    return Promise.resolve(undefined);
  }
  return taken.then(stampsOf, () => undefined);
}

function stampsOf(taken: Float64Array): (i: number) => Stamp | undefined {
  return (i) => {
    const size = taken[i * 4];
    if (size === undefined || Number.isNaN(size)) return undefined;
    return {
      size,
      mtimeMs: taken[i * 4 + 1] as number,
      ctimeMs: taken[i * 4 + 2] as number,
      ino: taken[i * 4 + 3] as number,
    };
  };
}
