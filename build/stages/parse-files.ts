import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { BUNDLED } from '../core/bundled.ts';
import { type ParseOutcome, type ParseTask, parseChunk } from './parse/parse-chunk.js';

export interface ParseFilesOptions {
  maxFileBytes: number;
  /** Below this many files a second thread costs more to start than it saves. */
  parallelThreshold?: number;
  /** Outcomes of earlier builds in this process (dev mode): unchanged files are not read again. */
  cache?: ParseCache;
}

/** Keyed by absolute path; an entry is reused while the file's size and modification time match. */
export type ParseCache = Map<string, { size: number; mtimeMs: number; outcome: ParseOutcome }>;

/** Share of the files given to the worker: it starts later than the main thread does. */
const WORKER_SHARE = 0.45;

/** Reads and parses every file, in order, reusing cached outcomes of unchanged files when given a cache. */
export async function parseFiles(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
): Promise<ParseOutcome[]> {
  const { cache } = options;
  if (!cache) return parseUncached(tasks, options);
  const stamps = tasks.map((task) => {
    try {
      const { size, mtimeMs } = statSync(task.absolute);
      return { size, mtimeMs };
    } catch {
      return undefined;
    }
  });
  const outcomes: (ParseOutcome | undefined)[] = tasks.map((task, i) => {
    const hit = cache.get(task.absolute);
    const stamp = stamps[i];
    return hit && stamp && hit.size === stamp.size && hit.mtimeMs === stamp.mtimeMs ? hit.outcome : undefined;
  });
  const misses = tasks.flatMap((task, i) => (outcomes[i] ? [] : [{ task, i }]));
  const fresh = await parseUncached(
    misses.map((m) => m.task),
    options,
  );
  misses.forEach(({ i }, k) => {
    outcomes[i] = fresh[k];
  });
  cache.clear(); // deleted files drop out
  tasks.forEach((task, i) => {
    const stamp = stamps[i];
    const outcome = outcomes[i];
    if (stamp && outcome) cache.set(task.absolute, { ...stamp, outcome });
  });
  return outcomes as ParseOutcome[];
}

/**
 * On large sites the work is split between the main thread and one worker thread: reading is mostly
 * system calls, which run in parallel on a second core.
 */
async function parseUncached(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
): Promise<ParseOutcome[]> {
  const threshold = options.parallelThreshold ?? 10_000;
  if (tasks.length < threshold) return parseChunk(tasks, options.maxFileBytes);
  const split = Math.floor(tasks.length * (1 - WORKER_SHARE));
  const worker = new Worker(new URL(BUNDLED ? './parse-worker.js' : './parse/worker.js', import.meta.url), {
    workerData: { tasks: tasks.slice(split), maxFileBytes: options.maxFileBytes },
  });
  const fromWorker = new Promise<ParseOutcome[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`parse worker exited with code ${code}`)));
  });
  // Swallow a rejection until it is awaited below, so a worker failure is not reported as unhandled.
  fromWorker.catch(() => undefined);
  const mine = parseChunk(tasks.slice(0, split), options.maxFileBytes);
  try {
    return [...mine, ...(await fromWorker)];
  } finally {
    await worker.terminate();
  }
}
