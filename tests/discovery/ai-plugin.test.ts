import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import schema from '../../build/schemas/ai-plugin.schema.json' with { type: 'json' };
import { clientAjv } from '../helpers/ajv.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola' }) };

/** An independent validator (no build annotations, non-strict) for the published manifest schema. */
function validateManifest(manifest: unknown) {
  const ajv = clientAjv();
  const validate = ajv.compile(schema);
  return { valid: validate(manifest), errors: validate.errors };
}

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

async function manifestOf(config: Record<string, unknown>) {
  site = await tempSite(FILES, config);
  const result = await site.cli('build');
  expect(result.code, result.stderr).toBe(0);
  return site.readJson<Record<string, unknown>>('.well-known/ai-plugin.json');
}

/** Builds once with a valid configuration, then with `config`: the build must fail, name the field and keep public/. */
async function expectConfigFailure(config: Record<string, unknown>, expected: (string | RegExp)[]) {
  site = await tempSite(FILES);
  expect((await site.cli('build')).code).toBe(0);
  const before = await site.snapshot();
  await site.write('site.config.ts', `export default ${JSON.stringify(config, null, 2)};\n`);
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  for (const line of expected) {
    if (typeof line === 'string') expect(result.stderr).toContain(line);
    else expect(result.stderr).toMatch(line);
  }
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(await site.snapshot()).toEqual(before);
}

const withPlugin = (aiPlugin: Record<string, unknown>) => ({ ...FIXTURE_CONFIG, aiPlugin });

describe('/.well-known/ai-plugin.json', () => {
  it('is built from the sample configuration and passes the schema with the limits', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'content-index-plugin-')), 'public');
    try {
      await build({ root: PROJECT_ROOT, out });
      const manifest = JSON.parse(await readFile(join(out, '.well-known/ai-plugin.json'), 'utf8'));
      const { valid, errors } = validateManifest(manifest);
      expect(valid, JSON.stringify(errors)).toBe(true);
      expect(manifest).toMatchObject({
        schema_version: 'v1',
        name_for_human: 'Código y Neuronas',
        name_for_model: 'codigo_y_neuronas',
        auth: { type: 'none' },
        api: { type: 'openapi', url: 'https://example.com/openapi.json' },
        logo_url: 'https://example.com/logo.png',
        contact_email: 'hola@example.com',
        legal_info_url: 'https://example.com/aviso-legal/',
      });
      expect(Object.keys(manifest)).toEqual([
        'schema_version',
        'name_for_human',
        'name_for_model',
        'description_for_human',
        'description_for_model',
        'auth',
        'api',
        'logo_url',
        'contact_email',
        'legal_info_url',
      ]);
    } finally {
      await rm(dirname(out), { recursive: true, force: true });
    }
  });

  it('the schema rejects each broken limit (so passing it means something)', () => {
    const good = {
      schema_version: 'v1',
      name_for_human: 'x'.repeat(20),
      name_for_model: `a_${'b'.repeat(48)}`,
      description_for_human: 'd'.repeat(100),
      description_for_model: 'm'.repeat(8000),
      auth: { type: 'none' },
      api: { type: 'openapi', url: 'https://example.com/openapi.json' },
      logo_url: 'https://example.com/logo.png',
      contact_email: 'a@example.com',
      legal_info_url: 'https://example.com/legal/',
    };
    expect(validateManifest(good).valid).toBe(true);
    for (const broken of [
      { name_for_human: 'x'.repeat(21) },
      { name_for_model: 'b'.repeat(51) },
      { name_for_model: 'has-hyphen' },
      { name_for_model: 'has space' },
      { description_for_human: 'd'.repeat(101) },
      { description_for_model: 'm'.repeat(8001) },
      { auth: { type: 'oauth' } },
      { schema_version: 'v2' },
      { contact_email: 'nobody' },
    ]) {
      expect(validateManifest({ ...good, ...broken }).valid, JSON.stringify(broken)).toBe(false);
    }
  });

  it('derives every value from the site when aiPlugin is not configured', async () => {
    const { aiPlugin: _, ...withoutPlugin } = FIXTURE_CONFIG;
    const manifest = await manifestOf({
      ...withoutPlugin,
      name: 'Más Café, Menos Bugs',
      description: `${'Una descripción muy larga del sitio '.repeat(5)}fin.`,
    });
    expect(validateManifest(manifest).valid).toBe(true);
    expect(manifest.name_for_human).toBe('Más Café, Menos Bugs');
    expect(manifest.name_for_model).toBe('mas_cafe_menos_bugs');
    // A description over 100 characters is shortened at a word, not left to fail the build.
    expect(manifest.description_for_human).toMatch(/^Una descripción muy larga del sitio .*…$/);
    expect(Array.from(manifest.description_for_human as string).length).toBeLessThanOrEqual(100);
    expect(manifest.description_for_model).toContain('https://example.com/api/content.json');
    expect(manifest.description_for_model).toContain('https://example.com/mcp');
    expect(manifest.logo_url).toBe('https://example.com/logo.png');
    expect(manifest.contact_email).toBe('webmaster@example.com');
    expect(manifest.legal_info_url).toBe('https://example.com/docs/');
  });

  it('accepts values exactly at each limit', async () => {
    const manifest = await manifestOf(
      withPlugin({
        nameForHuman: 'n'.repeat(20),
        nameForModel: 'M'.repeat(50),
        descriptionForHuman: 'h'.repeat(100),
        descriptionForModel: 'm'.repeat(8000),
        logoUrl: 'https://cdn.example.com/logo.png',
        contactEmail: 'api@example.com',
        legalInfoUrl: '/legal/',
      }),
    );
    expect(validateManifest(manifest).valid).toBe(true);
    expect(manifest.logo_url).toBe('https://cdn.example.com/logo.png');
    expect(manifest.legal_info_url).toBe('https://example.com/legal/');
  });
});

describe('a configuration that breaks a manifest limit', () => {
  it('fails on name_for_human over 20 characters', async () => {
    await expectConfigFailure(withPlugin({ nameForHuman: 'n'.repeat(21) }), [
      'site.config.ts: aiPlugin.nameForHuman: must be at most 20 characters, got 21',
      'hint: a short name shown to people',
    ]);
  });

  it('fails on name_for_model over 50 characters', async () => {
    await expectConfigFailure(withPlugin({ nameForModel: 'm'.repeat(51) }), [
      'site.config.ts: aiPlugin.nameForModel: must be at most 50 characters, got 51',
    ]);
  });

  it('fails on name_for_model with characters other than letters, digits and underscores', async () => {
    await expectConfigFailure(withPlugin({ nameForModel: 'código-y-neuronas' }), [
      'site.config.ts: aiPlugin.nameForModel: must contain only letters, digits and underscores',
      'e.g. codigo_y_neuronas',
    ]);
  });

  it('fails on description_for_human over 100 characters', async () => {
    await expectConfigFailure(withPlugin({ descriptionForHuman: 'd'.repeat(101) }), [
      'site.config.ts: aiPlugin.descriptionForHuman: must be at most 100 characters, got 101',
    ]);
  });

  it('fails on description_for_model over 8,000 characters', async () => {
    await expectConfigFailure(withPlugin({ descriptionForModel: 'd'.repeat(8001) }), [
      'site.config.ts: aiPlugin.descriptionForModel: must be at most 8000 characters, got 8001',
    ]);
  });

  it('fails on a contact address that is not an e-mail address', async () => {
    await expectConfigFailure(withPlugin({ contactEmail: 'webmaster' }), [
      'site.config.ts: aiPlugin.contactEmail: must be an e-mail address, got "webmaster"',
    ]);
  });

  it('fails on an unknown key, naming it', async () => {
    await expectConfigFailure(withPlugin({ logo: '/logo.png' }), [
      'site.config.ts: aiPlugin.logo: is not a known field',
    ]);
  });

  it('fails when a default breaks a limit, saying where the default came from', async () => {
    await expectConfigFailure({ ...FIXTURE_CONFIG, name: 'A site name far too long for people' }, [
      'site.config.ts: aiPlugin.nameForHuman: must be at most 20 characters, got 35',
      'hint: it defaults to name (or the site host); a short name shown to people',
    ]);
  });
});
