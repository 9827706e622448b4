import { createHash } from 'node:crypto';
import { BUNDLED } from '../core/bundled.ts';
import type { ByteSpan, D1ItemRows } from '../core/edge/mcp/d1-sql.ts';
import { d1RowsOf, forgetMcp, type ItemFragments } from '../core/output/item-fragments.ts';
import { buildWorker } from './build-worker.ts';
import { releaseBodies } from './held-bodies.ts';
import type { RowSpool } from './row-spool.ts';
import { shareWithWorker } from './share-with-worker.ts';
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

async function onTwoThreads(missing: readonly ItemFragments[], spool: RowSpool | undefined): Promise<void> {
  // Shared as they go (share-with-worker.ts); in batches, each answered before the next is sent: the
  // worker holds a few hundred items' material and rows at a time, not copies of half the site's bodies
  // (110 MiB more at 10,000 items). The main thread also sends the worker its material and takes its rows.
  await shareWithWorker<D1ItemRows<string | Uint8Array>[]>(
    buildWorker(new URL('./d1-rows-worker.js', import.meta.url)),
    missing.length,
    {
      name: 'D1 rows worker',
      batch: 200,
      stretch: 100,
      message: (from, to) =>
        missing.slice(from, to).map((fragments) => {
          const { mcp } = fragments;
          forgetMcp(fragments);
          // The worker has its own copy of the bodies once posted.
          releaseBodies(fragments);
          return mcp;
        }),
      take: (from, rows) =>
        rows.forEach((made, i) => {
          if (spool) spoolBodies(made, spool);
          (missing[from + i] as ItemFragments).d1 = made;
        }),
      mine: (from, to) => {
        for (const fragments of missing.slice(from, to)) {
          const rows = d1RowsOf(fragments);
          rows.digest ??= rowsDigest(rows);
          releaseBodies(fragments);
          if (spool) spoolBodies(rows, spool);
        }
      },
    },
  );
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
