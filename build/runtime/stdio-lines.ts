import { Transform, type TransformCallback } from 'node:stream';

/**
 * What stands between stdin and the SDK's stdio transport: it passes on whole lines (one JSON-RPC
 * message each) of at most `maxBytes`, and instead of a longer one, whose bytes it drops as they come
 * without keeping them, it calls `oversized` with the message's id when the line's first bytes show it.
 * The SDK's transport, given such a line, stops reading and closes (its buffer's limit, 10 MiB), which
 * ended the process with the requests behind it unanswered.
 */
export class LineLimit extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The first bytes of the line being dropped, for its id; undefined while no line is being dropped. */
  private head: Buffer | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly oversized: (id: string | number | null) => void,
    /**
     * A whole line that is no JSON-RPC message the transport can take: not JSON (-32700), or JSON but
     * not one message object (a batch: -32600). The transport would drop it with no answer; the caller
     * answers it, as HTTP does. Blank lines are skipped.
     */
    private readonly unreadable: (error: { code: number; message: string }) => void = () => undefined,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.head === undefined) {
        if (this.pendingBytes + piece.length > this.maxBytes) {
          this.head = Buffer.concat([...this.pending, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
          this.pending = [];
          this.pendingBytes = 0;
        } else if (piece.length > 0) {
          this.pending.push(piece);
          this.pendingBytes += piece.length;
        }
      }
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline: the transport would wait for the rest; an oversized one is answered.
    if (this.head !== undefined) this.endLine();
    else if (this.pendingBytes > 0) this.push(Buffer.concat(this.pending));
    done();
  }

  private endLine(): void {
    if (this.head !== undefined) {
      const head = this.head;
      this.head = undefined;
      this.oversized(leadingId(head.toString('utf8')));
    } else {
      const line = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      const error = lineError(line);
      if (error === 'blank') return;
      if (error) this.unreadable(error);
      else this.push(Buffer.concat([line, NEWLINE]));
    }
  }
}

/** Why a line cannot be a JSON-RPC message (as HTTP answers it), 'blank' for an empty one, else undefined. */
export function lineError(line: Buffer): { code: number; message: string } | 'blank' | undefined {
  const text = line.toString('utf8');
  if (text.trim() === '') return 'blank';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { code: -32700, message: 'Parse error: Invalid JSON' };
  }
  if (Array.isArray(value)) {
    return {
      code: -32600,
      message:
        'Invalid Request: a batch (a JSON array of messages) is not read over stdio; send one message per line',
    };
  }
  return undefined;
}

const NEWLINE = Buffer.from('\n');
/** How much of a dropped line is kept to find its id in. */
const HEAD_BYTES = 4096;

/**
 * The `id` of a JSON-RPC request when it comes early in the text (`{"jsonrpc":"2.0","id":7,…`, as
 * clients write it), read without parsing the rest: a top-level `"id"` member whose value is a number,
 * a string or null, before the text ends. Anything else (a batch, an id after the parameters, a cut-off
 * value) gives null, as JSON-RPC says an unreadable id is answered.
 */
export function leadingId(text: string): string | number | null {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return null;
  let depth = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === -1) return null;
      if (depth === 1) {
        const colon = skipSpace(text, end + 1);
        if (text[colon] === ':') {
          if (text.slice(i, end + 1) === '"id"') return idValue(text, skipSpace(text, colon + 1));
          i = colon + 1;
          continue;
        }
      }
      i = end + 1;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return null;
}

function idValue(text: string, at: number): string | number | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    if (end === -1) return null;
    const value: unknown = JSON.parse(text.slice(at, end + 1));
    return typeof value === 'string' ? value : null;
  }
  const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=\s*[,}])/.exec(text.slice(at, at + 40));
  return number ? Number(number[0]) : null;
}

/** The index of the quote that closes the string opening at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n'))
    i++;
  return i;
}
