import { describe, expect, it } from 'vitest';
import { buildWorker, WORKER_YOUNG_MIB } from '../../build/stages/build-worker.ts';

// Short-lived objects by the million, a few hundred thousand of them alive at a time (as a parse's or
// a D1 rows batch's are): the largest new space V8 gave the thread meanwhile, in bytes.
const CHURN = `
const v8 = require('node:v8');
const { parentPort, workerData } = require('node:worker_threads');
let largest = 0;
let alive = [];
for (let i = 0; i < 3e6; i++) {
  alive.push({ i, text: 'x' + i });
  if (alive.length > 200000) alive = [];
  if (i % 50000 === 0) {
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    largest = Math.max(largest, space ? space.space_size : 0);
  }
}
parentPort.postMessage({ largest, echoed: workerData });`;

describe('buildWorker', () => {
  it("bounds the thread's young generation on every Node (Node 24 let it grow to 128 MiB)", async () => {
    const worker = buildWorker(CHURN, { eval: true, workerData: { asked: 'kept' } });
    const reply = await new Promise<{ largest: number; echoed: unknown }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // The options given are passed on.
    expect(reply.echoed).toEqual({ asked: 'kept' });
    // The new space is part of the young generation (33 MiB of the 48 on Node 24; 128 MiB unbounded).
    expect(reply.largest).toBeGreaterThan(0);
    expect(reply.largest).toBeLessThanOrEqual(WORKER_YOUNG_MIB * 2 ** 20);
  });
});
