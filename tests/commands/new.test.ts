import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

describe('content-index new', () => {
  it.each([
    ['post', 'content/posts'],
    ['project', 'content/projects'],
    ['tip', 'content/tips'],
  ])('writes a %s in every requested language, as drafts that validate', async (type, dir) => {
    site = await tempSite({});
    const result = await site.cli('new', type, 'mi-entrada', '--lang', 'es,en,pt-br');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').slice(0, 3)).toEqual([
      `created ${dir}/mi-entrada.es.md`,
      `created ${dir}/mi-entrada.en.md`,
      `created ${dir}/mi-entrada.pt-br.md`,
    ]);
    const es = await readFile(join(site.root, dir, 'mi-entrada.es.md'), 'utf8');
    expect(es).toMatch(/^---\ntitle: "Título en español"\n/);
    expect(es).toContain('draft: true');
    expect(es.includes('technologies: []')).toBe(type === 'project');
    // Drafts are valid but left out; with --drafts all three languages publish.
    const built = await site.cli('build', '--drafts', '--json');
    expect(built.code).toBe(0);
    expect(JSON.parse(built.stdout).translations).toEqual({
      es: { items: 1, percent: 100 },
      en: { items: 1, percent: 100 },
      'pt-br': { items: 1, percent: 100 },
    });
  });

  it('always writes the canonical Spanish file, and only the languages asked for', async () => {
    site = await tempSite({});
    const result = await site.cli('new', 'tip', 'atajo', '--lang', 'en');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('created content/tips/atajo.es.md');
    expect(result.stdout).toContain('created content/tips/atajo.en.md');
    expect(result.stdout).not.toContain('pt-br');
  });

  it('refuses to overwrite, and writes nothing when one file exists', async () => {
    site = await tempSite({ 'content/posts/existe.en.md': md({ title: 'Mine, do not touch' }) });
    const result = await site.cli('new', 'post', 'existe');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content/posts/existe.en.md: already exists; nothing was written');
    await expect(readFile(join(site.root, 'content/posts/existe.es.md'), 'utf8')).rejects.toThrow();
    expect(await readFile(join(site.root, 'content/posts/existe.en.md'), 'utf8')).toContain(
      'Mine, do not touch',
    );
  });

  it('refuses an unknown type, an unknown language and a slug that is not one', async () => {
    site = await tempSite({});
    expect((await site.cli('new', 'article', 'x')).stderr).toContain('type: unknown type "article"');
    expect((await site.cli('new', 'post', 'x', '--lang', 'fr')).stderr).toContain(
      'lang: unknown language fr',
    );
    expect((await site.cli('new', 'post', 'Con Espacios')).stderr).toContain(
      'slug: "Con Espacios" is not a slug',
    );
    // A title where the slug goes: the hint gives the slug it makes and where the title goes.
    expect((await site.cli('new', 'post', 'Título del post')).stderr).toContain(
      'hint: use lowercase words joined by hyphens, e.g. redes-neuronales (here: titulo-del-post --title "Título del post"); the title goes in --title',
    );
  });

  it('without a site configuration, points at content-index init', async () => {
    site = await tempSite({});
    await rm(join(site.root, 'site.config.ts'));
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('site.config.ts: site configuration not found');
    expect(result.stderr).toContain('hint: run content-index init (it writes site.config.ts');
  });

  it('follows the configured layout (an Astro collection with language folders)', async () => {
    site = await tempSite(
      {},
      {
        ...FIXTURE_CONFIG,
        content: { dir: 'src/content', types: { post: 'blog/**/*.md' }, language: 'folder' },
      },
    );
    const result = await site.cli('new', 'post', 'hola', '--lang', 'es,en');
    expect(result.stdout).toContain('created src/content/blog/es/hola.md');
    expect(result.stdout).toContain('created src/content/blog/en/hola.md');
    expect((await site.cli('build', '--drafts', '--json')).code).toBe(0);
  });

  it('writes the titles given with --title (Spanish) and --title-<lang>, quoted safely', async () => {
    site = await tempSite({});
    const result = await site.cli(
      'new',
      'post',
      'redes',
      '--lang',
      'es,en',
      '--title',
      'Redes neuronales: "desde cero" #1',
      '--title-en',
      'Neural networks',
    );
    expect(result.code).toBe(0);
    const es = await readFile(join(site.root, 'content/posts/redes.es.md'), 'utf8');
    expect(es).toMatch(/^---\ntitle: "Redes neuronales: \\"desde cero\\" #1"\n/);
    const en = await readFile(join(site.root, 'content/posts/redes.en.md'), 'utf8');
    expect(en).toMatch(/^---\ntitle: "Neural networks"\n/);
    const built = JSON.parse((await site.cli('build', '--drafts', '--json')).stdout);
    expect(built.ok).toBe(true);
    const index = await site.readJson<{ content: { title: string }[] }>('api/v1/content.json');
    expect(index.content.map((c) => c.title)).toEqual(['Redes neuronales: "desde cero" #1']);
  });

  it('refuses a title for a language it does not create, and an empty title', async () => {
    site = await tempSite({});
    const other = await site.cli('new', 'post', 'x', '--lang', 'es', '--title-en', 'X');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('title-en: gives a title for en, which --lang does not create');
    const empty = await site.cli('new', 'post', 'x', '--title', ' ');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('title.es: is empty');
  });

  it('a file published with its placeholder title fails the build, with a hint', async () => {
    site = await tempSite({});
    expect((await site.cli('new', 'tip', 'atajo', '--lang', 'es', '--title', 'Un atajo')).code).toBe(0);
    expect((await site.cli('new', 'post', 'sin-titulo', '--lang', 'es')).code).toBe(0);
    for (const file of ['content/tips/atajo.es.md', 'content/posts/sin-titulo.es.md']) {
      const path = join(site.root, file);
      await writeFile(path, (await readFile(path, 'utf8')).replace('draft: true\n', ''));
    }
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/posts/sin-titulo.es.md:2: title: is still the placeholder "Título en español" that `content-index new` wrote\n  hint: write the title of this page, or keep draft: true until it is ready',
    );
    // The description was left as written too: both are reported at once, for both files.
    expect(result.stderr).toContain(
      'content/posts/sin-titulo.es.md:3: description: is still the placeholder',
    );
    expect(result.stderr).toContain('content/tips/atajo.es.md:3: description: is still the placeholder');
    expect(result.stderr).not.toContain('content/tips/atajo.es.md:2: title');
  });
});

describe('content-index new in the layouts init writes for a Hugo site', () => {
  it('uses the site’s own suffixes (name.pt.md), and the files build', async () => {
    site = await tempSite(
      {},
      { ...FIXTURE_CONFIG, content: { languageSuffixes: { es: 'es', en: 'en', 'pt-br': 'pt' } } },
    );
    const result = await site.cli('new', 'post', 'hola', '--lang', 'en,pt-br');
    expect(result.stdout).toContain('created content/posts/hola.pt.md');
    const built = await site.cli('build', '--drafts', '--json');
    expect(JSON.parse(built.stdout).translations['pt-br']).toEqual({ items: 1, percent: 100 });
  });

  it('puts each language in its own content folder, under the section', async () => {
    site = await tempSite(
      {},
      {
        ...FIXTURE_CONFIG,
        content: {
          types: { post: '{es,en}/posts/**/*.{md,markdown,mdx}' },
          language: 'folder',
        },
      },
    );
    const result = await site.cli('new', 'post', 'hola', '--lang', 'en');
    expect(result.stdout).toContain('created content/es/posts/hola.md');
    expect(result.stdout).toContain('created content/en/posts/hola.md');
    const built = await site.cli('build', '--drafts', '--json');
    expect(JSON.parse(built.stdout).translations.en).toEqual({ items: 1, percent: 100 });
  });
});
