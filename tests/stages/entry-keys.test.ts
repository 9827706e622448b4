import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { entryKeys } from '../../build/stages/mcp-output.ts';

vi.mock('node:crypto', async (actual) => {
  const crypto = await actual<typeof import('node:crypto')>();
  return { ...crypto, createHash: vi.fn(crypto.createHash) };
});

// The real digest, not counted among the build's.
const digits = (id: string) =>
  (vi.mocked(createHash).getMockImplementation() as typeof createHash)('sha256')
    .update(id)
    .digest('hex')
    .slice(0, 12);

describe('entryKeys', () => {
  it('keys each id by its digest, and digests an id once per process', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `post/entrada-${i}`);
    const hashes = vi.mocked(createHash);
    hashes.mockClear();
    const first = entryKeys(ids);
    expect(hashes.mock.calls.length).toBe(ids.length);
    expect(first).toEqual(ids.map(digits));
    hashes.mockClear();
    // A dev save keys every entry again: the same keys, no digest made again, a new id digested alone.
    expect(entryKeys([...ids, 'tip/nuevo'])).toEqual([...first, digits('tip/nuevo')]);
    expect(hashes.mock.calls.length).toBe(1);
  });

  it('keeps two ids with the same digits apart, in their order', () => {
    expect(entryKeys(['tip/a', 'tip/a', 'tip/a'])).toEqual([
      digits('tip/a'),
      `${digits('tip/a')}-1`,
      `${digits('tip/a')}-2`,
    ]);
  });
});
