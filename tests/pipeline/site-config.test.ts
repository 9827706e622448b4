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

  it('refuses a per-language value without Spanish, an unknown language or an empty text, naming each', () => {
    expect(failure({ name: { en: 'Code' }, description: { es: 'x', fr: 'y', en: '' } })).toBe(
      [
        'site.config.ts: description.en: must not be empty',
        'site.config.ts: description.fr: is not a known field',
        "  hint: one text, or one per language: { es: '…', en: '…', 'pt-br': '…' } (es is required)",
        'site.config.ts: name.es: is required',
        "  hint: one text, or one per language: { es: '…', en: '…', 'pt-br': '…' } (es is required)",
      ].join('\n'),
    );
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
