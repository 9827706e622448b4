/**
 * Opaque paging cursors for `list_content`. A cursor carries the offset of the next page and a
 * fingerprint of the filters and of the index it was made for, so a cursor from other filters or from
 * before a redeploy is refused instead of silently skipping or repeating items. It also carries the
 * position of the last entry it follows, so the D1 backend seeks to the next page through an index
 * instead of reading and skipping every row before it. It is not a secret: the content is public, and a
 * client that edits it only pages differently.
 */

export class CursorError extends Error {}

export interface CursorPosition {
  /** How many entries the earlier pages held. */
  offset: number;
  /** The index position of the last of them. */
  after?: number;
}

export function encodeCursor({ offset, after }: CursorPosition, binding: string): string {
  return toBase64Url(
    JSON.stringify({ o: offset, k: fingerprint(binding), ...(after !== undefined && { a: after }) }),
  );
}

/**
 * The offset the cursor points at. Throws CursorError, with a message for the agent, when it is not one
 * of ours or was made for other filters; {@link checkCursorOffset} then checks it against the results.
 */
export function decodeCursor(cursor: string, binding: string): CursorPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromBase64Url(cursor));
  } catch {
    throw new CursorError('is not a cursor returned by list_content');
  }
  const { o: offset, k: key, a: after } = (decoded ?? {}) as { o?: unknown; k?: unknown; a?: unknown };
  if (
    typeof offset !== 'number' ||
    !Number.isInteger(offset) ||
    typeof key !== 'string' ||
    (after !== undefined && (typeof after !== 'number' || !Number.isInteger(after) || after < 0))
  ) {
    throw new CursorError('is not a cursor returned by list_content');
  }
  if (key !== fingerprint(binding)) {
    throw new CursorError('was made for other filters or an older version of the index');
  }
  if (offset < 1) throw new CursorError('points outside the results');
  return after === undefined ? { offset } : { offset, after };
}

/** A cursor past the end (the index shrank, or the offset was edited) points at nothing. */
export function checkCursorOffset(offset: number, total: number): void {
  if (offset >= total) throw new CursorError('points outside the results');
}

/** FNV-1a, 32 bits: enough to tell filter sets and builds apart; not a security measure. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (const char of new TextEncoder().encode(text)) {
    hash ^= char;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new CursorError('not base64url');
  return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
}
