import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type BuildOptions, type BuildResult, build, publish } from '../../build/index.ts';
import { FragmentStore } from '../../build/stages/fragment-store.ts';
import { D1_MANIFEST_PATH } from '../../build/stages/mcp-output.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { sameAsCold } from '../helpers/same-as-cold.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// dev publishes a save's output, answers its readers, then runs the rest of the build (publish in
// build/index.ts): what is served between the two is the new output, and what follows the rest is
// what build() would have left, byte for byte.

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

async function d1Site(): Promise<TempSite> {
  const files: Record<string, string> = { 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` };
  for (let i = 0; i < 6; i++) {
    files[`content/posts/nota-${i}.es.md`] = md({ title: `Nota ${i}` }, `Cuerpo ${i}.\n`);
    files[`content/posts/nota-${i}.en.md`] = md({ title: `Note ${i}` }, `Body ${i}.\n`);
  }
  return tempSite(files, { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } });
}

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
  site = await d1Site();
  const s = site;
  await build({ root: s.root });
  const store = FragmentStore.open(s.root);
  const seen: Between[] = [];
  for (const title of ['Nota uno editada', 'Nota uno, otra vez']) {
    const manifest = await readFile(join(s.root, D1_MANIFEST_PATH), 'utf8');
    await s.write('content/posts/nota-1.es.md', md({ title }, 'Cuerpo nuevo.\n'));
    const result = await sameAsCold(s, {}, publishing(store, seen));
    const between = seen.at(-1);
    // Served: the edit. Not run yet: the MCP stage, whose D1 import is still the build before's.
    expect(between?.index).toContain(title);
    expect(between?.stages).not.toContain('mcp');
    expect(between?.manifest).toBe(manifest);
    expect(between?.redone).toEqual(['post/nota-1']);
    // Then run, and its import the edit's.
    expect(result?.timings.mcp).toBeGreaterThan(0);
    expect(await readFile(join(s.root, D1_MANIFEST_PATH), 'utf8')).not.toBe(manifest);
    expect(result?.incremental.redoneItems).toEqual(['post/nota-1']);
  }
}, 60_000);

it('a build that fails in its MCP stage fails in finish, its output already published', async () => {
  site = await d1Site();
  const s = site;
  await build({ root: s.root });
  const store = FragmentStore.open(s.root);
  await s.write('content/posts/nota-2.es.md', md({ title: 'Nota dos, larga' }, 'Cuerpo.\n'));
  // One D1 database's worth of SQL, at most: this site's is past it.
  const { published, finish } = await publish({ root: s.root, store, limits: { d1DatabaseBytes: 100 } });
  expect(published.items).toBe(6);
  expect(await readFile(join(s.out, 'api/v1/content.json'), 'utf8')).toContain('Nota dos, larga');
  await expect(finish()).rejects.toMatchObject({
    problems: [expect.objectContaining({ code: 'deploy_limit', field: 'mcp' })],
  });
}, 60_000);
