import { describe, expect, it } from 'vitest';
import { resolveSiteConfig } from '../../build/core/config/resolve-site-config.ts';
import { siteDescription, siteName } from '../../build/core/config/site-config.ts';
import { formatProblems, isContentIndexError } from '../../build/core/errors.ts';
import { FIXTURE_CONFIG } from '../helpers/site.ts';

const resolve = (extra: Record<string, unknown>) =>
  resolveSiteConfig({ ...FIXTURE_CONFIG, ...extra }, {}, 'site.config.ts');

function failure(extra: Record<string, unknown>): string {
  try {
    resolve(extra);
  } catch (error) {
    if (isContentIndexError(error)) return formatProblems(error.problems);
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('name and description per language', () => {
  it('takes plain strings as before: the name for every language, the description as the Spanish one', () => {
    const config = resolve({ name: 'Código y Neuronas', description: 'Artículos sobre IA.' });
    expect(config.name).toBe('Código y Neuronas');
    expect(config.description).toBe('Artículos sobre IA.');
    expect([siteName(config, 'es'), siteName(config, 'en'), siteName(config, 'pt-br')]).toEqual([
      'Código y Neuronas',
      'Código y Neuronas',
      'Código y Neuronas',
    ]);
    expect(siteDescription(config, 'es')).toBe('Artículos sobre IA.');
    expect(siteDescription(config, 'en')).toBeUndefined();
    expect(siteDescription(config, 'pt-br')).toBeUndefined();
  });

  it('takes one per language; Spanish is the canonical value and a missing name falls back to it', () => {
    const config = resolve({
      name: { es: 'Código y Neuronas', en: 'Code and Neurons' },
      description: { es: 'Artículos.', en: 'Posts.', 'pt-br': 'Artigos.' },
    });
    expect(config.name).toBe('Código y Neuronas');
    expect(config.description).toBe('Artículos.');
    expect(siteName(config, 'en')).toBe('Code and Neurons');
    expect(siteName(config, 'pt-br')).toBe('Código y Neuronas');
    expect(siteDescription(config, 'pt-br')).toBe('Artigos.');
    // The manifest's defaults follow the canonical values.
    expect(config.aiPlugin.nameForHuman).toBe('Código y Neuronas');
    expect(config.aiPlugin.descriptionForHuman).toBe('Artículos.');
  });

  it('refuses a per-language value without the canonical language, an unknown language or an empty text, naming each', () => {
    expect(failure({ name: { en: 'Code' }, description: { es: 'x', fr: 'y', en: '' } })).toBe(
      [
        'site.config.ts: description.en: must not be empty',
        'site.config.ts: description.fr: is not a known field',
        "  hint: one text, or one per language: { es: '…', en: '…', 'pt-br': '…' } (the canonical language's is required)",
        'site.config.ts: name.es: is required: es is the canonical language (canonicalLanguage), whose name the index and the manifest carry',
        "  hint: give name its es text, e.g. name: { es: '…' }, or one text for every language",
      ].join('\n'),
    );
    // With English canonical, the English text is the one required.
    expect(failure({ canonicalLanguage: 'en', name: { es: 'Código' } })).toContain(
      'site.config.ts: name.en: is required: en is the canonical language',
    );
    expect(resolve({ canonicalLanguage: 'en', name: { en: 'Code' } }).perLanguage.es.name).toBe('Code');
    expect(failure({ name: 3 })).toContain(
      'site.config.ts: name: must be text or a mapping of keys to values, got number 3',
    );
  });
});

describe('the API licence', () => {
  it('defaults to the site’s terms of use at the legal page', () => {
    expect(resolve({ aiPlugin: { legalInfoUrl: '/aviso-legal/' } }).license).toEqual({
      name: 'Terms of use',
      url: 'https://example.com/aviso-legal/',
    });
  });

  it('takes a name with an SPDX identifier or an address, not both', () => {
    expect(resolve({ license: { name: 'CC BY 4.0', identifier: 'CC-BY-4.0' } }).license).toEqual({
      name: 'CC BY 4.0',
      identifier: 'CC-BY-4.0',
    });
    expect(resolve({ license: { name: 'Mine', url: '/licencia/' } }).license.url).toBe(
      'https://example.com/licencia/',
    );
    expect(failure({ license: { name: 'Mine', identifier: 'MIT', url: '/l/' } })).toContain(
      'site.config.ts: license: takes identifier or url, not both (OpenAPI)',
    );
  });
});

describe('routes and urls', () => {
  it('takes the route tokens and the hugo style; hugo lowercases unless told not to', () => {
    const config = resolve({
      routes: { tip: { en: '/en/{section}/{year}/{month}/{day}/{slugOrTitle}/', es: '/{path}/{filename}/' } },
      urls: { style: 'hugo' },
    });
    expect(config.routes.tip.en).toBe('/en/{section}/{year}/{month}/{day}/{slugOrTitle}/');
    expect(config.urls).toEqual({ style: 'hugo', lowercase: true, removeAccents: false });
    expect(resolve({}).urls).toEqual({ style: 'as-written', lowercase: false, removeAccents: false });
    expect(resolve({ urls: { style: 'hugo', lowercase: false } }).urls.lowercase).toBe(false);
  });

  it('refuses a route with an unknown token, or none that names a page', () => {
    expect(failure({ routes: { post: { es: '/blog/{sluggy}/' } } })).toContain(
      'routes.post.es: has a { or } that is not one of the tokens {slug}, {filename}, {title}, {slugOrTitle}, {section}, {path}, {year}, {month}, {day}',
    );
    expect(failure({ routes: { post: { es: '/blog/{year}/' } } })).toContain(
      'routes.post.es: must contain {slug}, {filename}, {title} or {slugOrTitle}',
    );
  });
});

describe('the site’s languages', () => {
  it('default to es (canonical), en and pt-br, each llms.txt where its pages are', () => {
    const config = resolve({});
    expect(config.languages).toEqual(['es', 'en', 'pt-br']);
    expect(config.canonicalLanguage).toBe('es');
    expect(config.llmsTxt).toEqual({ es: 'llms.txt', en: 'en/llms.txt', 'pt-br': 'pt-br/llms.txt' });
    expect(config.content.defaultLanguage).toBe('es');
    expect(config.routes.post).toEqual({
      es: '/blog/{slug}/',
      en: '/en/blog/{slug}/',
      'pt-br': '/pt-br/blog/{slug}/',
    });
  });

  it('take a subset and another canonical language: it comes first, at the root, and unmarked files are its own', () => {
    const config = resolve({
      languages: ['es', 'en'],
      canonicalLanguage: 'en',
      languagePaths: { es: '/espanol/' },
    });
    expect(config.languages).toEqual(['en', 'es']);
    expect(config.llmsTxt).toEqual({ en: 'llms.txt', es: 'espanol/llms.txt' });
    expect(config.content.defaultLanguage).toBe('en');
    expect(config.routes.post.en).toBe('/blog/{slug}/');
    expect(config.routes.post.es).toBe('/es/blog/{slug}/');
  });

  it('refuses a canonical language the site does not have, a path for the canonical one, and an unknown language', () => {
    expect(failure({ languages: ['en'] })).toContain(
      'site.config.ts: languages: does not list es, the canonical language unless canonicalLanguage names another',
    );
    expect(failure({ languages: ['es'], canonicalLanguage: 'en' })).toContain(
      'site.config.ts: canonicalLanguage: is en, which is not one of languages (es)',
    );
    expect(failure({ languagePaths: { es: '/es/' } })).toContain(
      "site.config.ts: languagePaths.es: is the canonical language's, whose llms.txt is always /llms.txt",
    );
    expect(failure({ languages: ['es', 'fr'] })).toContain('site.config.ts: languages.1:');
  });

  it('keeps only the languages a Hugo configuration publishes, and refuses a canonical one it does not', () => {
    const hugo = {
      languages: ['es', 'en', 'pt-br'] as const,
      disabledLanguages: ['pt-br'] as const,
      file: 'hugo.toml',
    };
    const config = resolveSiteConfig({ ...FIXTURE_CONFIG }, {}, 'site.config.ts', { hugo });
    expect(config.languages).toEqual(['es', 'en']);
    expect(config.llmsTxt).toEqual({ es: 'llms.txt', en: 'en/llms.txt' });
    try {
      resolveSiteConfig({ ...FIXTURE_CONFIG }, {}, 'site.config.ts', {
        hugo: { ...hugo, languages: ['en'] },
      });
      throw new Error('accepted');
    } catch (error) {
      expect(isContentIndexError(error) && formatProblems(error.problems)).toContain(
        'site.config.ts: canonicalLanguage: is es, and hugo.toml has no such language: Hugo publishes no es page',
      );
    }
  });
});
