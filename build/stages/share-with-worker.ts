import type { Worker } from 'node:worker_threads';

export interface Sharing<Answer> {
  /** Shown when the worker exits before every batch was answered. */
  name: string;
  /** Work sent to the worker at a time; two batches are in its hands at once, so it never waits. */
  batch: number;
  /** Work the main thread does between two looks at the worker's answers. */
  stretch: number;
  /** The message that hands the worker the work from `from` to `to` (it answers each in order). */
  message(from: number, to: number): unknown;
  /** Takes the worker's answer for the work from `from` on. */
  take(from: number, answer: Answer): void;
  /** Does the work from `from` to `to` on the main thread. */
  mine(from: number, to: number): void;
}

/**
 * `total` pieces of work done by the main thread and `worker` until none is left: the main thread takes
 * them from the front a stretch at a time, the worker from the back a batch at a time. Whichever thread
 * is faster does more; a fixed split left one of them idle for up to half a second at 10,000 items, the
 * other then handing over its whole share at once. The worker is ended when the work is.
 */
export async function shareWithWorker<Answer>(
  worker: Worker,
  total: number,
  sharing: Sharing<Answer>,
): Promise<void> {
  let front = 0;
  let back = total;
  /** Where each batch in the worker's hands begins, in the order sent (and answered). */
  const sent: number[] = [];
  /** Sends the worker the next batch from the back; false when every piece is taken. */
  const send = (): boolean => {
    // A quarter of what is left at most: neither thread is left with the last large share alone.
    const count = Math.min(sharing.batch, Math.ceil((back - front) / 4));
    if (count <= 0) return false;
    back -= count;
    sent.push(back);
    worker.postMessage(sharing.message(back, back + count));
    return true;
  };
  const answered = new Promise<void>((resolve, reject) => {
    worker.on('message', (answer: Answer) => {
      try {
        sharing.take(sent.shift() ?? 0, answer);
        if (!send() && sent.length === 0) resolve();
      } catch (error) {
        // The answer could not be taken, or the next batch made or sent (a store closed under the build).
        reject(error);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`${sharing.name} exited with code ${code}`)));
  });
  // Swallow a rejection until it is awaited below, so a worker failure is not reported as unhandled.
  answered.catch(() => undefined);
  try {
    send();
    send();
    while (front < back) {
      const end = Math.min(front + sharing.stretch, back);
      sharing.mine(front, end);
      front = end;
      // The worker's answers are taken between stretches, and its next batch sent.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await answered;
  } finally {
    await worker.terminate();
  }
}
