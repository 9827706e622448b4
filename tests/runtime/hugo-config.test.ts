import { describe, expect, it } from 'vitest';
import { type HugoSettings, readHugoConfig } from '../../build/runtime/hugo-config.ts';
import type { HugoConfigFile } from '../../build/runtime/hugo-config-files.ts';
import { fromPermalink, type HugoSetup, planHugoSite } from '../../build/runtime/hugo-site.ts';

const settings = (...files: [string, string][]): HugoSettings => {
  const result = readHugoConfig(files.map(([path, text]): HugoConfigFile => ({ path, text })));
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.settings;
};

describe('Hugo configuration, read with real parsers where Hugo reads it', () => {
  it('takes top-level keys only, whatever comes first, in YAML', () => {
    const s = settings([
      'hugo.yaml',
      'languages:\n  en:\n    baseURL: https://en.example/\n    title: English\nparams: {title: Parametro, publishDir: nope}\ntitle: Sitio YAML\nbaseURL: https://sitio.example\n',
    ]);
    expect(s).toMatchObject({ title: 'Sitio YAML', baseURL: 'https://sitio.example/', publishDir: 'public' });
  });

  it('reads TOML strings with their escapes, and keys without regard to case', () => {
    const s = settings([
      'hugo.toml',
      'BaseURL = "https://a.example"\nTITLE = "It\\"s \\u00e9"\npublishdir = "out/"\n',
    ]);
    expect(s).toMatchObject({ baseURL: 'https://a.example/', title: 'It"s é', publishDir: 'out' });
  });

  it('reads JSON, and leaves out a baseURL that is not an address (Hugo’s default "/")', () => {
    expect(settings(['hugo.json', '{ "baseURL": "/", "title": "C" }'])).not.toHaveProperty('baseURL');
    expect(settings(['config.json', '{ "title": "C" }']).title).toBe('C');
  });

  it('reads one root file, hugo.* before config.*, as Hugo does', () => {
    const s = settings(
      ['config.toml', 'title = "config"\ncopyright = "c"\n'],
      ['hugo.yaml', 'title: hugo\n'],
    );
    expect(s.title).toBe('hugo');
    expect(s.files).toEqual(['hugo.yaml']);
  });

  it('merges config/_default (split files are their section) and config/production over the root file', () => {
    const s = settings(
      ['hugo.toml', 'title = "root"\nbaseURL = "https://root.example/"\n'],
      ['config/_default/hugo.toml', 'title = "default"\npublishDir = "dflt"\n'],
      ['config/_default/config.toml', 'title = "loses to hugo.toml"\ndefaultContentLanguage = "ES"\n'],
      ['config/_default/languages.toml', '[es]\nweight = 1\n[en]\nweight = 2\ntitle = "EN"\n'],
      ['config/_default/languages.pt-br.yaml', 'weight: 3\ncontentDir: content/pt\n'],
      ['config/_default/permalinks.yaml', 'posts: /p/:slug/\n'],
      ['config/_default/params.toml', 'title = "not the site"\n'],
      ['config/production/hugo.toml', 'publishDir = "prod"\n'],
    );
    expect(s).toMatchObject({
      title: 'default',
      baseURL: 'https://root.example/',
      publishDir: 'prod',
      defaultContentLanguage: 'es',
      defaultContentLanguageSet: true,
      permalinks: { posts: '/p/:slug/' },
    });
    expect(s.languages.map((l) => [l.key, l.title, l.contentDir])).toEqual([
      ['es', undefined, undefined],
      ['en', 'EN', undefined],
      ['pt-br', undefined, 'content/pt'],
    ]);
  });

  it('reports a file that does not parse, with its line', () => {
    const result = readHugoConfig([{ path: 'hugo.toml', text: 'title = "a"\nbaseURL = \n' }]);
    expect(result).toMatchObject({
      ok: false,
      problems: [
        {
          code: 'config_invalid',
          file: 'hugo.toml',
          line: 2,
          message: expect.stringMatching(/^is not valid TOML: /),
        },
      ],
    });
  });
});

const plan = (
  s: HugoSettings,
  sections: Record<string, string[]> = { content: ['posts', 'tips', 'about'] },
) => {
  const result = planHugoSite(s, sections);
  if (!result.ok) throw new Error(result.message);
  return result.setup;
};

describe('what init derives from a Hugo site', () => {
  const es = settings([
    'hugo.toml',
    "baseURL = 'https://blog.example/'\ndefaultContentLanguage = 'es'\n[languages.es]\nweight = 1\n[languages.en]\nweight = 2\n[languages.pt]\nweight = 3\n",
  ]);

  it('maps sections to types by name, lists the others, and routes them where Hugo writes them', () => {
    const setup = plan(es, { content: ['blog', 'proyectos', 'consejos', 'about', 'docs'] });
    expect(setup.mapped).toEqual({ blog: 'post', proyectos: 'project', consejos: 'tip' });
    expect(setup.unmapped).toEqual(['about', 'docs']);
    expect(setup.content).toEqual({
      types: {
        post: 'blog/**/*.{md,markdown,mdx}',
        project: 'proyectos/**/*.{md,markdown,mdx}',
        tip: 'consejos/**/*.{md,markdown,mdx}',
      },
      languageSuffixes: { es: 'es', en: 'en', 'pt-br': 'pt' },
      withoutCanonical: 'leave-out',
    });
    // The languages Hugo has, the default one canonical; pt's llms.txt goes under its key, where its pages are.
    expect(setup.languages).toEqual(['es', 'en', 'pt-br']);
    expect(setup.canonicalLanguage).toBe('es');
    expect(setup.languagePaths).toEqual({ 'pt-br': '/pt/' });
    expect(setup.routes.post).toEqual({
      es: '/{path}/{slug}/',
      en: '/en/{path}/{slug}/',
      'pt-br': '/pt/{path}/{slug}/',
    });
    expect(setup.urls).toEqual({ style: 'hugo' });
    expect(setup.notes).toContain('language pt: assumed to be Brazilian Portuguese (pt-br)');
  });

  it('puts the default language in its folder with defaultContentLanguageInSubdir, and follows permalinks', () => {
    const s = settings([
      'hugo.toml',
      "defaultContentLanguage = 'es'\ndefaultContentLanguageInSubdir = true\nuglyURLs = true\n[permalinks]\ntips = '/t/:year/:month/:slug'\n",
    ]);
    const setup = plan(s);
    expect(setup.routes.post).toEqual({ es: '/es/{path}/{slug}.html' });
    expect(setup.routes.tip).toEqual({ es: '/es/t/{year}/{month}/{slugOrTitle}.html' });
  });

  it('an English-default site: unsuffixed files are English, never Spanish, English is canonical, and init says so', () => {
    const s = settings(['hugo.toml', "title = 'Mi blog'\nlanguageCode = 'es'\n"]);
    const setup = plan(s);
    expect(setup.canonicalLanguage).toBe('en');
    expect(setup.languages).toEqual(['en']);
    // Unmarked files are the canonical language's by default: nothing more to say.
    expect(setup.content.defaultLanguage).toBeUndefined();
    expect(setup.content.languageSuffixes).toEqual({ en: 'en' });
    expect(setup.notes.join('\n')).toMatch(/defaultContentLanguage is en \(Hugo’s default: it is not set\)/);
    expect(setup.notes.join('\n')).toMatch(/the index's canonical language is en/);
    expect(setup.notes.join('\n')).toMatch(/languageCode is es.*set defaultContentLanguage = 'es'/);
  });

  it('leaves out languages it does not publish, and refuses a default language it cannot publish', () => {
    const s = settings(['hugo.toml', "defaultContentLanguage = 'es'\n[languages.es]\n[languages.fr]\n"]);
    expect(plan(s).content.skipLanguages).toEqual(['fr']);
    const fr = settings(['hugo.toml', "defaultContentLanguage = 'fr'\n[languages.fr]\n[languages.es]\n"]);
    expect(planHugoSite(fr, { content: ['posts'] })).toMatchObject({
      ok: false,
      message: expect.stringContaining('defaultContentLanguage is "fr"'),
    });
  });

  it('a content folder per language becomes the folder rule', () => {
    const s = settings([
      'hugo.toml',
      "defaultContentLanguage = 'es'\n[languages.es]\ncontentDir = 'content/es'\n[languages.en]\ncontentDir = 'content/en'\n",
    ]);
    const setup: HugoSetup = plan(s, { 'content/es': ['posts'], 'content/en': ['posts'] });
    expect(setup.content).toEqual({
      dir: 'content',
      types: { post: '{es,en}/posts/**/*.{md,markdown,mdx}' },
      language: 'folder',
      languageFolders: { es: 'es', en: 'en' },
      withoutCanonical: 'leave-out',
    });
    expect(setup.languages).toEqual(['es', 'en']);
  });
});

describe('Hugo permalinks as routes', () => {
  it.each([
    ['/:year/:month/:day/:slug/', '/{year}/{month}/{day}/{slugOrTitle}/', []],
    [':section/:filename', '/{section}/{filename}/', []],
    ['/:title/', '/{title}/', []],
    ['/:slugorfilename/', '/{slug}/', []],
    [
      '/:monthname/:slug/',
      '/{month}/{slugOrTitle}/',
      ["Hugo's :monthname has no route token; written as {month}"],
    ],
    ['/:weekday/:slug/', '/{slugOrTitle}/', ["Hugo's :weekday has no route token and was left out"]],
    ['/archive/:year/', '/archive/{year}/{slug}/', ['names no page']],
  ])('%s → %s', (permalink, route, todos) => {
    const todo: string[] = [];
    expect(fromPermalink(permalink, todo)).toBe(route);
    expect(todo).toHaveLength(todos.length);
    for (const [i, text] of todos.entries()) expect(todo[i]).toContain(text);
  });
});
