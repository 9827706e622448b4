import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Length } from '../../build/core/edge/mcp/d1-sql.ts';
import { StoredBytes, writePieces } from '../../build/stages/stored-bytes.ts';

// The item store writes its shards and the D1 import through writePieces (the D1 bodies' rows read
// from the files they are kept in), and the D1 import groups its rows by their UTF-8 length.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-stored-bytes-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('writePieces', () => {
  it('writes texts, bytes and stored bytes in order, each of any size against its buffer', async () => {
    const source = join(dir, 'source');
    const stored = 'guardado ✓ '.repeat(500_000); // 6 MB: past the 4 MiB buffer
    writeFileSync(source, `xx${stored}yy`);
    const fd = openSync(source, 'r');
    const pieces = [
      'título ✓\n',
      new StoredBytes(fd, 2, Buffer.byteLength(stored)),
      Buffer.from('bytes\n'),
      'ñ'.repeat(2_500_000), // 5 MB of text: past the buffer too
      '\ud800 a lone surrogate, and an emoji 🙂',
      new StoredBytes(fd, 0, 2),
    ];
    const target = join(dir, 'written');
    const handle = await open(target, 'w');
    try {
      await writePieces(handle, pieces);
    } finally {
      await handle.close();
      closeSync(fd);
    }
    const expected = Buffer.concat(
      pieces
        .map((p) => (typeof p === 'string' ? Buffer.from(p) : p instanceof StoredBytes ? null : p))
        .map((b, i) => b ?? Buffer.from(i === 1 ? stored : 'xx')),
    );
    expect((await readFile(target)).equals(expected)).toBe(true);
  });

  it('reads stored pieces near one another at once, and each where it is whatever the order', async () => {
    // Rows as the item store lays them out: neighbours, small gaps, a gap too wide, a jump back, and
    // another file in between, each with texts between them as the import has.
    const a = join(dir, 'rows-a');
    const b = join(dir, 'rows-b');
    const textA = Array.from({ length: 400 }, (_, i) => `fila ${i} ñ ${'x'.repeat(i % 50)}|`).join('');
    const textB = 'otro archivo ✓ '.repeat(20_000);
    writeFileSync(a, textA);
    writeFileSync(b, textB);
    const fds = [openSync(a, 'r'), openSync(b, 'r')] as const;
    try {
      const spans: [file: 0 | 1, start: number, end: number][] = [
        [0, 0, 10],
        [0, 10, 30],
        [0, 40, 45],
        [0, 100, 200],
        [0, 9_000, 9_010], // past NEAR_BYTES: read alone
        [0, 50, 60], // behind the window
        [1, 0, 5],
        [0, 60, 80],
        [1, 5, 200_000], // near, but past the window
        [1, 200_000, 280_000],
        [0, 80, 81],
      ];
      const pieces = spans.flatMap(([file, start, end], i) => [
        `<${i}>`,
        new StoredBytes(fds[file], start, end - start),
      ]);
      const sources = [Buffer.from(textA), Buffer.from(textB)];
      const expected = Buffer.concat(
        spans.flatMap(([file, start, end], i) => [
          Buffer.from(`<${i}>`),
          (sources[file] as Buffer).subarray(start, end),
        ]),
      );
      const target = join(dir, 'near');
      const handle = await open(target, 'w');
      await writePieces(handle, pieces);
      await handle.close();
      expect((await readFile(target)).equals(expected)).toBe(true);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  });
});

describe('writePieces, stored pieces moved while it waits', () => {
  it('reads a piece moved during a write from where it is now, not from what it read before', async () => {
    // The item store replaces a shard while an import is being written (dev): its pieces move to the
    // new file, whose descriptor may have the number a closed file had. Nothing read before a write is
    // served after it.
    const before = join(dir, 'shard-old');
    const after = join(dir, 'shard-new');
    writeFileSync(before, 'A'.repeat(40));
    writeFileSync(after, 'B'.repeat(40));
    const fd = openSync(before, 'r');
    const first = new StoredBytes(fd, 0, 10);
    const moved = new StoredBytes(fd, 10, 10); // near the first: read with it
    const filler = 'x'.repeat((4 << 20) - 10); // fills the buffer: a write comes between the two
    const chunks: Buffer[] = [];
    let reopened = -1;
    const sink = {
      async write(buffer: Uint8Array, offset: number, length: number) {
        chunks.push(Buffer.from(buffer.subarray(offset, offset + length)));
        if (reopened < 0) {
          closeSync(fd);
          reopened = openSync(after, 'r'); // most likely the same number
          moved.fd = reopened;
        }
        return { bytesWritten: length };
      },
    };
    try {
      await writePieces(sink, [first, filler, moved]);
      const out = Buffer.concat(chunks).toString('latin1');
      expect(out.slice(0, 10)).toBe('A'.repeat(10));
      expect(out.slice(-10)).toBe('B'.repeat(10));
    } finally {
      closeSync(reopened < 0 ? fd : reopened);
    }
  });
});

describe('writePieces into a slow sink', () => {
  // A sink that takes its time and part of what it is given, as a file system under load may: the
  // bytes still come in order, and a failed write fails the whole, with nothing left unhandled.
  const sink = (failAt?: number) => {
    const chunks: Buffer[] = [];
    let calls = 0;
    return {
      chunks,
      async write(buffer: Uint8Array, offset: number, length: number) {
        calls++;
        await new Promise((r) => setTimeout(r, calls % 3));
        if (calls === failAt) throw new Error('disco lleno');
        const taken = Math.max(1, Math.floor(length / 2));
        chunks.push(Buffer.from(buffer.subarray(offset, offset + taken)));
        return { bytesWritten: taken };
      },
    };
  };
  const pieces = () => {
    const made: (string | Uint8Array)[] = [];
    for (let i = 0; i < 700; i++) made.push(`fila ${i} ñ|`, Buffer.alloc(15_000 + (i % 7), i % 251));
    made.push(Buffer.alloc(9 << 20, 7)); // past a buffer: written on its own, after what came before
    made.push('fin ✓');
    return made;
  };

  it('writes every byte in order, a write taking part of what it is given', async () => {
    const out = sink();
    await writePieces(out, pieces());
    expect(Buffer.concat(out.chunks).equals(Buffer.concat(pieces().map((p) => Buffer.from(p))))).toBe(true);
  });

  it('fails with the write that failed, wherever it was', async () => {
    for (const failAt of [1, 2, 5, 40])
      await expect(writePieces(sink(failAt), pieces())).rejects.toThrow('disco lleno');
  });
});

describe('writePieces, filling while it writes', () => {
  it('fills the next buffer while the last one is written, and hands it over only once that write ends', async () => {
    // A sink whose writes end only when released: what the pieces say is read in the meantime.
    const source = join(dir, 'overlap');
    writeFileSync(source, 'z'.repeat(3 << 20));
    const fd = openSync(source, 'r');
    const held: (() => void)[] = [];
    const starts: number[] = [];
    let reads = 0;
    const written: Buffer[] = [];
    const sink = {
      write(buffer: Uint8Array, offset: number, length: number) {
        starts.push(reads);
        const copy = Buffer.from(buffer.subarray(offset, offset + length));
        return new Promise<{ bytesWritten: number }>((resolve) =>
          held.push(() => {
            written.push(copy);
            resolve({ bytesWritten: length });
          }),
        );
      },
    };
    // Pieces of 3 MiB, texts and stored bytes in turn: no two fit one 4 MiB buffer, so each is a write.
    const piece = () => {
      const stored = new StoredBytes(fd, 0, 3 << 20);
      // Counted as read: a getter on its position, which the read looks at.
      let position = 0;
      Object.defineProperty(stored, 'position', {
        get: () => {
          reads++;
          return position;
        },
        set: (value: number) => {
          position = value;
        },
      });
      return stored;
    };
    const pieces = ['a'.repeat(3 << 20), piece(), 'b'.repeat(3 << 20), piece(), 'c'.repeat(1000)];
    const done = writePieces(sink, pieces);
    try {
      await new Promise((r) => setTimeout(r, 20));
      // The first buffer (the 3 MiB of a) is being written, and the stored piece after it was read
      // into the other buffer meanwhile; no second write starts before the first ends.
      expect(starts).toEqual([0]);
      expect(reads).toBeGreaterThan(0);
      let ended = false;
      const end = () => {
        ended = true;
      };
      void done.then(end, end);
      while (!ended) {
        // One write under way at most: the buffer it was given is not filled again before it ends.
        expect(held.length).toBeLessThanOrEqual(1);
        held.shift()?.();
        await new Promise((r) => setTimeout(r, 5));
      }
      await done;
    } finally {
      closeSync(fd);
    }
    const z = 'z'.repeat(3 << 20);
    expect(Buffer.concat(written).toString('latin1')).toBe(
      `${'a'.repeat(3 << 20)}${z}${'b'.repeat(3 << 20)}${z}${'c'.repeat(1000)}`,
    );
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
