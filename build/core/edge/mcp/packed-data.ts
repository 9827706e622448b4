import { utf8Length } from './d1-sql.ts';
import type { EmbeddedData, EmbeddedTables } from './embedded.ts';

/**
 * The embedded data as the bytes of a binary module (`mcp-data.bin`, which wrangler bundles as a Data
 * module: an ArrayBuffer, never parsed as JavaScript). As string literals in the JavaScript module, the
 * entries alone (JSON lines, every quote escaped) cost a cold isolate at 5,000 items some 115 ms of its
 * startup to compile; here startup decodes a header and nothing else, and an entry's line is decoded
 * when an answer includes it.
 *
 * The bytes, all UTF-8: one line of JSON, the header (EmbeddedData without `entries` and `bodies`, and
 * each entry's and each bodies line's length in bytes), a line break, then every entry's line and every
 * bodies line, one after another with nothing between them.
 */
interface PackedHeader extends Omit<EmbeddedData, 'entries' | 'bodies'> {
  entryBytes: number[];
  bodyBytes: number[];
}

/** Build time: the module's bytes, as text (it is all UTF-8). */
export function packEmbedded(data: EmbeddedData): string {
  const { entries, bodies, ...rest } = data;
  const entryLines = entries === '' ? [] : entries.split('\n');
  const bodyLines = entryLines.length === 0 ? [] : bodies.split('\n');
  const header: PackedHeader = {
    ...rest,
    entryBytes: entryLines.map(utf8Length),
    bodyBytes: bodyLines.map(utf8Length),
  };
  return `${JSON.stringify(header)}\n${entryLines.join('')}${bodyLines.join('')}`;
}

/** What the bytes do not add up to: another writer's file, or one cut short. */
export class PackedDataDamaged extends Error {}

/**
 * Startup: the header decoded and the lines' places worked out; the lines themselves stay bytes until
 * asked for. Throws PackedDataDamaged when the bytes are not what packEmbedded writes; the caller checks
 * the header's `format`.
 */
export function unpackEmbedded(packed: ArrayBuffer | Uint8Array): EmbeddedTables {
  const bytes = packed instanceof Uint8Array ? packed : new Uint8Array(packed);
  const end = bytes.indexOf(0x0a);
  if (end < 0) throw new PackedDataDamaged('no header');
  const decoder = new TextDecoder();
  let header: PackedHeader;
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(0, end))) as PackedHeader;
  } catch {
    throw new PackedDataDamaged('its header is not JSON');
  }
  const { entryBytes, bodyBytes, ...rest } = header;
  if (!Array.isArray(entryBytes) || !Array.isArray(bodyBytes)) throw new PackedDataDamaged('no line lengths');
  const entryStarts = starts(entryBytes, end + 1);
  const bodyStarts = starts(bodyBytes, entryStarts[entryBytes.length] as number);
  if (bodyStarts[bodyBytes.length] !== bytes.length)
    throw new PackedDataDamaged('its lengths are not its size');
  const line = (at: Float64Array, i: number): string => {
    const from = at[i];
    const to = at[i + 1];
    return from === undefined || to === undefined ? '' : decoder.decode(bytes.subarray(from, to));
  };
  return {
    ...rest,
    count: entryBytes.length,
    entryLine: (i) => line(entryStarts, i),
    bodiesLine: (i) => line(bodyStarts, i),
  };
}

/** Where each line starts, and after the last, where the next part does. */
function starts(lengths: readonly number[], from: number): Float64Array {
  const at = new Float64Array(lengths.length + 1);
  at[0] = from;
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i];
    if (typeof length !== 'number' || !(length >= 0))
      throw new PackedDataDamaged('a line length is not a number');
    at[i + 1] = (at[i] as number) + length;
  }
  return at;
}
