import { describe, expect, it } from 'vitest';
import { createAjv } from '../build/core/_ajv.ts';
import aiPluginSchema from '../build/schemas/ai-plugin.schema.json' with { type: 'json' };
import frontMatterSchema from '../build/schemas/front-matter.schema.json' with { type: 'json' };
import headersConfigSchema from '../build/schemas/headers-config.schema.json' with { type: 'json' };
import siteConfigSchema from '../build/schemas/site-config.schema.json' with { type: 'json' };
import v1Schema from '../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import versionsSchema from '../build/schemas/versions.schema.json' with { type: 'json' };

// The build compiles these without checking them against the meta-schema at every start
// (createAjv({ builtIn: true })): this is where they are checked, once.
describe('the schemas the build validates with', () => {
  const schemas = {
    'front-matter': frontMatterSchema,
    'site-config': siteConfigSchema,
    'ai-plugin': aiPluginSchema,
    'headers-config': headersConfigSchema,
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
