import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Length } from '../../build/core/edge/mcp/d1-sql.ts';
import { bytesOf, SectionReader, StoredBytes } from '../../build/stages/stored-bytes.ts';

// The item store reads its shards through SectionReader (lines and texts decoded as they come, the D1
// bodies' rows left in the file), and the D1 import groups its rows by their UTF-8 length.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-stored-bytes-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('SectionReader', () => {
  it('reads lines longer than its reads, texts across them, and spans it leaves in the file', () => {
    const long = `${'é'.repeat(700_000)}x`; // 1.4 MB of UTF-8: longer than one read (1 MiB)
    const body = 'cuerpo ñandú '.repeat(100_000);
    const file = join(dir, 'section');
    writeFileSync(file, `head\n${long}\nuno\n${body}fin\n`);
    const fd = openSync(file, 'r');
    try {
      const reader = new SectionReader(fd, 5, 5 + Buffer.byteLength(`${long}\nuno\n${body}fin\n`));
      expect(reader.line()).toBe(long);
      expect(reader.text(4)).toBe('uno\n');
      const span = reader.span(Buffer.byteLength(body));
      expect(span).toBeInstanceOf(StoredBytes);
      expect(Buffer.from(bytesOf(span)).toString('utf8')).toBe(body);
      expect(reader.line()).toBe('fin');
      expect(reader.done).toBe(true);
      expect(() => reader.text(1)).toThrow('truncated');
    } finally {
      closeSync(fd);
    }
  });

  it('says a section cut short is truncated, not a line', () => {
    const file = join(dir, 'cut');
    writeFileSync(file, 'sin fin de línea');
    const fd = openSync(file, 'r');
    try {
      expect(() => new SectionReader(fd, 0, 17).line()).toThrow('truncated');
    } finally {
      closeSync(fd);
    }
  });
});

describe('utf8Length', () => {
  it('is the length Node encodes, for every width and for lone surrogates', () => {
    for (const text of [
      '',
      'ascii',
      'ñandú',
      '\u07ff\u0800',
      '€ 中文',
      '😀 emoji',
      '\ud83d', // a lone high surrogate at the end
      '\ude00 lone low',
      'a\ud83db', // a high surrogate followed by something else
    ])
      expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
  });
});
