// The parse worker's entry: the same parseChunk the main thread runs, on each batch of tasks it is sent,
// answered in the order sent (parse-files.ts weaves the answers back in place).
import { parentPort, workerData } from 'node:worker_threads';
import { bodiesOf, parseChunk } from './parse-chunk.js';

const known = workerData.known === undefined ? undefined : new Set(workerData.known);
parentPort?.on('message', (/** @type {import('./parse-chunk.js').ParseTask[]} */ tasks) => {
  parentPort?.postMessage(
    workerData.onlyBodies
      ? bodiesOf(tasks, workerData.maxFileBytes)
      : parseChunk(tasks, workerData.maxFileBytes, known, workerData.bodies),
  );
});
