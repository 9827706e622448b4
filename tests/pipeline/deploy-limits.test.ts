import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMBEDDED_MODULE_BYTES, PLAN_LIMITS } from '../../build/core/output/cloudflare-limits.ts';
import { build, ContentIndexError } from '../../build/index.ts';
import { d1ImportSql } from '../helpers/d1.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// Cloudflare's limits checked by the build, each reached with a small injected limit instead of a
// giant fixture (the real figures are asserted once, below).

const FILES = Object.fromEntries(
  Array.from({ length: 6 }, (_, i) => [
    `content/posts/entrada-${i}.es.md`,
    md({ title: `Entrada número ${i} sobre redes neuronales`, date: `2026-01-0${i + 1}`, tags: ['ia'] }),
  ]),
);

let site: TempSite | undefined;
afterEach(() => site?.dispose());

async function problems(options: Parameters<typeof build>[0]): Promise<ContentIndexError['problems']> {
  try {
    await build(options);
  } catch (error) {
    if (error instanceof ContentIndexError) return error.problems;
    throw error;
  }
  throw new Error('the build succeeded');
}

it("uses Cloudflare's published figures", () => {
  expect(PLAN_LIMITS).toEqual({
    free: {
      assetBytes: 25 * 1024 * 1024,
      files: 20_000,
      workerGzipBytes: 3 * 1024 * 1024,
      d1DatabaseBytes: 500_000_000,
    },
    paid: {
      assetBytes: 25 * 1024 * 1024,
      files: 100_000,
      workerGzipBytes: 10 * 1024 * 1024,
      d1DatabaseBytes: 10_000_000_000,
    },
  });
  expect(EMBEDDED_MODULE_BYTES).toBe(8 * 1024 * 1024);
});

describe('a file over the per-file limit', () => {
  it("refuses content.json, with the site's ceiling in items for its average entry", async () => {
    site = await tempSite(FILES);
    const before = await site.snapshot();
    const content = await build({ root: site.root, dryRun: true });
    const bytes = Buffer.byteLength(
      content.files.find((f) => f.path === 'api/v1/content.json')?.content ?? '',
    );
    const limit = Math.floor(bytes * 0.9);
    const found = await problems({ root: site.root, limits: { assetBytes: limit } });
    const perItem = Math.round(bytes / 6);
    const ceiling = Math.floor(limit / (bytes / 6));
    const sizeOf = (n: number) => (n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
    for (const path of ['api/v1/content.json', 'api/content.json']) {
      expect(found).toContainEqual({
        code: 'deploy_limit',
        file: `public/${path}`,
        message: `is ${sizeOf(bytes)}, over Cloudflare Pages' limit of ${sizeOf(limit)} per file: the API serves the whole index in one GET, so this is the site's ceiling, about ${ceiling} items at this site's ${perItem} bytes per item (it has 6)`,
        hint: 'shorten what every item carries (descriptions are the usual bulk), or publish fewer items (drafts, older ones)',
      });
    }
    // Nothing was written: the limits are checked before the output is touched.
    expect(await site.snapshot()).toEqual(before);
  });

  it('refuses any other file with the limit and the figure', async () => {
    site = await tempSite(FILES);
    const found = await problems({ root: site.root, limits: { assetBytes: 1024 * 1024 } });
    expect(found).toEqual([
      {
        code: 'deploy_limit',
        file: 'public/docs/redoc.standalone.js',
        message: expect.stringMatching(/^is 1\.\d MiB, over Cloudflare Pages' limit of 1\.0 MiB per file$/),
        hint: 'Cloudflare Pages refuses larger files at upload',
      },
    ]);
  });
});

describe('too many files for the plan', () => {
  it("counts the build's files and the author's own, and names the plan", async () => {
    site = await tempSite(FILES);
    const result = await build({ root: site.root, dryRun: true });
    const written = result.files.length;
    await mkdir(join(site.out, 'img'), { recursive: true });
    for (const name of ['a.png', 'b.png', 'c.png']) await writeFile(join(site.out, 'img', name), 'x');
    const found = await problems({ root: site.root, limits: { files: written + 2 } });
    expect(found).toEqual([
      {
        code: 'deploy_limit',
        file: 'public',
        message: `would hold ${written + 3} files (${written} written by the build, 3 of your own), over the free plan's ${written + 2} files per deployment`,
        hint: "remove files from the output folder, or set plan: 'paid' in site.config.ts if the account is on Workers Paid (100,000 files)",
      },
    ]);
    // Within the limit it builds, and the report says how close it came.
    const ok = await build({ root: site.root, limits: { files: written + 3 } });
    expect(ok.headroom?.files).toEqual({ count: written + 3, limit: written + 3 });
  });

  it("uses the paid plan's limits when the configuration says so", async () => {
    site = await tempSite(FILES, { ...FIXTURE_CONFIG, plan: 'paid' });
    const result = await build({ root: site.root, dryRun: true });
    expect(result.headroom).toMatchObject({
      plan: 'paid',
      files: { limit: 100_000 },
      worker: { limit: 10 * 1024 * 1024 },
    });
  });
});

describe('a Worker over its size', () => {
  it('refuses the embedded backend with the limit, and names the way out', async () => {
    site = await tempSite(FILES);
    const found = await problems({ root: site.root, limits: { workerGzipBytes: 50_000 } });
    expect(found).toEqual([
      {
        code: 'deploy_limit',
        file: 'site.config.ts',
        field: 'mcp.backend',
        message: expect.stringMatching(
          /^embedded: with the data of 6 items the Functions' Worker would be about 1\d\d\.\d KiB compressed, over the free plan's 48\.8 KiB Worker limit$/,
        ),
        hint: "set mcp: { backend: 'd1' } (or 'auto') in site.config.ts to serve /mcp from Cloudflare D1 (see docs/mcp.md)",
      },
    ]);
  });

  it('refuses the embedded backend past its ceiling, even where the Worker would fit', async () => {
    site = await tempSite(FILES);
    const refusal = (size: string, limit: string) => ({
      code: 'deploy_limit',
      file: 'site.config.ts',
      field: 'mcp.backend',
      message: expect.stringMatching(
        new RegExp(
          `^embedded: with 6 items the data module would be ${size}, past the embedded ceiling of ${limit} \\(what an isolate loads within its 1 s startup and 128 MB memory limits, with room left for requests\\)$`,
        ),
      ),
      hint: "set mcp: { backend: 'd1' } (or 'auto') in site.config.ts to serve /mcp from Cloudflare D1 (see docs/mcp.md), or mcp: { bodies: false } to index titles, descriptions and tags only (the bodies' text is most of the module)",
    });
    // Measured, when the module could be built; far past the ceiling, a lower bound worked out without
    // building the search index is the figure.
    expect(await problems({ root: site.root, limits: { embeddedModuleBytes: 2000 } })).toEqual([
      refusal('[\\d.]+ KiB', '2\\.0 KiB'),
    ]);
    expect(await problems({ root: site.root, limits: { embeddedModuleBytes: 500 } })).toEqual([
      refusal('at least [\\d.]+ KiB', '500 B'),
    ]);
  });

  it("'auto' picks D1 past either limit, and embedded below them", async () => {
    site = await tempSite(
      { ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
      { ...FIXTURE_CONFIG, mcp: { backend: 'auto' } },
    );
    const small = await build({ root: site.root });
    expect(small.mcp?.backend).toBe('embedded');
    expect(small.mcp?.reason).toMatch(/^auto: [\d.]+ KiB of the 8\.0 MiB embedded ceiling$/);
    const worker = await build({ root: site.root, limits: { workerGzipBytes: 50_000 } });
    expect(worker.mcp?.backend).toBe('d1');
    expect(worker.mcp?.reason).toMatch(
      /^auto: the Worker would be about [\d.]+ KiB compressed, over the free plan's 48\.8 KiB$/,
    );
    const module = await readFile(join(site.root, '.content-index/worker/mcp-data.mjs'), 'utf8');
    expect(module).toContain('"backend": "d1"');
    const ceiling = await build({ root: site.root, limits: { embeddedModuleBytes: 2000 } });
    expect(ceiling.mcp?.backend).toBe('d1');
    // Far past it, `auto` counts the items' texts only until they pass it (the rest are never sized).
    const far = await build({ root: site.root, limits: { embeddedModuleBytes: 200 } });
    expect(far.mcp?.backend).toBe('d1');
    expect(far.mcp?.reason).toMatch(
      /^auto: the data module would be at least [\d.]+ B \(the texts of its first [1-5] of 6 items alone\), past the embedded ceiling of 200 B /,
    );
  });

  it('counts the bodies indexed: a site past the ceiling with them fits without them (mcp.bodies)', async () => {
    const body = `${'Una frase larga sobre redes neuronales y modelos de lenguaje. '.repeat(60)}\n`;
    const files = Object.fromEntries(
      Object.entries(FILES).map(([path, text]) => [path, path.endsWith('.md') ? `${text}${body}` : text]),
    );
    const config = (bodies: boolean) => ({ ...FIXTURE_CONFIG, mcp: { backend: 'auto', bodies } });
    site = await tempSite({ ...files, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, config(true));
    const without = await build({ root: site.root, dryRun: true, limits: { embeddedModuleBytes: 1e9 } });
    expect(without.mcp?.backend).toBe('embedded');
    const ceiling = { embeddedModuleBytes: (without.mcp?.module.bytes ?? 0) - 1 };
    const withBodies = await build({ root: site.root, dryRun: true, limits: ceiling });
    expect(withBodies.mcp?.backend).toBe('d1');
    expect(withBodies.mcp?.reason).toMatch(/^auto: the data module would be (at least )?[\d.]+ KiB, past/);
    await site.dispose();
    site = await tempSite({ ...files, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, config(false));
    const noBodies = await build({ root: site.root, dryRun: true, limits: ceiling });
    expect(noBodies.mcp?.backend).toBe('embedded');
    expect(noBodies.mcp?.module.bytes).toBeLessThan(ceiling.embeddedModuleBytes / 4);
  });
});

describe('a D1 import larger than the database', () => {
  it('is refused, naming mcp.bodies', async () => {
    site = await tempSite(
      { ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` },
      {
        ...FIXTURE_CONFIG,
        mcp: { backend: 'd1' },
      },
    );
    expect(await problems({ root: site.root, limits: { d1DatabaseBytes: 1000 } })).toEqual([
      {
        code: 'deploy_limit',
        file: 'site.config.ts',
        field: 'mcp',
        message: expect.stringMatching(
          /^the D1 import would be [\d.]+ KiB of SQL, past the 1000 B a D1 database may hold on the free plan$/,
        ),
        hint: "set mcp: { bodies: false } in site.config.ts to search titles, descriptions and tags only (bodies are most of it), or plan: 'paid' on Workers Paid",
      },
    ]);
  });
});

/** `count` different words (`pz0q`, `pz1q`…): none a common word, none the stem of another. */
function distinctWords(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${prefix}z${i.toString(36)}q`).join(' ');
}

describe('the D1 backend', () => {
  const D1 = { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } };

  it('needs its binding in wrangler.toml: a missing one stops the build, not the first request', async () => {
    site = await tempSite(FILES, D1);
    expect(await problems({ root: site.root })).toEqual([
      {
        code: 'config_invalid',
        file: 'wrangler.toml',
        field: 'd1_databases',
        message:
          'has no D1 database bound as CONTENT_INDEX_DB, which the MCP backend d1 (site.config.ts: mcp.backend) reads the index from',
        hint: 'create the database once with npx wrangler d1 create content-index, then add a [[d1_databases]] entry to wrangler.toml with binding = "CONTENT_INDEX_DB", database_name = "content-index" and the database_id it printed (or set mcp.d1.binding in site.config.ts to the binding you use)',
      },
    ]);
    await site.write(
      'wrangler.toml',
      'name = "t"\n[[d1_databases]]\nbinding = "CONTENT_INDEX_DB"\ndatabase_name = "other"\n',
    );
    expect(await problems({ root: site.root })).toEqual([
      {
        code: 'config_invalid',
        file: 'wrangler.toml',
        field: 'd1_databases',
        message:
          'binds CONTENT_INDEX_DB to the database other, but site.config.ts names content-index (mcp.d1.database)',
        hint: `make the two names the same: database_name = "content-index" in wrangler.toml, or mcp: { d1: { database: 'other' } } in site.config.ts`,
      },
    ]);
    await site.write('wrangler.toml', 'name = "t"\n[[d1_databases]\n');
    expect((await problems({ root: site.root }))[0]).toMatchObject({
      code: 'config_invalid',
      file: 'wrangler.toml',
      message: expect.stringMatching(/^cannot be read: /),
    });
  });

  it('refuses an item whose row passes D1’s statement limit, naming its file', async () => {
    site = await tempSite(
      {
        ...FILES,
        'wrangler.toml': `name = "t"\n${D1_WRANGLER}`,
        // Each file's front matter stays under its own 64 KiB limit; the three translations' search text
        // (each word once: the search row holds distinct terms) together do not fit one statement.
        'content/posts/larga.es.md': md({ title: 'Larga', description: distinctWords('p', 7_000) }),
        'content/posts/larga.en.md': md({
          title: 'Long',
          slug: 'long',
          description: distinctWords('w', 7_000),
        }),
        'content/posts/larga.pt-br.md': md({
          title: 'Longa',
          slug: 'longa',
          description: distinctWords('t', 7_000),
        }),
      },
      D1,
    );
    expect(await problems({ root: site.root })).toEqual([
      {
        code: 'deploy_limit',
        file: 'content/posts/larga.es.md',
        message:
          "this item's row is over D1's 100 KB limit per SQL statement, so the d1 backend cannot import it",
        hint: 'shorten its title, description or tags',
      },
    ]);
  });

  it('writes the SQL and a module that holds no items; the same content makes the same generation', async () => {
    site = await tempSite({ ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, D1);
    const clock = () => new Date('2026-02-01T00:00:00Z');
    const first = await build({ root: site.root, clock });
    const sql = await d1ImportSql(site.root);
    const generation = first.mcp?.d1?.generation ?? '';
    expect(generation).toMatch(/^g[0-9a-f]{12}$/);
    expect(sql).toContain(`CREATE VIRTUAL TABLE ci_${generation}_search USING fts5(`);
    expect(sql).toContain('tokenize = "unicode61 remove_diacritics 2"');
    expect(sql.trimEnd().split('\n').at(-1)).toBe(
      `INSERT INTO content_index_generations (id, items, state) VALUES ('${generation}', 6, 'ready');`,
    );
    const module = await readFile(join(site.root, '.content-index/worker/mcp-data.mjs'), 'utf8');
    expect(module).not.toMatch(/"entries"|"search"|Entrada número 0/);
    const manifest = JSON.parse(await readFile(join(site.root, '.content-index/d1/import.json'), 'utf8'));
    expect(manifest).toEqual({
      binding: 'CONTENT_INDEX_DB',
      database: 'content-index',
      generation,
      items: 6,
      parts: expect.any(Array),
    });
    // Its files in the order the import joins them, named after what they hold, and nothing else but
    // the manifest and what each entries file is (mcp-output.ts D1_PARTS_PATH).
    const parts = (manifest.parts as { path: string }[]).map((p) => p.path);
    expect(parts.map((p) => /^\.content-index\/d1\/([a-z]+)-/.exec(p)?.[1])).toEqual([
      'schema',
      'order',
      'entries',
      'terms',
      'done',
    ]);
    expect((await readdir(join(site.root, '.content-index/d1'))).sort()).toEqual(
      ['import.json', 'parts.json', ...parts.map((p) => p.slice('.content-index/d1/'.length))].sort(),
    );
    // No file names the generation: it is put in as the import joins them.
    for (const part of parts) expect(await readFile(join(site.root, part), 'utf8')).not.toContain(generation);
    expect((await build({ root: site.root, clock })).mcp?.d1?.generation).toBe(generation);
    await site.write('content/posts/nueva.es.md', md({ title: 'Nueva', date: '2026-01-20' }));
    expect((await build({ root: site.root, clock })).mcp?.d1?.generation).not.toBe(generation);
    // Back to embedded: the D1 import is not left behind for a deploy to find.
    await site.write('site.config.ts', `export default ${JSON.stringify(FIXTURE_CONFIG)};\n`);
    await build({ root: site.root, clock });
    expect(await readdir(join(site.root, '.content-index/d1')).catch(() => [])).toEqual([]);
  });
});

describe('the build report', () => {
  it('prints the backend and the headroom: largest file, files and Worker against the plan', async () => {
    site = await tempSite(FILES);
    const result = await site.cli('build');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\n {2}mcp {11}embedded in the Function \([\d.]+ KiB of the 8\.0 MiB embedded ceiling\)\n/,
    );
    expect(result.stdout).toMatch(
      /\n {2}limits {8}free plan: largest file docs\/redoc\.standalone\.js 1\.\d MiB of 25\.0 MiB \(\d+%\) · 1\d of 20,000 files · Worker about [\d.]+ KiB of 3\.0 MiB compressed \(\d+%\)\n/,
    );
    const json = JSON.parse((await site.cli('build', '--json')).stdout);
    expect(json.limits).toMatchObject({ plan: 'free', files: { limit: 20_000 } });
    expect(json.mcp).toMatchObject({ backend: 'embedded' });
  });

  it('takes test limits from CONTENT_INDEX_TEST_LIMITS on the command line', async () => {
    site = await tempSite(FILES);
    const result = await site.cliWithEnv({ CONTENT_INDEX_TEST_LIMITS: '{"files":3}' }, 'build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("over the free plan's 3 files per deployment");
  });
});
