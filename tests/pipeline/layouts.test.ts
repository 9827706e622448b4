import { afterEach, describe, expect, it } from 'vitest';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

async function index(s: TempSite): Promise<ContentIndexV1> {
  await build({ root: s.root });
  return s.readJson<ContentIndexV1>('api/v1/content.json');
}

const urls = (i: ContentIndexV1) =>
  i.content
    .map((c) => [c.type, c.url, c.url_en ?? null, c.url_pt ?? null])
    .sort((a, b) => String(a[1]).localeCompare(String(b[1])));

describe('language rule: suffix (Hugo)', () => {
  it('pairs name.<lang>.md files and page bundles', async () => {
    site = await tempSite({
      'content/posts/hola.es.md': md({ title: 'Hola' }),
      'content/posts/hola.en.md': md({ title: 'Hello', slug: 'hello' }),
      'content/posts/bundle/index.es.md': md({ title: 'Paquete' }),
      'content/posts/bundle/index.pt-br.md': md({ title: 'Pacote', slug: 'pacote' }),
      'content/posts/bundle/notas.md': md({ title: 'not a page: a resource of the bundle' }),
      'content/posts/_index.md': md({ title: 'list page' }),
      'content/tips/sin-sufijo.md': md({ title: 'Sin sufijo es español' }),
    });
    expect(urls(await index(site))).toEqual([
      ['post', 'https://example.com/blog/bundle/', null, 'https://example.com/pt-br/blog/pacote/'],
      ['post', 'https://example.com/blog/hola/', 'https://example.com/en/blog/hello/', null],
      ['tip', 'https://example.com/consejos/sin-sufijo/', null, null],
    ]);
  });

  it('reads extensions and language suffixes without regard to case, as Hugo does (nota.ES.MD)', async () => {
    site = await tempSite({
      'content/posts/mayus.ES.MD': md({ title: 'Mayúsculas' }),
      'content/posts/mayus.EN.Markdown': md({ title: 'Upper case', slug: 'upper-case' }),
      'content/posts/paquete/Index.PT-BR.md': md({ title: 'Pacote', slug: 'pacote' }),
      'content/posts/paquete/INDEX.md': md({ title: 'Paquete' }),
    });
    expect(urls(await index(site))).toEqual([
      ['post', 'https://example.com/blog/mayus/', 'https://example.com/en/blog/upper-case/', null],
      ['post', 'https://example.com/blog/paquete/', null, 'https://example.com/pt-br/blog/pacote/'],
    ]);
  });
});

describe('language rule: folder (an Astro content collection)', () => {
  const astro = {
    ...FIXTURE_CONFIG,
    content: {
      dir: 'src/content',
      types: { post: 'blog/**/*.{md,mdx}', project: 'projects/**/*.md', tip: 'tips/**/*.md' },
      language: 'folder',
      languageFolders: { 'pt-br': 'pt' },
    },
  };

  it('reads src/content/blog/<lang>/… where it is', async () => {
    site = await tempSite(
      {
        'src/content/blog/es/primer-post.md': md({ title: 'Primer post', pubDate: '2024-02-01' }),
        'src/content/blog/en/primer-post.md': md({ title: 'First post', slug: 'first-post' }),
        'src/content/blog/pt/primer-post.mdx': md({ title: 'Primeiro post', slug: 'primeiro-post' }),
        'src/content/projects/es/motor/index.md': md({ title: 'Motor', technologies: ['Rust'] }),
        'src/content/tips/es/atajo.md': md({ title: 'Atajo' }),
        'src/content/tips/en/atajo.md': md({ title: 'Shortcut', slug: 'shortcut' }),
        'src/content/config.ts': 'export const collections = {};\n',
        'src/pages/index.astro': '---\n---\n<h1>not content</h1>\n',
      },
      astro,
    );
    expect(urls(await index(site))).toEqual([
      [
        'post',
        'https://example.com/blog/primer-post/',
        'https://example.com/en/blog/first-post/',
        'https://example.com/pt-br/blog/primeiro-post/',
      ],
      ['tip', 'https://example.com/consejos/atajo/', 'https://example.com/en/tips/shortcut/', null],
      ['project', 'https://example.com/proyectos/motor/', null, null],
    ]);
  });

  it('points an orphan translation at where its Spanish file goes in this layout', async () => {
    site = await tempSite({ 'src/content/blog/pt/sozinho.md': md({ title: 'Sozinho' }) }, astro);
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('hint: add src/content/blog/es/sozinho.md, or set translationKey');
  });

  it('refuses an unknown language folder, naming the expected ones', async () => {
    site = await tempSite({ 'src/content/blog/fr/bonjour.md': md({ title: 'Bonjour' }) }, astro);
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'src/content/blog/fr/bonjour.md:1: language: unknown language folder "fr/"',
    );
    expect(result.stderr).toContain('hint: use es/, en/, pt/');
  });
});

describe('language rule: front-matter field', () => {
  const byField = { ...FIXTURE_CONFIG, content: { language: 'field', languageField: 'locale' } };

  it('takes the language from the field and pairs by translationKey', async () => {
    site = await tempSite(
      {
        'content/posts/intro.md': md({ title: 'Introducción', locale: 'es', translationKey: 'intro' }),
        'content/posts/intro-english.md': md({
          title: 'Introduction',
          locale: 'en',
          translationKey: 'intro',
        }),
        'content/posts/introducao.md': md({ title: 'Introdução', locale: 'pt-BR', translationKey: 'intro' }),
        'content/tips/sin-campo.md': md({ title: 'Sin campo: canónico' }),
      },
      byField,
    );
    expect(urls(await index(site))).toEqual([
      [
        'post',
        'https://example.com/blog/intro/',
        'https://example.com/en/blog/intro-english/',
        'https://example.com/pt-br/blog/introducao/',
      ],
      ['tip', 'https://example.com/consejos/sin-campo/', null, null],
    ]);
  });

  it('refuses an unknown value with the line of the field', async () => {
    site = await tempSite({ 'content/posts/x.md': md({ title: 'X', locale: 'fr' }) }, byField);
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content/posts/x.md:3: locale: unknown language "fr" in locale');
  });
});

it('refuses a file matched by the globs of two types', async () => {
  site = await tempSite(
    { 'content/notes/x.es.md': md({ title: 'X' }) },
    { ...FIXTURE_CONFIG, content: { types: { post: 'notes/**/*.md', tip: 'notes/*.md' } } },
  );
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'content/notes/x.es.md: content.types: matches the globs of both post and tip',
  );
});

describe("a Hugo site's languages: the language of unmarked files, its suffixes, languages left out", () => {
  const hugo = {
    ...FIXTURE_CONFIG,
    content: {
      languageSuffixes: { es: 'es', en: 'en', 'pt-br': 'pt' },
      skipLanguages: ['fr'],
      defaultLanguage: 'en',
    },
  };

  it('says to add Spanish to the languages when the suffix list has none (no file name could make one)', async () => {
    site = await tempSite(
      {
        'content/posts/hello.md': md({ title: 'Hello' }),
        // Not a language of this site: the English page `hola.es`.
        'content/posts/hola.es.md': md({ title: 'Hola' }),
      },
      { ...FIXTURE_CONFIG, content: { languageSuffixes: { en: 'en' }, defaultLanguage: 'en' } },
    );
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "content/posts/hello.md:1: translationKey: this en translation has no Spanish (canonical) file\n  hint: the site's languages have no Spanish one",
    );
    expect(result.stderr).not.toContain('hola.es.es.md');
  });

  it('reads an unsuffixed file as the default language, name.pt.md as pt-br, and leaves fr out', async () => {
    site = await tempSite(
      {
        'content/posts/hello.md': md({ title: 'Hello' }),
        'content/posts/hello.es.md': md({ title: 'Hola' }),
        'content/posts/hello.pt.md': md({ title: 'Olá' }),
        'content/posts/hello.fr.md': md({ title: 'Bonjour' }),
        // Not a language of the site: part of the name, as in Hugo (the page `charla.api`).
        'content/tips/charla.api.es.md': md({ title: 'Charla' }),
      },
      hugo,
    );
    const built = await index(site);
    expect(urls(built)).toEqual([
      [
        'post',
        'https://example.com/blog/hello/',
        'https://example.com/en/blog/hello/',
        'https://example.com/pt-br/blog/hello/',
      ],
      ['tip', 'https://example.com/consejos/charla.api/', null, null],
    ]);
    expect(built.content.find((c) => c.type === 'post')?.title).toBe('Hola');
  });

  it('never publishes a default-language file as Spanish: alone, it is a translation without its Spanish file', async () => {
    site = await tempSite({ 'content/posts/only-english.md': md({ title: 'Only English' }) }, hugo);
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('this en translation has no Spanish (canonical) file');
    expect(result.stderr).toContain('hint: add content/posts/only-english.es.md');
  });
});

describe("the site's languages", () => {
  it('publishes an English-canonical site in English: url is the English page, and a file in a language the site lacks is an error', async () => {
    site = await tempSite(
      {
        'content/posts/hello.md': md({ title: 'Hello' }),
        'content/posts/hello.es.md': md({ title: 'Hola', slug: 'hola' }),
        'content/posts/only.es.md': md({ title: 'Solo' }),
      },
      {
        ...FIXTURE_CONFIG,
        languages: ['en', 'es'],
        canonicalLanguage: 'en',
        content: { withoutCanonical: 'leave-out' },
      },
    );
    const result = await build({ root: site.root });
    const body = await site.readJson<ContentIndexV1>('api/v1/content.json');
    expect(body.languages).toEqual(['en', 'es']);
    expect(body.content).toEqual([
      {
        type: 'post',
        title: 'Hello',
        url: 'https://example.com/blog/hello/',
        url_en: 'https://example.com/blog/hello/',
      },
    ]);
    expect(result.model.leftOut).toEqual([
      expect.objectContaining({ file: 'content/posts/only.es.md', reason: 'no-canonical', wholeItem: true }),
    ]);
    // The Spanish page is the Spanish llms.txt's, at /es/.
    expect(result.files.map((f) => f.path)).toEqual(expect.arrayContaining(['llms.txt', 'es/llms.txt']));
    expect(result.files.map((f) => f.path)).not.toContain('pt-br/llms.txt');
    expect(result.files.find((f) => f.path === 'es/llms.txt')?.content).toContain(
      '[Hola](https://example.com/es/blog/hola/)',
    );

    await site.write('content/posts/hello.pt-br.md', md({ title: 'Olá' }));
    const refused = await site.cli('build');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "content/posts/hello.pt-br.md:1: language: is a pt-br file, and pt-br is not one of the site's languages (en, es)",
    );
  });
});
