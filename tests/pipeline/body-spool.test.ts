import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BuildOptions, build } from '../../build/index.ts';
import { STORE_DIR } from '../../build/stages/fragment-store.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const NOW = new Date('2026-06-01T00:00:00Z');

/** The build's private output: the /mcp data module and, for D1, the import's files. */
async function privateFiles(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const dir of ['.content-index/worker', '.content-index/d1']) {
    const names = await readdir(join(root, dir)).catch(() => []);
    for (const name of names.sort()) files[`${dir}/${name}`] = await readFile(join(root, dir, name), 'utf8');
  }
  return files;
}

// A parse of many files puts their bodies in the item store's spool as it reads them (parse-files.ts;
// from 4,000 files, or `parallelThreshold`), and the items' MCP shares read them back from there.
describe.each(['embedded', 'd1'] as const)('bodies spooled by a large parse, %s backend', (backend) => {
  it('publish what bodies held in memory publish, byte for byte, and leave no spool file', async () => {
    const files: Record<string, string> = { 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` };
    for (let i = 0; i < 8; i++) {
      const date = `2025-0${1 + i}-1${i}`;
      files[`content/posts/p${i}.es.md`] = md(
        { title: `Nota ${i}`, date, tags: ['ia'] },
        `Cuerpo ${i} con zanahorias, ñandúes y 漢字 🙂.\n\n${'Una frase más del cuerpo. '.repeat(40 * i)}\n`,
      );
      if (i % 2 === 0)
        files[`content/posts/p${i}.en.md`] = md(
          { title: `Note ${i}`, date, slug: `note-${i}` },
          `Body ${i} with carrots.\n`,
        );
    }
    files['content/tips/t0.es.md'] = md({ title: 'Consejo', date: '2025-02-02' }, '');
    site = await tempSite(files, { ...FIXTURE_CONFIG, mcp: { backend } });
    const { root } = site;
    const made = async (options: BuildOptions) => {
      await rm(join(root, '.content-index'), { recursive: true, force: true });
      const result = await build({ root, clock: () => NOW, ...options });
      return {
        spooled: result.incremental.spooled,
        backend: result.mcp?.backend,
        tree: await snapshotDir(result.outDir),
        private: await privateFiles(root),
        left: (await readdir(join(root, STORE_DIR))).filter((n) => n.endsWith('.spool')),
      };
    };
    const held = await made({});
    const spooled = await made({ parallelThreshold: 1 });
    expect(held.spooled).toBe(0);
    // Every file with a body: the tip's is empty.
    expect(spooled.spooled).toBe(12);
    expect(spooled.backend).toBe(backend);
    expect(Object.values(spooled.private).join('')).toContain('zanahorias');
    expect(spooled.tree).toEqual(held.tree);
    expect(spooled.private).toEqual(held.private);
    if (process.platform !== 'win32') expect(spooled.left).toEqual([]);
  });
});
