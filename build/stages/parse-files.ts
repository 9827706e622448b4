import { Worker } from 'node:worker_threads';
import { type ParseOutcome, type ParseTask, parseChunk } from './_parse-chunk.ts';

export interface ParseFilesOptions {
  maxFileBytes: number;
  /** Below this many files a second thread costs more to start than it saves. */
  parallelThreshold?: number;
}

/** Share of the files given to the worker: it starts ~100 ms after the main thread does. */
const WORKER_SHARE = 0.45;

/**
 * Reads and parses every file, in order. On large sites the work is split between the main thread and
 * one worker thread: reading is mostly system calls, which run in parallel on a second core.
 */
export async function parseFiles(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
): Promise<ParseOutcome[]> {
  const threshold = options.parallelThreshold ?? 2000;
  if (tasks.length < threshold) return parseChunk(tasks, options.maxFileBytes);
  const split = Math.floor(tasks.length * (1 - WORKER_SHARE));
  const worker = new Worker(new URL('./_parse-worker.mjs', import.meta.url), {
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
