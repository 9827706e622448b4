import { execFile, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { Item } from '../helpers/hugo-judge.ts';
import { md, runCli } from '../helpers/site.ts';

// The addresses content-index publishes for a Hugo site set up by `init` are pages the real `hugo` wrote:
// every url, url_en and url_pt of content.json is an index.html in the output after `hugo`. CI installs
// Debian's hugo (.ci/run); elsewhere the test is skipped, and says so.
const run = promisify(execFile);
const hugoVersion = spawnSync('hugo', ['version'], { encoding: 'utf8' });
const hasHugo = hugoVersion.status === 0;
if (!hasHugo) console.warn('init-hugo.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

const LAYOUTS = {
  'layouts/_default/single.html': '<h1>{{ .Title }}</h1>{{ .Content }}\n',
  'layouts/_default/list.html': '<h1>{{ .Title }}</h1>\n',
  'layouts/index.html': '<h1>{{ .Site.Title }}</h1>\n',
};

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** init, hugo, build; then every published address, and whether hugo wrote a page there. */
async function publish(files: Record<string, string>): Promise<{ items: Item[]; missing: string[] }> {
  root = await mkdtemp(join(tmpdir(), 'content-index-hugo-'));
  for (const [path, content] of Object.entries({ ...LAYOUTS, ...files })) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  const init = await runCli(root, {}, ['init']);
  expect(init.code, init.stderr).toBe(0);
  await run('hugo', ['--quiet'], { cwd: root });
  const build = await runCli(root, {}, ['build']);
  expect(build.code, `${build.stderr}\n${await readFile(join(root, 'site.config.ts'), 'utf8')}`).toBe(0);
  const index = JSON.parse(await readFile(join(root, 'public/api/v1/content.json'), 'utf8'));
  const items = index.content as Item[];
  // The sections the index lists are Hugo's list pages, written by hugo too.
  const sections = (index.sections as { url: string }[]).map((s) => s.url);
  expect(sections.length).toBeGreaterThan(0);
  const published = [...sections, ...items.flatMap((item) => [item.url, item.url_en, item.url_pt])];
  const missing: string[] = [];
  for (const url of published) {
    if (url === undefined) continue;
    const page = join(root, 'public', decodeURIComponent(new URL(url).pathname), 'index.html');
    if (
      !(await access(page).then(
        () => true,
        () => false,
      ))
    )
      missing.push(url);
  }
  return { items, missing };
}

const page = (title: string, more: Record<string, unknown> = {}) => md({ title, ...more });

describe.skipIf(!hasHugo)(`against ${hasHugo ? hugoVersion.stdout.split(' ')[1] : 'hugo'}`, () => {
  it('a Spanish-default site in three languages: sections, bundles, nested folders, slugs, permalinks, url', async () => {
    const { items, missing } = await publish({
      'hugo.toml': [
        "baseURL = 'https://blog.example.org/'",
        "title = 'Mi blog'",
        "defaultContentLanguage = 'es'",
        '[permalinks]',
        "  consejos = '/consejos/:year/:month/:slug/'",
        "  proyectos = '/:section/:filename/'",
        '[languages.es]',
        '  weight = 1',
        '[languages.en]',
        '  weight = 2',
        "  title = 'My blog'",
        '[languages.pt-br]',
        '  weight = 3',
        '',
      ].join('\n'),
      'content/posts/Hola-Mundo.md': page('Hola mundo', { date: '2024-01-01' }),
      'content/posts/Hola-Mundo.en.md': page('Hello world', { date: '2024-01-01' }),
      'content/posts/Hola-Mundo.pt-br.md': page('Olá mundo', { date: '2024-01-01', slug: 'Ola Mundo' }),
      'content/posts/2024/anidado.md': page('Anidado', { date: '2024-01-02' }),
      'content/posts/Mi Paquete/index.md': page('Paquete', { date: '2024-01-03' }),
      'content/posts/Mi Paquete/index.en.md': page('Bundle', { slug: 'the bundle' }),
      'content/posts/atención.md': page('Atención', { date: '2024-01-04' }),
      'content/posts/especial.md': page('Especial', { url: '/especiales/uno/' }),
      'content/consejos/uno.md': page('¡Título Uno!', { date: '2024-03-05T23:30:00-05:00' }),
      'content/consejos/uno.en.md': page('Tip one', { date: '2024-03-05T23:30:00-05:00' }),
      'content/proyectos/Motor/index.md': page('Motor', { technologies: ['Rust'], date: '2023-01-01' }),
      'content/about.md': page('Sobre mí'),
      'content/guias/_index.md': page('Guías'),
      'content/guias/uno.md': page('Guía'),
    });
    expect(missing).toEqual([]);
    expect(items.map((i) => i.title).sort()).toEqual([
      'Anidado',
      'Atención',
      'Especial',
      'Hola mundo',
      'Motor',
      'Paquete',
      '¡Título Uno!',
    ]);
    const hola = items.find((i) => i.title === 'Hola mundo');
    expect(hola).toMatchObject({
      url: 'https://blog.example.org/posts/hola-mundo/',
      url_en: 'https://blog.example.org/en/posts/hola-mundo/',
      url_pt: 'https://blog.example.org/pt-br/posts/ola-mundo/',
    });
    // The date as written (its own offset): Hugo files it under March 5th, not UTC's 6th.
    expect(items.find((i) => i.type === 'tip')?.url).toBe(
      `https://blog.example.org/consejos/2024/03/${encodeURIComponent('título-uno')}/`,
    );
  });

  it('an English-default site from a config folder: pt key, default language in its folder, a language left out', async () => {
    const { items, missing } = await publish({
      'config/_default/hugo.toml':
        "baseURL = 'https://example.com/'\ntitle = 'Site'\ncontentDir = 'contenido'\ndefaultContentLanguageInSubdir = true\n",
      'config/_default/languages.yaml':
        'en:\n  weight: 1\nes:\n  weight: 2\n  title: Sitio\npt:\n  weight: 3\nfr:\n  weight: 4\n',
      'config/_default/permalinks.toml': "blog = '/:section/:year/:filename/'\n",
      'contenido/blog/hello.md': page('Hello', { date: '2023-05-06' }),
      'contenido/blog/hello.es.md': page('Hola', { date: '2023-05-06' }),
      'contenido/blog/hello.pt.md': page('Olá', { date: '2023-05-06' }),
      'contenido/blog/hello.fr.md': page('Bonjour', { date: '2023-05-06' }),
      'contenido/tips/Short Cut.es.md': page('Atajo'),
      'contenido/tips/Short Cut.md': page('Shortcut'),
    });
    expect(missing).toEqual([]);
    // English is the default language, so the canonical one: url is the English page (url_en too).
    expect(items.map((i) => [i.title, i.url, i.url_en, i.url_pt])).toEqual([
      [
        'Hello',
        'https://example.com/en/blog/2023/hello/',
        'https://example.com/en/blog/2023/hello/',
        'https://example.com/pt/blog/2023/hello/',
      ],
      [
        'Shortcut',
        'https://example.com/en/tips/short-cut/',
        'https://example.com/en/tips/short-cut/',
        undefined,
      ],
    ]);
  });

  it('an es/en site: what is published names Spanish and English only, at their addresses', async () => {
    const { items, missing } = await publish({
      'hugo.toml': [
        "baseURL = 'https://dos.example.org/'",
        "title = 'Dos idiomas'",
        "defaultContentLanguage = 'es'",
        '[languages.es]',
        '  weight = 1',
        '[languages.en]',
        '  weight = 2',
        '',
      ].join('\n'),
      'content/posts/hola.md': page('Hola', { date: '2024-01-01', description: 'Saludo.' }),
      'content/posts/hola.en.md': page('Hello', { date: '2024-01-01' }),
    });
    expect(missing).toEqual([]);
    expect(items).toHaveLength(1);
    const out = join(root as string, 'public');
    const index = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8'));
    expect(index.languages).toEqual(['es', 'en']);
    await access(join(out, 'llms.txt'));
    await access(join(out, 'en/llms.txt'));
    await expect(access(join(out, 'pt-br/llms.txt'))).rejects.toThrow();
    const documents = await Promise.all(
      ['llms.txt', 'en/llms.txt', '.well-known/ai-plugin.json', 'openapi.json'].map((path) =>
        readFile(join(out, path), 'utf8'),
      ),
    );
    for (const text of documents) expect(text).not.toMatch(/Portugu|portugu|pt-br\/llms/);
    expect(documents[0]).toContain('direcciones en español e inglés');
    expect(documents[2]).toContain(
      'url (the canonical Spanish page), url_en (the English page, when it exists)',
    );
    expect(documents[3]).toContain('in Spanish (es, canonical) and English (en)');
  });

  it('a content folder per language', async () => {
    const { items, missing } = await publish({
      'hugo.toml': [
        "baseURL = 'https://example.net/'",
        "defaultContentLanguage = 'es'",
        '[languages.es]',
        "  contentDir = 'content/es'",
        '  weight = 1',
        '[languages.en]',
        "  contentDir = 'content/en'",
        '  weight = 2',
        '',
      ].join('\n'),
      'content/es/posts/hola.md': page('Hola', { date: '2024-02-01' }),
      'content/en/posts/hola.md': page('Hello', { date: '2024-02-01', slug: 'hello' }),
      'content/es/projects/app/index.md': page('App', { technologies: [] }),
    });
    expect(missing).toEqual([]);
    expect(items.map((i) => [i.url, i.url_en])).toEqual([
      ['https://example.net/posts/hola/', 'https://example.net/en/posts/hello/'],
      ['https://example.net/projects/app/', undefined],
    ]);
  });
});
