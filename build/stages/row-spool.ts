import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type BytePiece, bytesOf, readAll, StoredBytes } from './stored-bytes.ts';

/** Bytes gathered before one write: the bodies' rows are some 5 KB each, 26,000 writes otherwise. */
const FLUSH_BYTES = 1 << 20;
/** Bytes read at once from where a piece read back begins (readBack). */
const READ_AHEAD = 64 << 10;

/** A row waiting in the buffer: put in its list as its place once written. */
interface Pending {
  list: unknown[];
  index: number;
  position: number;
  length: number;
}

/**
 * The D1 rows of the bodies a build makes, written to a file of the item store's as they are made and
 * held as places in it (stored-bytes.ts), as an edited build holds the rows it kept. A build from
 * nothing at 10,000 items otherwise held all 140 MiB of them until its end: the import and the store's
 * save both read them back from here, and the save moves them into its shards (FragmentStore.save).
 * The file is unlinked once open where the system allows it; otherwise it is removed when closed, or
 * when the process exits. The item store keeps a second one for the bodies a large parse puts aside
 * (parse-cache.ts spoolBody), which stay there as long as the store is open (a build's process never
 * closes it; dev's, through the session).
 */
export class RowSpool {
  /** The file's path while it still has one (a system that does not unlink an open file). */
  private path: string | undefined;
  private written = 0;
  private buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private pending: Pending[] = [];
  private places: StoredBytes[] = [];
  /** A write failed (a full disk, a file-size limit): rows stay in memory, as they did before. */
  private failed = false;
  /** The file is still open (close, or the process's end, closes it once). */
  private open = true;
  /** Removes the file at the process's end, where an open file keeps its name. */
  private atExit: (() => void) | undefined;

  private constructor(
    readonly fd: number,
    path: string,
  ) {
    try {
      unlinkSync(path);
    } catch {
      this.path = path;
      // A system that keeps an open file's name (Windows): removed when the process ends, if not closed
      // before (the bodies' spool stays open as long as its store, which a build's process never closes).
      this.atExit = () => this.remove();
      process.once('exit', this.atExit);
    }
  }

  /** A spool in `dir`; none when its file cannot be made there (the rows then stay in memory). */
  static open(dir: string, kind = 'rows'): RowSpool | undefined {
    try {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${kind}-${randomBytes(6).toString('hex')}.spool`);
      return new RowSpool(openSync(path, 'w+'), path);
    } catch {
      return undefined;
    }
  }

  /**
   * Puts `bytes`, the row at `list[index]`, in the spool: once written, its place there takes its
   * spot in the list. Nothing changes when the spool cannot be written.
   */
  keep(list: unknown[], index: number, bytes: Uint8Array): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (this.failed) return;
    if (bytes.length > this.buffer.length) {
      const position = this.written;
      if (this.write(bytes, bytes.length)) this.place({ list, index, position, length: bytes.length });
      return;
    }
    this.buffer.set(bytes, this.used);
    this.pending.push({ list, index, position: this.written + this.used, length: bytes.length });
    this.used += bytes.length;
  }

  /** Every row kept so far written, and held by its place. */
  flush(): void {
    if (this.used === 0 || this.failed) return;
    const written = this.write(this.buffer, this.used);
    this.used = 0;
    const pending = this.pending;
    this.pending = [];
    if (written) for (const row of pending) this.place(row);
  }

  private place({ list, index, position, length }: Pending): void {
    const place = new StoredBytes(this.fd, position, length);
    list[index] = place;
    this.places.push(place);
  }

  private write(bytes: Uint8Array, length: number): boolean {
    try {
      let done = 0;
      while (done < length) done += writeSync(this.fd, bytes, done, length - done, this.written + done);
      this.written += length;
      return true;
    } catch {
      this.failed = true;
      return false;
    }
  }

  /** What was read last (readBack), from where in the file. */
  private window: { from: number; bytes: Buffer } = { from: 0, bytes: Buffer.alloc(0) };

  /**
   * The bytes of a piece it kept, as a view valid until the next read: a piece still in the file is
   * read with what follows it, which the next pieces asked for often are (an item's translations, put
   * in one after the other, are read one after the other). A read is a system call, and 26,000 of them
   * were a second of a build from nothing at 10,000 items; this reads about one per item.
   */
  readBack(piece: BytePiece): Uint8Array {
    if (!(piece instanceof StoredBytes) || piece.fd !== this.fd) return bytesOf(piece);
    const { from, bytes } = this.window;
    const at = piece.position - from;
    if (at >= 0 && at + piece.length <= bytes.length) return bytes.subarray(at, at + piece.length);
    const length = Math.max(piece.length, Math.min(READ_AHEAD, this.written - piece.position));
    this.readBuffer ??= Buffer.allocUnsafe(READ_AHEAD);
    const read = length <= READ_AHEAD ? this.readBuffer : Buffer.allocUnsafe(length);
    readAll(this.fd, read, 0, length, piece.position);
    this.window = { from: piece.position, bytes: read.subarray(0, length) };
    return read.subarray(0, piece.length);
  }

  /** Made at the first read back (only the bodies' spool reads back). */
  private readBuffer: Buffer | undefined;

  /** No place it gave is in this file any more: the store's save moved them all into its shards. */
  get moved(): boolean {
    this.places = this.places.filter((place) => place.fd === this.fd);
    return this.places.length === 0 && this.pending.length === 0;
  }

  close(): void {
    // A place still held (a body a parse put here) is read from elsewhere once the file is closed: its
    // number may be another file's by then.
    for (const place of this.places) if (place.fd === this.fd) place.fd = -1;
    this.places = [];
    this.remove();
    // What still holds the spool (a body's reader) need not hold its buffers.
    this.buffer = Buffer.alloc(0);
    this.readBuffer = undefined;
    this.window = { from: 0, bytes: Buffer.alloc(0) };
  }

  private remove(): void {
    // Closed first (at the process's end too): a system that keeps an open file's name keeps the file.
    if (this.open) closeSync(this.fd);
    this.open = false;
    if (this.atExit) process.removeListener('exit', this.atExit);
    this.atExit = undefined;
    if (this.path === undefined) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone: nothing to remove
    }
    this.path = undefined;
  }
}
