import type { OutputFile } from '../../core/output/outputs.ts';
import { sha256 } from './record.ts';
import { utf8Patched } from './utf8-patch.ts';

// An output's text is measured by the write (its record), the report and the plan's limits (its size),
// and dev writes the same texts build after build: at 10,000 items some 15 MB a build, hashed and
// measured once here. One text per path is kept, as the last build wrote it (so at most one per output
// path the process ever wrote); a large text equal to another path's (the alias and its version, the
// same string) takes that one's measures.
interface Measured {
  content: string;
  digest?: string;
  bytes?: number;
  /** Its UTF-8, made once for its digest, its compressed size and its write, and let go once written. */
  encoded?: Buffer;
  /** The text this path had before and its UTF-8, kept by the write (`textWritten`) to encode this one from. */
  earlier?: { content: string; encoded: Buffer };
  /** It replaced another text at its path: one that changes from build to build, worth keeping for the next. */
  changing?: boolean;
}
const KEPT = new Map<string, Measured>();
/** Below this many UTF-16 units a text is hashed again rather than looked for among the others. */
const SHARED = 1 << 16;

function measured(path: string, content: string): Measured {
  let known = KEPT.get(path);
  if (known?.content !== content) {
    const earlier = known?.encoded && { content: known.content, encoded: known.encoded };
    known = { content, ...(earlier && { earlier }), ...(known && { changing: true }) };
    if (content.length >= SHARED)
      for (const other of KEPT.values())
        if (other.content.length === content.length && other.content === content) {
          // The same measures for both paths (a later text at either path gets its own).
          known = other;
          break;
        }
    KEPT.set(path, known);
  }
  return known;
}

/** The sha256 of an output's text. */
export function textDigest(file: OutputFile): string {
  const known = measured(file.path, file.content);
  known.digest ??= sha256(encodedOf(known));
  return known.digest;
}

/** An output's size in bytes. */
export function textBytes(file: OutputFile): number {
  const known = measured(file.path, file.content);
  known.bytes ??= known.encoded?.length ?? Buffer.byteLength(file.content);
  return known.bytes;
}

/**
 * An output's text as UTF-8, encoded once for the hash, the compressed size and the write (each took
 * its own copy: 15 MB a build at 10,000 items, three times).
 */
export function textEncoded(file: OutputFile): Buffer {
  return encodedOf(measured(file.path, file.content));
}

/**
 * Lets an output's UTF-8 go once it is written (or linked): the write is the last to need it. Kept with
 * `keep` for a large text that changed since the last build (dev, which writes it again at its next
 * save, mostly the same); not for one that stays (the API reference's script).
 */
export function textWritten(file: OutputFile, keep = false): void {
  const known = KEPT.get(file.path);
  if (known && !(keep && known.changing && known.content.length >= SHARED)) delete known.encoded;
}

function encodedOf(known: Measured): Buffer {
  if (!known.encoded) {
    const { earlier } = known;
    delete known.earlier;
    known.encoded = earlier
      ? utf8Patched(earlier.content, earlier.encoded, known.content)
      : Buffer.from(known.content);
  }
  known.bytes ??= known.encoded.length;
  return known.encoded;
}
