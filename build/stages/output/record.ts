import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Entry } from './tree.ts';

/** A file the build wrote, as it left it. */
export interface OwnedFile {
  sha256: string;
  size: number;
  ino: number;
  mtimeMs: number;
  /** Set for a file published from the static folder: its source, as it was when copied. */
  /**
   * A static file's source when it was copied: the next build links the copy again only while the source
   * has the same stamp. The change time and inode are in it because size and modification time can be
   * put back after an edit (`touch -d`); the change time cannot.
   */
  from?: {
    path: string;
    size: number;
    mtimeMs: number;
    ctimeMs?: number;
    ino?: number;
    /** The stamp was too recent to vouch for the bytes (parse-cache.ts RACY_MS): compared by content next time. */
    racy?: boolean;
  };
}

/**
 * What one output generation holds besides the author's files: the record the next build reads to know
 * which files are its own. A file is the build's only while it is still the file the build wrote (same
 * inode, size and time, or failing that the same bytes); anything else at that path is the author's.
 */
export interface OutputRecord {
  version: 1;
  generation: number;
  files: Record<string, OwnedFile>;
  /**
   * The author's files carried in from the previous output, with their inode. After a crash between
   * the switch and the reconciliation, this tells a file the author created in the old folder during
   * the build (move it over) from one the author deleted from the new folder since (leave it deleted).
   */
  carried: Record<string, number>;
}

export function sha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function readRecord(file: string): Promise<OutputRecord | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<OutputRecord>;
    if (value.version !== 1 || typeof value.files !== 'object' || value.files === null) return undefined;
    return {
      version: 1,
      generation: value.generation ?? 0,
      files: value.files,
      carried: value.carried ?? {},
    };
  } catch {
    return undefined;
  }
}

/** Written beside the generation, complete or not at all (a rename). */
export async function writeRecord(file: string, record: OutputRecord): Promise<void> {
  const staging = `${file}.tmp-${process.pid}`;
  await writeFile(staging, JSON.stringify(record));
  await rename(staging, file);
}

/**
 * Whether the file at `full` is still the one the build recorded. The inode, size and time answer
 * almost always without reading; bytes decide otherwise (a restored copy of the output is still ours).
 */
export async function isStillOurs(entry: Entry, owned: OwnedFile, full: string): Promise<boolean> {
  if (entry.kind !== 'file' || entry.size !== owned.size) return false;
  if (entry.ino === owned.ino && entry.mtimeMs === owned.mtimeMs) return true;
  try {
    return sha256(await readFile(full)) === owned.sha256;
  } catch {
    return false;
  }
}
