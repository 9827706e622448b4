// The parse worker's entry: the same parseChunk the main thread runs, on the tasks it was handed.
import { parentPort, workerData } from 'node:worker_threads';
import { bodiesOf, parseChunk } from './parse-chunk.js';

const known = workerData.known === undefined ? undefined : new Set(workerData.known);
parentPort?.postMessage(
  workerData.onlyBodies
    ? bodiesOf(workerData.tasks, workerData.maxFileBytes)
    : parseChunk(workerData.tasks, workerData.maxFileBytes, known, workerData.bodies),
);
