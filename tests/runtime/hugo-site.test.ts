import { describe, expect, it } from 'vitest';
import { pagesHosts } from '../../build/core/config/resolve-site-config.ts';
import { type HugoSettings, readHugoConfig } from '../../build/runtime/hugo-config.ts';
import type { HugoConfigFile } from '../../build/runtime/hugo-config-files.ts';
import { type HugoSetup, planHugoSite, shortName } from '../../build/runtime/hugo-site.ts';

// What init makes of a Hugo site, without hugo: values made valid for the build (tests/commands/
// hugo-sites.test.ts runs the same sites through the real hugo and the build).
const settings = (text: string, path = 'hugo.toml'): HugoSettings => {
  const result = readHugoConfig([{ path, text } satisfies HugoConfigFile]);
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.settings;
};
const plan = (text: string, sections: Record<string, string[]> = { content: ['posts'] }): HugoSetup => {
  const result = planHugoSite(settings(text), sections);
  if (!result.ok) throw new Error(result.message);
  return result.setup;
};

describe('a name for ai-plugin.json (at most 20 characters) from a longer Hugo title', () => {
  it.each([
    ['Apuntes de inteligencia artificial y datos', 'Apuntes'],
    ['Código y Neuronas | Un blog sobre IA y programación', 'Código y Neuronas'],
    ['Field Notes - machine learning in practice', 'Field Notes'],
    ['The Blog of Someone Writing About Things', 'The Blog of Someone'],
    ['Supercalifragilisticexpialidocious', 'Supercalifragilistic'],
  ])('%s → %s', (title, short) => {
    expect(shortName(title, 20)).toBe(short);
    expect(Array.from(short).length).toBeLessThanOrEqual(20);
  });

  it('is written as aiPlugin.nameForHuman, with a line saying so; a short title needs none', () => {
    const long = plan(
      "title = 'Apuntes de inteligencia artificial y datos'\ndefaultContentLanguage = 'es'\n",
    );
    expect(long.aiPlugin.nameForHuman).toBe('Apuntes');
    expect(long.aiPluginComments.join('\n')).toContain("Hugo's title is 42 characters");
    expect(long.notes.join('\n')).toContain('is longer than the 20 characters');
    expect(plan("title = 'Mi blog'\ndefaultContentLanguage = 'es'\n").aiPlugin).toEqual({});
  });
});

describe("the site's words and files from Hugo's configuration", () => {
  it('takes params.description per language, params.email, params.logo and the static folders', () => {
    const setup = plan(
      [
        "title = 'Blog'",
        "defaultContentLanguage = 'es'",
        "staticDir = ['static', 'assets/static']",
        '[params]',
        "  description = 'Un blog'",
        "  logo = 'images/logo.svg'",
        '  [params.author]',
        "    email = 'autora@example.org'",
        '[languages.es]',
        '[languages.en]',
        '  [languages.en.params]',
        "    description = 'A blog'",
        '',
      ].join('\n'),
    );
    expect(setup.description).toEqual({ es: 'Un blog', en: 'A blog' });
    expect(setup.aiPlugin).toEqual({ contactEmail: 'autora@example.org', logoUrl: '/images/logo.svg' });
    expect(setup.generatorStatic).toEqual(['static', 'assets/static']);
  });
});

describe('sections and languages as the build takes them', () => {
  it('writes section list pages as uglyURLs does (posts.html), every section or one', () => {
    expect(plan("defaultContentLanguage = 'es'\nuglyURLs = true\n").sections).toEqual([
      { name: 'Posts', url: 'posts.html' },
    ]);
    expect(plan("defaultContentLanguage = 'es'\n[uglyURLs]\n  posts = true\n").sections[0]?.url).toBe(
      'posts.html',
    );
    expect(plan("defaultContentLanguage = 'es'\n").sections[0]?.url).toBe('posts/');
  });

  it('puts in skipLanguages only keys a file name can carry ("en us" yes, "zh.hant" no)', () => {
    const setup = plan(
      "defaultContentLanguage = 'es'\n[languages.es]\n[languages.'en us']\n[languages.'zh.hant']\n[languages.fr]\n",
    );
    expect(setup.content.skipLanguages).toEqual(['en us', 'fr']);
    expect(setup.notes.join('\n')).toContain('language zh.hant: a file name cannot carry this key');
  });
});

describe("the Pages project's hosts", () => {
  it('are <name>.pages.dev and every preview, for a valid project name only', () => {
    expect(pagesHosts('Mi-Blog')).toEqual(['mi-blog.pages.dev', '*.mi-blog.pages.dev']);
    expect(pagesHosts(undefined)).toEqual([]);
    expect(pagesHosts('not a name')).toEqual([]);
    expect(pagesHosts('-dash')).toEqual([]);
  });
});
