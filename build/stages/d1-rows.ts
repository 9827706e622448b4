import { createHash } from 'node:crypto';
import { BUNDLED } from '../core/bundled.ts';
import type { ByteSpan, D1ItemRows } from '../core/edge/mcp/d1-sql.ts';
import { d1RowsOf, forgetMcp, type ItemFragments } from '../core/output/item-fragments.ts';
import { releaseBodies } from './held-bodies.ts';
import type { RowSpool } from './row-spool.ts';
import { asPiece, bytesOf, pieceLength } from './stored-bytes.ts';

/**
 * From this many items whose rows are to be made on, a worker thread makes some of them: a build from
 * nothing at 10,000 items spent 3.8 of its 12 s on one thread making them (each body's search terms,
 * its SQL literal and its UTF-8), while the parse worker's core sat idle.
 */
const ROWS_THRESHOLD = 2000;

/**
 * Every item's rows of the D1 import, made where missing. On two threads in the bundled CLI only: the
 * worker runs the same bundled code; from the sources (the tests' TypeScript) it could not start.
 */
export async function d1RowsOfItems(
  items: readonly ItemFragments[],
  threshold = ROWS_THRESHOLD,
  /** Where the new rows' bodies wait (row-spool.ts): asked for only when rows are to be made. */
  spoolOf?: () => RowSpool | undefined,
): Promise<D1ItemRows[]> {
  const missing = items.filter((fragments) => fragments.d1 === undefined);
  const spool = missing.length > 0 ? spoolOf?.() : undefined;
  try {
    // None missing (every item's rows kept), nothing to start: a worker sent nothing would never answer.
    if (BUNDLED && missing.length > 0 && missing.length >= threshold) await onTwoThreads(missing, spool);
    return items.map((fragments) => {
      const made = fragments.d1 === undefined;
      const rows = d1RowsOf(fragments);
      releaseBodies(fragments);
      if (spool && made) spoolBodies(rows, spool);
      return rows;
    });
  } finally {
    spool?.flush();
  }
}

/**
 * The rows' bodies made here put in the spool, each held as its place there once written: digested
 * first, while they are in hand (the import's files are named after the digests).
 */
function spoolBodies(rows: D1ItemRows<string | ByteSpan | Uint8Array>, spool: RowSpool): void {
  if (!rows.bodies.some((body) => body instanceof Uint8Array)) return;
  rows.digest ??= rowsDigest(rows);
  rows.bodies.forEach((body, i) => {
    if (body instanceof Uint8Array) spool.keep(rows.bodies, i, body);
  });
}

/** Items sent to the worker at a time; two batches are in its hands at once, so it never waits. */
const BATCH = 200;
/** Items the main thread makes between two looks at the worker's answers. */
const STRETCH = 100;

async function onTwoThreads(missing: readonly ItemFragments[], spool: RowSpool | undefined): Promise<void> {
  // Both threads take items until none is left: the main thread from the front, a stretch at a time;
  // the worker from the back, a batch at a time. A fixed split left one of them idle for up to half a
  // second at 10,000 items (the main thread also sends the worker its material and takes its rows).
  let front = 0;
  let back = missing.length;
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(new URL('./d1-rows-worker.js', import.meta.url));
  // In batches, each answered before the next is sent: the worker holds a few hundred items' material
  // and rows at a time, not copies of half the site's bodies (110 MiB more at 10,000 items).
  const sent: (readonly ItemFragments[])[] = [];
  /** Sends the worker the next batch from the back; false when every item is taken. */
  const send = (): boolean => {
    // A quarter of what is left at most: neither thread is left with the last large share alone.
    const count = Math.min(BATCH, Math.ceil((back - front) / 4));
    if (count <= 0) return false;
    back -= count;
    const batch = missing.slice(back, back + count);
    sent.push(batch);
    worker.postMessage(
      batch.map((fragments) => {
        const { mcp } = fragments;
        forgetMcp(fragments);
        // The worker has its own copy of the bodies once posted.
        releaseBodies(fragments);
        return mcp;
      }),
    );
    return true;
  };
  const done = new Promise<void>((resolve, reject) => {
    worker.on('message', (rows: D1ItemRows<string | Uint8Array>[]) => {
      try {
        (sent.shift() ?? []).forEach((fragments, i) => {
          const made = rows[i] as D1ItemRows<string | Uint8Array>;
          if (spool) spoolBodies(made, spool);
          fragments.d1 = made;
        });
        if (!send() && sent.length === 0) resolve();
      } catch (error) {
        // The next batch's material could not be made or sent (a store closed under the build).
        reject(error);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`D1 rows worker exited with code ${code}`)));
  });
  // Swallow a rejection until it is awaited below, so a worker failure is not reported as unhandled.
  done.catch(() => undefined);
  try {
    send();
    send();
    while (front < back) {
      const end = Math.min(front + STRETCH, back);
      for (const fragments of missing.slice(front, end)) {
        const rows = d1RowsOf(fragments);
        rows.digest ??= rowsDigest(rows);
        releaseBodies(fragments);
        if (spool) spoolBodies(rows, spool);
      }
      front = end;
      // The worker's answers are taken between stretches, and its next batch sent.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
  } finally {
    await worker.terminate();
  }
}

/**
 * A digest of an item's rows, kept with them (mcp-output.ts names the import's files from them). Of
 * their bytes and counts: the same whether a text is a string the build made or bytes the store kept.
 * (A change of what it hashes needs the item store's STORE_FORMAT to go up: the digests are kept there.)
 */
export function rowsDigest(rows: D1ItemRows<string | ByteSpan | Uint8Array>): string {
  const hash = createHash('sha256');
  const part = (text: string | ByteSpan | Uint8Array) => {
    const bytes = typeof text === 'string' ? text : bytesOf(asPiece(text));
    hash.update(`${pieceLength(bytes)}:`).update(bytes);
  };
  part(rows.item);
  for (const list of [rows.translations, rows.bodies, rows.technologies]) {
    hash.update(`${list.length}|`);
    for (const text of list) part(text);
  }
  part(rows.search);
  part(rows.terms);
  return hash.digest('hex');
}
