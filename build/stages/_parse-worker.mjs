// Worker entry. Plain JavaScript because a worker thread does not inherit the parent's TypeScript
// loader: register tsx here, then run the same parseChunk the main thread runs.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { parseChunk } = await import('./_parse-chunk.ts');
parentPort.postMessage(parseChunk(workerData.tasks, workerData.maxFileBytes));
