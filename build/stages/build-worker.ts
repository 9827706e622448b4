import type { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * The young generation a build's worker thread may grow to, in MiB: what V8 gives an isolate on Node 20
 * and 22 (its new space grows to 32 MiB). Node 24 lets a worker's new space grow to 128 MiB, and a
 * 10,000-item build from nothing, with its parse and D1-rows workers, peaked 50–90 MiB higher for it
 * and was no faster (docs/performance.md, stop 71).
 */
export const WORKER_YOUNG_MIB = 48;

/**
 * A worker thread of the build, its young generation bounded. node:worker_threads is loaded only here,
 * when a large site's build starts one.
 */
export function buildWorker(script: URL | string, options: WorkerOptions = {}): Worker {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  return new Worker(script, {
    ...options,
    resourceLimits: { ...options.resourceLimits, maxYoungGenerationSizeMb: WORKER_YOUNG_MIB },
  });
}
