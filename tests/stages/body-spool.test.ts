import { writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOfFile } from '../../build/stages/parse/body-text.js';
import type { ParsedSource } from '../../build/stages/parse/parse-source.js';
import { spoolBody } from '../../build/stages/parse-cache.ts';
import { RowSpool } from '../../build/stages/row-spool.ts';

// A large parse puts each body in the item store's spool as it is parsed (parse-files.ts), and the
// item's MCP share reads it back from there: texts of every size, read in any order, before and after
// they reach the file, and from the source file once the spool is closed.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-body-spool-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const outcome = (body: string): ParsedSource => ({ data: {}, matter: '', format: 'yaml', body });

describe('spoolBody', () => {
  it('gives back every body as it was put, whatever its size and wherever it is read from', async () => {
    const spool = RowSpool.open(dir, 'bodies') as RowSpool;
    expect(spool).toBeDefined();
    // Neighbours read in one go (64 KiB), one longer than that, one past the 1 MiB write buffer.
    const sizes = [1, 7, 5_000, 40_000, 65_535, 65_537, 100_000, 1_500_000, 3, 12_000];
    const texts = Array.from({ length: 120 }, (_, i) => {
      const unit = ['añadir ', 'ção ', '漢字 ', 'emoji 🙂 ', 'plain '][i % 5] as string;
      const size = sizes[i % sizes.length] as number;
      return `${i}:${unit.repeat(Math.ceil(size / unit.length)).slice(0, size)}`;
    });
    const outcomes = texts.map(outcome);
    for (const o of outcomes) expect(spoolBody(o, spool, join(dir, 'none.md'), 1 << 20, 'h')).toBe(true);
    // Taken out of the outcome at once; the last ones still wait in the buffer.
    expect(outcomes.every((o) => o.body === undefined)).toBe(true);
    const order = texts.map((_, i) => (i * 97) % texts.length);
    for (const i of order) expect(outcomes[i]?.bodyOf?.()).toBe(texts[i]);
    spool.flush();
    for (const i of [...order].reverse()) expect(outcomes[i]?.bodyOf?.()).toBe(texts[i]);
    // In the order they were put, as an item's translations are read: most from the last read's bytes.
    for (const [i, o] of outcomes.entries()) expect(o.bodyOf?.()).toBe(texts[i]);
    // Unlinked once open (POSIX): nothing is left in the folder by a build that ends without closing it.
    if (process.platform !== 'win32') expect(await readdir(dir)).toEqual([]);
    spool.close();
  });

  it('keeps nothing of an outcome without a body', () => {
    const spool = RowSpool.open(dir, 'bodies') as RowSpool;
    const empty = outcome('');
    expect(spoolBody(empty, spool, join(dir, 'none.md'), 1 << 20, 'h')).toBe(false);
    expect(empty.bodyOf).toBeUndefined();
    spool.close();
  });

  it('reads a body from its file, by its hash, once the spool is closed', () => {
    const file = join(dir, 'post.es.md');
    writeFileSync(file, '---\ntitle: Hola\n---\nUn cuerpo con **zanahorias** y ñandúes.\n');
    const read = bodyOfFile(file, 1 << 20);
    if ('error' in read) throw new Error(read.error);
    const spool = RowSpool.open(dir, 'bodies') as RowSpool;
    const o = outcome(read.body);
    spoolBody(o, spool, file, 1 << 20, read.hash);
    spool.flush();
    spool.close();
    expect(o.bodyOf?.()).toBe(read.body);
    expect(read.body).toContain('zanahorias');
  });
});
