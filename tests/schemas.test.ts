import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../build/core/validation/_ajv.ts';
import {
  BUILT_IN_SCHEMAS,
  builtInValidator,
  type ValidatorName,
} from '../build/core/validation/validators.ts';
import { standaloneValidators } from '../build/core/validation/validators-standalone.ts';
import aiPluginSchema from '../build/schemas/ai-plugin.schema.json' with { type: 'json' };
import frontMatterSchema from '../build/schemas/front-matter.schema.json' with { type: 'json' };
import lifecycleConfigSchema from '../build/schemas/lifecycle-config.schema.json' with { type: 'json' };
import siteConfigSchema from '../build/schemas/site-config.schema.json' with { type: 'json' };
import v1Schema from '../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import versionsSchema from '../build/schemas/versions.schema.json' with { type: 'json' };
import { FIXTURE_CONFIG, FIXTURE_HEADERS } from './helpers/site.ts';

// The build compiles these without checking them against the meta-schema at every start
// (createAjv({ builtIn: true })): this is where they are checked, once.
describe('the schemas the build validates with', () => {
  const schemas = {
    'front-matter': frontMatterSchema,
    'site-config': siteConfigSchema,
    'ai-plugin': aiPluginSchema,
    'lifecycle-config': lifecycleConfigSchema,
    versions: versionsSchema,
    'v1 content index': v1Schema,
  };
  for (const [name, schema] of Object.entries(schemas)) {
    it(`${name} is a valid JSON Schema 2020-12 document`, () => {
      const ajv = createAjv();
      const valid = ajv.validateSchema(schema);
      expect(ajv.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    });
  }

  it('a schema that does not ship with content-index is still checked against the meta-schema', () => {
    const broken = { type: 'object', properties: { title: { type: 'text' } } };
    expect(() => createAjv().compile(broken)).toThrow(/schema is invalid/);
    // and one that does is trusted as it is
    expect(() => createAjv({ builtIn: true }).compile(broken)).not.toThrow(/schema is invalid/);
  });
});

// The package validates with ajv's standalone code, compiled when dist/ is built; the sources compile
// the same schemas at run time. Both must accept and refuse alike, with the same errors (the messages
// authors read are made from them).
describe('the precompiled validators', () => {
  const SAMPLES: Record<ValidatorName, unknown[]> = {
    'front-matter-project': [
      { title: 'Uno', date: '2025-02-30', tags: ['ia', ''] },
      { title: '  ', technologies: ['Rust', 3], draft: 'yes' },
      { Title: 'x' },
      { title: 'ok', date: '2025-03-14T09:30:00+02:00', image: 'a.png' },
      [],
      'text',
    ],
    'front-matter-other': [
      { title: 'Uno', technologies: ['Rust'] },
      { title: 'Dos', tags: 'ia' },
    ],
    'site-config': [
      FIXTURE_CONFIG,
      { site: 'not an address', sections: 3 },
      { ...FIXTURE_CONFIG, aiPlugin: { nameForModel: 'x'.repeat(80) }, mcp: { backend: 'cloud' } },
    ],
    'ai-plugin': [{}, { schema_version: 'v1', name_for_human: 'x'.repeat(40) }],
    'lifecycle-config': [
      FIXTURE_HEADERS,
      { versions: 3 },
      { versions: { v1: { published: '01/15/2025' } }, cache: {} },
    ],
    versions: [{}, { current: 'v1', versions: [{ version: 'v1' }] }],
    'v1-content-index': [
      { site: 'x', content: [{ type: 'post', title: '', url: 'relative' }] },
      { content: null },
    ],
  };

  it('accept and refuse as the runtime-compiled ones do, with the same errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'content-index-validators-'));
    try {
      const require = createRequire(import.meta.url);
      const ajvModule = pathToFileURL(join(import.meta.dirname, '../build/core/validation/_ajv.ts')).href;
      const code = standaloneValidators(ajvModule, (module) => pathToFileURL(require.resolve(module)).href);
      await writeFile(join(dir, 'validators.mjs'), code);
      const { PRECOMPILED } = (await import(pathToFileURL(join(dir, 'validators.mjs')).href)) as {
        PRECOMPILED: Record<ValidatorName, ValidateFunction>;
      };
      expect(Object.keys(PRECOMPILED).sort()).toEqual(Object.keys(BUILT_IN_SCHEMAS).sort());
      for (const [name, samples] of Object.entries(SAMPLES) as [ValidatorName, unknown[]][]) {
        const runtime = builtInValidator(name);
        const precompiled = PRECOMPILED[name];
        for (const sample of samples) {
          const valid = runtime(sample);
          expect(precompiled(sample), `${name}: ${JSON.stringify(sample)}`).toBe(valid);
          expect(precompiled.errors ?? null).toEqual(runtime.errors ?? null);
        }
      }
      // The samples reach both answers: a validator that accepted (or refused) everything would fail.
      expect(builtInValidator('site-config')(FIXTURE_CONFIG)).toBe(true);
      expect(builtInValidator('front-matter-other')(SAMPLES['front-matter-other'][0])).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
