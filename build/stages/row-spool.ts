import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StoredBytes } from './stored-bytes.ts';

/** Bytes gathered before one write: the bodies' rows are some 5 KB each, 26,000 writes otherwise. */
const FLUSH_BYTES = 1 << 20;

/**
 * The D1 rows of the bodies a build makes, written to a file of the item store's as they are made and
 * held as places in it (stored-bytes.ts), as an edited build holds the rows it kept. A build from
 * nothing at 10,000 items otherwise held all 140 MiB of them until its end: the import and the store's
 * save both read them back from here, and the save moves them into its shards (FragmentStore.save).
 * The file is unlinked once open where the system allows it, and removed when closed otherwise.
 */
export class RowSpool {
  readonly fd: number;
  /** The file's path while it still has one (a system that does not unlink an open file). */
  private path: string | undefined;
  private written = 0;
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private places: StoredBytes[] = [];

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `rows-${randomBytes(6).toString('hex')}.spool`);
    this.fd = openSync(path, 'w+');
    try {
      unlinkSync(path);
    } catch {
      this.path = path;
    }
  }

  /** The bytes' place in the file; readable once flushed. */
  keep(bytes: Uint8Array): StoredBytes {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    const place = new StoredBytes(this.fd, this.written + this.used, bytes.length);
    if (bytes.length > this.buffer.length) {
      this.writeAll(bytes, bytes.length);
    } else {
      this.buffer.set(bytes, this.used);
      this.used += bytes.length;
    }
    this.places.push(place);
    return place;
  }

  /** Every place given so far is readable. */
  flush(): void {
    if (this.used === 0) return;
    this.writeAll(this.buffer, this.used);
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array, length: number): void {
    let done = 0;
    while (done < length) done += writeSync(this.fd, bytes, done, length - done, this.written + done);
    this.written += length;
  }

  /** No place it gave is in this file any more: the store's save moved them all into its shards. */
  get moved(): boolean {
    this.places = this.places.filter((place) => place.fd === this.fd);
    return this.places.length === 0;
  }

  close(): void {
    closeSync(this.fd);
    if (this.path === undefined) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone: nothing to remove
    }
    this.path = undefined;
  }
}
