import type { OutputFile } from '../../core/output/outputs.ts';
import { sha256 } from './record.ts';

// An output's text is measured by the write (its record), the report and the plan's limits (its size),
// and dev writes the same texts build after build: at 10,000 items some 15 MB a build, hashed and
// measured once here. One text per path is kept, as the last build wrote it; a text equal to one kept
// (the same string: the alias and its version) is not hashed again.
const KEPT = new Map<string, { content: string; digest: string; bytes: number }>();

function measured(path: string, content: string): { digest: string; bytes: number } {
  let known = KEPT.get(path);
  if (known?.content !== content) {
    const same = [...KEPT.values()].find((k) => k.content.length === content.length && k.content === content);
    known = same
      ? { content, digest: same.digest, bytes: same.bytes }
      : { content, digest: sha256(content), bytes: Buffer.byteLength(content) };
    if (KEPT.size > 1000) KEPT.clear();
    KEPT.set(path, known);
  }
  return known;
}

/** The sha256 of an output's text. */
export function textDigest(file: OutputFile): string {
  return measured(file.path, file.content).digest;
}

/** An output's size in bytes. */
export function textBytes(file: OutputFile): number {
  return measured(file.path, file.content).bytes;
}
