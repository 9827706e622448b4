import { readdirSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { type BuildResult, build } from '../../build/index.ts';
import { bytesOf, StoredBytes } from '../../build/stages/stored-bytes.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// A process that calls build() on one project again and again (a watch script of its own, a test
// suite): each build opens the project's item store, which keeps its shard files open for the D1
// import's pieces. Only the last build's stay open; an earlier result's pieces refuse to be read rather
// than read another file that took their number.

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

/** The D1 import's pieces still in the item store's files. */
function storedPieces(result: BuildResult): StoredBytes[] {
  return (result.mcp?.files ?? []).flatMap((file) =>
    typeof file.content === 'string' ? [] : file.content.filter((p) => p instanceof StoredBytes),
  );
}

const openFiles = () => readdirSync('/proc/self/fd').length;

it.skipIf(process.platform !== 'linux')(
  'holds one build’s store files open however many builds of the project run',
  async () => {
    const posts: Record<string, string> = {};
    for (let i = 0; i < 40; i++)
      posts[`content/posts/nota-${i}.es.md`] = md(
        { title: `Nota ${i}` },
        `Cuerpo ${i}: ${'texto '.repeat(i + 1)}\n`,
      );
    site = await tempSite(
      { ...posts, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
      { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
    );
    const s = site;
    const edited = (n: number) =>
      s.write('content/posts/nota-0.es.md', md({ title: `Editada ${n}` }, 'Otro.\n'));
    await build({ root: s.root });
    await edited(1);
    const first = await build({ root: s.root });
    const pieces = storedPieces(first);
    // Kept bodies are read from the store's files: what this test is about.
    expect(pieces.length).toBeGreaterThan(0);
    const kept = Buffer.concat(pieces.map(bytesOf)).toString('utf8');
    expect(kept).toContain('Cuerpo 39');
    const open = openFiles();
    for (let n = 2; n < 8; n++) {
      await edited(n);
      await build({ root: s.root });
    }
    expect(openFiles()).toBeLessThanOrEqual(open + 2);
    // The first result's pieces point into a store closed since.
    expect(() => bytesOf(pieces[0] as StoredBytes)).toThrow('read after its item store was closed');
  },
  120_000,
);
