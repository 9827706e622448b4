import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBackend, embeddedData, embeddedTables } from '../../build/core/edge/mcp/embedded.ts';
import { createMcpFunction } from '../../build/core/edge/mcp/function.ts';
import { MCP_DATA_FORMAT } from '../../build/core/edge/mcp/mcp-data.ts';
import { packEmbedded, unpackEmbedded } from '../../build/core/edge/mcp/packed-data.ts';
import {
  MCP_MODULE_PATH,
  MCP_PACKED_PATH,
  packedModuleMeta,
  parseMcpModule,
} from '../../build/core/edge/mcp/worker-module.ts';
import { build } from '../../build/index.ts';
import { readMcpModule } from '../../build/runtime/read-mcp-module.ts';
import { compiledWorkerGzipBytes } from '../../build/runtime/worker-size.ts';
import { installFunctions } from '../helpers/functions.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

// Texts whose UTF-8 is longer than their JavaScript length (accents: 2 bytes for 1 unit; CJK: 3 for 1;
// an emoji: 4 for 2): a line's place counted in units instead of bytes would cut every later line.
const FILES = {
  'content/posts/cafe.es.md': md(
    { title: 'Café ☕ con 🦀 Rust', date: '2025-01-01', tags: ['rust'] },
    `${'El préstamo en Rust: ñandú, acción, corazón 🧠. '.repeat(30)}\n`,
  ),
  'content/posts/cafe.en.md': md(
    { title: 'Coffee ☕ with 🦀 Rust', date: '2025-01-01', tags: ['rust'] },
    `${'Borrowing in Rust, 日本語のテキスト, and 🧠 too. '.repeat(30)}\n`,
  ),
  'content/posts/plain.es.md': md({ title: 'Sencillo', date: '2025-01-02' }, 'Texto sin adornos.\n'),
  'content/tips/atajo.es.md': md({ title: 'Atajo ⌘K', description: 'Un atajo 🔑' }, 'Pulsa ⌘K.\n'),
};

/** Words no compressor shortens much: a deterministic stream of letters, `count` words long. */
function noise(count: number, seed: number): string {
  let state = seed;
  const words: string[] = [];
  for (let w = 0; w < count; w++) {
    let word = '';
    for (let c = 0; c < 7; c++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat within a few steps.
      word += String.fromCharCode(97 + ((state >>> 16) % 26));
    }
    words.push(word);
  }
  return words.join(' ');
}

async function material() {
  site = await tempSite(FILES, { ...FIXTURE_CONFIG, mcp: { backend: 'embedded', bodies: true } });
  return (await build({ root: site.root, dryRun: true, clock: () => new Date('2026-01-01T00:00:00Z') }))
    .mcpPrepared;
}

describe('the embedded data packed into the binary module', () => {
  it('reads back every entry and bodies line, byte for byte, past texts that UTF-8 makes longer', async () => {
    const data = embeddedData(await material());
    const packed = Buffer.from(packEmbedded(data));
    // A Buffer is a view into a larger pool: the lines are found by the view's own offsets.
    const pooled = Buffer.concat([Buffer.from('junk before'), packed]).subarray(11);
    const whole = embeddedTables(data);
    for (const bytes of [packed, pooled, new Uint8Array(packed).buffer]) {
      const tables = unpackEmbedded(bytes);
      expect(tables.count).toBe(whole.count);
      for (let i = 0; i < whole.count; i++) {
        expect(tables.entryLine(i)).toBe(whole.entryLine(i));
        expect(tables.bodiesLine(i)).toBe(whole.bodiesLine(i));
      }
      expect(tables.entryLine(whole.count)).toBe('');
      const { entryLine, bodiesLine, ...rest } = tables;
      const { entryLine: _e, bodiesLine: _b, ...expected } = whole;
      expect(rest).toEqual(expected);
    }
  });

  it('answers as the data it was packed from: lists, searches, snippets from the bodies', async () => {
    const data = embeddedData(await material());
    const fromData = createEmbeddedBackend(data);
    const fromBytes = createEmbeddedBackend(unpackEmbedded(Buffer.from(packEmbedded(data))));
    const list = { offset: 0, limit: 10 };
    expect(await fromBytes.list(list)).toEqual(await fromData.list(list));
    for (const terms of [['corazón'], ['rust'], ['borrowing'], ['atajo']]) {
      const query = { terms, limit: 10 };
      const found = await fromBytes.search(query);
      expect(found).toEqual(await fromData.search(query));
      expect(found.hits.length, terms[0]).toBeGreaterThan(0);
    }
    const snippet = (await fromBytes.search({ terms: ['corazón'], limit: 1 })).hits[0]?.snippet;
    expect(snippet).toContain('corazón');
  });

  it('refuses bytes cut short, or from another format, with what to do', async () => {
    const data = embeddedData(await material());
    const packed = Buffer.from(packEmbedded(data));
    const module = (bytes: Uint8Array) => ({
      format: MCP_DATA_FORMAT,
      backend: 'embedded',
      build: 'x',
      packed: bytes,
    });
    expect(() => parseMcpModule(module(packed.subarray(0, packed.length - 1)))).toThrow(
      `${MCP_PACKED_PATH} is damaged (its lengths are not its size); rebuild the site with content-index build`,
    );
    expect(() => parseMcpModule(module(Buffer.from('no header at all')))).toThrow(
      `${MCP_PACKED_PATH} is damaged (no header); rebuild the site with content-index build`,
    );
    const older = Buffer.from(packEmbedded({ ...data, format: 6 as typeof MCP_DATA_FORMAT }));
    expect(() => parseMcpModule(module(older))).toThrow(`${MCP_MODULE_PATH} has another format`);
    // The Function answers 503 with the message, and the rest of the Worker is left alone.
    const onRequest = createMcpFunction(module(packed.subarray(0, 40)), { log: () => undefined });
    const response = await onRequest({
      request: new Request('https://example.com/mcp', { headers: { host: 'example.com' } }),
      env: {},
    });
    expect(response.status).toBe(503);
    expect((await response.json()).message).toContain(`${MCP_PACKED_PATH} is damaged`);
  });
});

describe('a build of an embedded site', () => {
  it('writes the data beside a module of a few lines, which changes with it; the Worker counts both', async () => {
    // Bodies that compress badly (each as long as the index keeps one, 32,767 characters): their gzip
    // alone outweighs any error in the Worker's measure.
    const noisy = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `content/posts/ruido-${i}.es.md`,
        md({ title: `Ruido ${i}`, date: '2025-01-03' }, `${noise(4_200, i + 1)}\n`),
      ]),
    );
    site = await tempSite(
      { ...FILES, ...noisy },
      { ...FIXTURE_CONFIG, mcp: { backend: 'embedded', bodies: true } },
    );
    await installFunctions(site.root);
    expect((await site.cli('build')).code).toBe(0);
    const script = await readFile(join(site.root, MCP_MODULE_PATH), 'utf8');
    const bytes = await readFile(join(site.root, MCP_PACKED_PATH));
    // No data in the JavaScript: nothing for the isolate to compile but these lines.
    expect(script.length).toBeLessThan(400);
    expect(script).not.toContain('Café');
    expect(bytes.toString('utf8')).toContain('Café ☕ con 🦀 Rust');
    expect(packedModuleMeta(script)).toEqual({
      format: MCP_DATA_FORMAT,
      backend: 'embedded',
      build: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // Read as the stdio command reads it.
    const data = parseMcpModule(await readMcpModule(join(site.root, MCP_MODULE_PATH)));
    expect(data.backend === 'embedded' && data.info.stats.counts.total).toBe(11);

    // An edit: new bytes, and a module that says so (a watching wrangler bundles it again).
    await site.write(
      'content/posts/plain.es.md',
      md({ title: 'Sencillo y nuevo', date: '2025-01-02' }, 'Otro.\n'),
    );
    expect((await site.cli('build')).code).toBe(0);
    const again = await readFile(join(site.root, MCP_MODULE_PATH), 'utf8');
    expect(again).not.toBe(script);
    expect(await readFile(join(site.root, MCP_PACKED_PATH), 'utf8')).toContain('Sencillo y nuevo');

    // The compiled Worker, as deploy measures it against the plan, holds the bytes too (and its code,
    // well over 100 KiB of it compressed: the MCP SDK and zod).
    const worker = await compiledWorkerGzipBytes(site.root, {
      ...process.env,
      WRANGLER_SEND_METRICS: 'false',
    });
    const dataGzip = gzipSync(await readFile(join(site.root, MCP_PACKED_PATH))).length;
    expect(dataGzip).toBeGreaterThan(150 * 1024);
    expect(worker).toBeGreaterThan(dataGzip + 100 * 1024);
  });
});
