// The parse worker's entry: the same parseChunk the main thread runs, on the tasks it was handed.
import { parentPort, workerData } from 'node:worker_threads';
import { parseChunk } from './parse-chunk.js';

const known = workerData.known === undefined ? undefined : new Set(workerData.known);
parentPort?.postMessage(parseChunk(workerData.tasks, workerData.maxFileBytes, known, workerData.bodies));
