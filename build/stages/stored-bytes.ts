import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Bytes a build leaves in a file it holds open instead of reading them: the items' D1 rows (their
 * bodies alone are four fifths of the item store at 10,000 items) go from the store's file into the D1
 * import without ever being held in memory (fragment-store.ts, mcp-output.ts). Memory a build touches
 * is what costs on a machine short of it; reading 150 MB into new buffers took longer than the rest of
 * the load stage.
 */
export class StoredBytes {
  constructor(
    /** The open file (the item store moves it to the file it writes in place of this one). */
    public fd: number,
    public position: number,
    readonly length: number,
  ) {}
}

export type BytePiece = Uint8Array | StoredBytes;

/** The piece's bytes: read from its file when stored there. */
export function bytesOf(piece: string | BytePiece): Uint8Array {
  if (typeof piece === 'string') return Buffer.from(piece);
  if (!(piece instanceof StoredBytes)) return piece;
  const bytes = Buffer.allocUnsafe(piece.length);
  readAll(piece.fd, bytes, 0, piece.length, piece.position);
  return bytes;
}

/** A row's bytes as the build holds them (made as a Uint8Array, or kept by the item store), checked. */
export function asPiece(span: string | { readonly length: number }): string | BytePiece {
  if (typeof span === 'string' || span instanceof Uint8Array || span instanceof StoredBytes) return span;
  throw new Error('a D1 row of an unknown kind');
}

export function pieceLength(piece: string | BytePiece): number {
  return typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
}

export function readAll(
  fd: number,
  into: Uint8Array,
  offset: number,
  length: number,
  position: number,
): void {
  // Its store closed (fd -1): the number it had may be another file's by now.
  if (fd < 0) throw new Error('a stored text was read after its item store was closed');
  let done = 0;
  while (done < length) {
    const read = readSync(fd, into, offset + done, length - done, position + done);
    if (read === 0) throw new Error('a stored text ends early (its file was changed)');
    done += read;
  }
}

/** What writePieces needs of an open file (Node's FileHandle). */
export interface PieceSink {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
}

/**
 * Writes the pieces in order through two reusable buffers: one is filled (stored bytes read into it,
 * neighbours in one read: NearbyReads; texts encoded straight into it) while the other is written, so
 * that the build's thread is not idle for each write (a build from nothing at 10,000 items waited
 * 290–420 ms for its 325 MiB of writes with one buffer). Nothing of the whole is held at once.
 */
export async function writePieces(handle: PieceSink, pieces: readonly (string | BytePiece)[]): Promise<void> {
  const lengths = pieces.map(pieceLength);
  const total = lengths.reduce((sum, length) => sum + length, 0);
  const size = Math.min(total, 4 << 20);
  let buffer: Buffer = Buffer.allocUnsafe(size);
  let spare: Buffer | undefined;
  let used = 0;
  let writing: Promise<void> | undefined;
  const near = new NearbyReads(pieces);
  const writeAll = async (bytes: Uint8Array, length: number) => {
    let written = 0;
    while (written < length) written += (await handle.write(bytes, written, length - written)).bytesWritten;
  };
  /** The write under way ended (its buffer free again). */
  const settle = async () => {
    if (!writing) return;
    const under = writing;
    writing = undefined;
    await under;
  };
  /** The buffer filled so far handed to a write, and the other one taken to fill. */
  const flush = async () => {
    if (used === 0) return;
    await settle();
    writing = writeAll(buffer, used);
    // Swallowed until settled: a failure is thrown there, not reported as unhandled meanwhile.
    writing.catch(() => undefined);
    [buffer, spare] = [spare ?? Buffer.allocUnsafe(size), buffer];
    used = 0;
    // Awaited (settle, and the caller's await of this): the item store may have moved pieces meanwhile
    // to a file that reuses a number read before. The other awaits (a piece past the buffer, the end)
    // come right after this, nothing read between.
    near.forget();
  };
  try {
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string | BytePiece;
      const length = lengths[i] as number;
      if (length > buffer.length) {
        await flush();
        await settle();
        await writeAll(bytesOf(piece), length);
        continue;
      }
      if (used + length > buffer.length) await flush();
      if (typeof piece === 'string') buffer.write(piece, used, length, 'utf8');
      else if (piece instanceof StoredBytes) near.read(i, buffer, used);
      else buffer.set(piece, used);
      used += length;
    }
    await flush();
  } catch (error) {
    // The write under way ends before the file is given up; the first failure is the one told.
    await settle().catch(() => undefined);
    throw error;
  }
  await settle();
}

/** Stored pieces this close after one another in their file are read at once, up to WINDOW_BYTES. */
const NEAR_BYTES = 4096;
const WINDOW_BYTES = 256 << 10;
/** How far ahead the next stored piece is looked for (the texts between rows are skipped). */
const LOOK_AHEAD = 16;

/**
 * Reads of stored pieces, those close together in one file made one read: an item's rows of a table
 * (its translations, its bodies) lie one after the other in the item store's file and go into the
 * import one after the other, a read each otherwise (74,323 reads for an edit at 10,000 items, 40,445
 * this way).
 */
class NearbyReads {
  private window: Uint8Array | undefined;
  /** The file the window was read from (NaN: none; -1 is a closed store's). */
  private fd = Number.NaN;
  private start = 0;
  private filled = 0;

  constructor(private readonly pieces: readonly (string | BytePiece)[]) {}

  /** Nothing is served from what was read before (the caller waited: pieces may have moved). */
  forget(): void {
    this.fd = Number.NaN;
    this.filled = 0;
  }

  /** Piece `i` (stored bytes) into `into` at `offset`. */
  read(i: number, into: Uint8Array, offset: number): void {
    const piece = this.pieces[i] as StoredBytes;
    const { fd, position, length } = piece;
    if (fd === this.fd && position >= this.start && position + length <= this.start + this.filled) {
      const from = position - this.start;
      into.set((this.window as Uint8Array).subarray(from, from + length), offset);
      return;
    }
    let end = position + length;
    for (let j = i + 1; j < this.pieces.length && j <= i + LOOK_AHEAD; j++) {
      const next = this.pieces[j];
      if (!(next instanceof StoredBytes)) continue;
      const nextEnd = next.position + next.length;
      if (next.fd !== fd || next.position < end || next.position - end > NEAR_BYTES) break;
      if (nextEnd - position > WINDOW_BYTES) break;
      end = nextEnd;
    }
    if (end === position + length) {
      readAll(fd, into, offset, length, position);
      return;
    }
    this.window ??= Buffer.allocUnsafe(WINDOW_BYTES);
    readAll(fd, this.window, 0, end - position, position);
    this.fd = fd;
    this.start = position;
    this.filled = end - position;
    into.set(this.window.subarray(0, length), offset);
  }
}

/** A file made of the pieces (see writePieces). */
export async function writeFilePieces(path: string, pieces: readonly (string | BytePiece)[]): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await writePieces(handle, pieces);
  } finally {
    await handle.close();
  }
}
