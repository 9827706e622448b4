import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { type BuildOptions, type BuildResult, build, publish } from '../../build/index.ts';
import { FragmentStore } from '../../build/stages/fragment-store.ts';
import { D1_MANIFEST_PATH } from '../../build/stages/mcp-output.ts';
import { D1_SITE } from '../helpers/d1.ts';
import { sameAsCold } from '../helpers/same-as-cold.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'bin', 'content-index.js');

// dev publishes a save's output, answers its readers, then runs the rest of the build (publish in
// build/index.ts): what is served between the two is the new output, and what follows the rest is
// what build() would have left, byte for byte.

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

interface Between {
  stages: string[];
  index: string;
  manifest: string;
  redone: string[];
}

/** dev's way: publish, look at what is there, then the rest. */
function publishing(store: FragmentStore, seen: Between[]) {
  return async (options: BuildOptions): Promise<BuildResult> => {
    const stages: string[] = [];
    const { published, finish } = await publish({ ...options, store, onStage: (name) => stages.push(name) });
    const root = options.root ?? '.';
    seen.push({
      stages: [...stages],
      index: await readFile(join(root, 'public/api/v1/content.json'), 'utf8'),
      manifest: await readFile(join(root, D1_MANIFEST_PATH), 'utf8'),
      redone: published.incremental.redoneItems,
    });
    return finish();
  };
}

it('publishes the edit before the MCP stage, and leaves what build() leaves once finished', async () => {
  site = await tempSite(D1_SITE.files, D1_SITE.config);
  const s = site;
  await build({ root: s.root });
  const store = FragmentStore.open(s.root);
  const seen: Between[] = [];
  for (const title of ['Primera, editada', 'Primera, otra vez']) {
    const manifest = await readFile(join(s.root, D1_MANIFEST_PATH), 'utf8');
    await s.write('content/posts/primera.es.md', md({ title, date: '2026-01-01' }, 'Cuerpo nuevo.\n'));
    const result = await sameAsCold(s, {}, publishing(store, seen));
    const between = seen.at(-1);
    // Served: the edit. Not run yet: the MCP stage, whose D1 import is still the build before's.
    expect(between?.index).toContain(title);
    expect(between?.stages).not.toContain('mcp');
    expect(between?.manifest).toBe(manifest);
    expect(between?.redone).toEqual(['post/primera']);
    // Then run, and its import the edit's.
    expect(result?.timings.mcp).toBeGreaterThan(0);
    expect(await readFile(join(s.root, D1_MANIFEST_PATH), 'utf8')).not.toBe(manifest);
    expect(result?.incremental.redoneItems).toEqual(['post/primera']);
  }
}, 60_000);

it('a build that fails in its MCP stage fails in finish, its output already published', async () => {
  site = await tempSite(D1_SITE.files, D1_SITE.config);
  const s = site;
  await build({ root: s.root });
  const store = FragmentStore.open(s.root);
  await s.write(
    'content/posts/segunda.es.md',
    md({ title: 'Segunda, larga', date: '2026-01-02' }, 'Cuerpo.\n'),
  );
  // One D1 database's worth of SQL, at most: this site's is past it.
  const { published, finish } = await publish({ root: s.root, store, limits: { d1DatabaseBytes: 100 } });
  expect(published.items).toBe(2);
  expect(await readFile(join(s.out, 'api/v1/content.json'), 'utf8')).toContain('Segunda, larga');
  await expect(finish()).rejects.toMatchObject({
    problems: [expect.objectContaining({ code: 'deploy_limit', field: 'mcp' })],
  });
}, 60_000);

it("writes a large index and llms.txt patched from the last save's as a build from nothing writes them", async () => {
  // Past 64K characters the index's and the Spanish llms.txt's UTF-8 is kept for the next save and
  // patched from it (stages/output/utf8-patch.ts), the text itself from the last join (patched-join.ts).
  // Judged by the bin in a process of its own: a build from nothing in this one would take the same
  // joins and bytes from the memory of those two, wrong or right.
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++) {
    const n = String(i).padStart(3, '0');
    files[`content/posts/entrada-${n}.es.md`] = md(
      {
        title: `Entrada ${n}: visión por computadora, año ${2000 + i}`,
        description: `Cómo el modelo ${n} aprende representações 😀 de los datos, con gradientes y capas: una guía larga.`,
        date: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
      },
      'Texto.\n',
    );
  }
  site = await tempSite({ ...D1_SITE.files, ...files }, D1_SITE.config);
  const s = site;
  await build({ root: s.root });
  const paths = ['api/v1/content.json', 'api/content.json', 'llms.txt', 'en/llms.txt'];
  for (const path of paths.slice(0, 3))
    expect((await readFile(join(s.out, path), 'utf8')).length).toBeGreaterThan(65_536);
  const store = FragmentStore.open(s.root);
  const seen: Between[] = [];
  // Longer, shorter, a surrogate pair whose low half changes (😁 to 😀), then its high half (U+1FA00).
  const titles = [
    'Entrada 080: 😀 más larga, ñandú',
    'Entrada 080',
    'Entrada 080 😁',
    'Entrada 080 😀',
    'Entrada 080 \u{1FA00}',
  ];
  for (const title of titles) {
    await s.write('content/posts/entrada-080.es.md', md({ title, date: '2026-01-25' }, 'Texto.\n'));
    await publishing(store, seen)({ root: s.root });
    expect(seen.at(-1)?.index).toContain(title);
    await run(process.execPath, [BIN, 'build', '--no-cache', '--out', 'cold'], { cwd: s.root });
    for (const path of paths)
      expect(
        (await readFile(join(s.out, path))).equals(await readFile(join(s.root, 'cold', path))),
        path,
      ).toBe(true);
  }
}, 120_000);
