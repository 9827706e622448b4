import type { ValidateFunction } from 'ajv';
import aiPluginSchema from '../../schemas/ai-plugin.schema.json' with { type: 'json' };
import frontMatterSchema from '../../schemas/front-matter.schema.json' with { type: 'json' };
import lifecycleConfigSchema from '../../schemas/lifecycle-config.schema.json' with { type: 'json' };
import siteConfigSchema from '../../schemas/site-config.schema.json' with { type: 'json' };
import v1Schema from '../../schemas/v1/content-index.schema.json' with { type: 'json' };
import versionsSchema from '../../schemas/versions.schema.json' with { type: 'json' };
import { createAjv } from './_ajv.ts';
import { PRECOMPILED } from './precompiled-validators.ts';

/**
 * Posts and tips share the front-matter schema except that `technologies` is refused (docs/api.md, ContentItem). The
 * variant has no `$id`, so that one ajv can hold both.
 */
const { $id: _id, ...frontMatterRest } = frontMatterSchema;
const frontMatterOther = {
  ...frontMatterRest,
  properties: {
    ...frontMatterSchema.properties,
    technologies: {
      not: {},
      'x-message': 'only projects may list technologies',
      'x-hint': 'move the file to projects/, or put these values in tags',
    },
  },
};

/** Every schema content-index validates with, by name; `refs` are the schemas one refers to. */
export const BUILT_IN_SCHEMAS = {
  'front-matter-project': { schema: frontMatterSchema },
  'front-matter-other': { schema: frontMatterOther },
  // `aiPlugin` refers to the manifest schema for its limits: one source for both.
  'site-config': { schema: siteConfigSchema, refs: [aiPluginSchema] },
  'ai-plugin': { schema: aiPluginSchema },
  'lifecycle-config': { schema: lifecycleConfigSchema },
  versions: { schema: versionsSchema },
  'v1-content-index': { schema: v1Schema },
} satisfies Record<string, { schema: object; refs?: object[] }>;

export type ValidatorName = keyof typeof BUILT_IN_SCHEMAS;

/** Each built-in schema's source file in build/schemas/: what a message names when ajv refuses one. */
export const SCHEMA_FILES: ReadonlyMap<object, string> = new Map<object, string>([
  [frontMatterSchema, 'front-matter.schema.json'],
  [frontMatterOther, 'front-matter.schema.json'],
  [siteConfigSchema, 'site-config.schema.json'],
  [aiPluginSchema, 'ai-plugin.schema.json'],
  [lifecycleConfigSchema, 'lifecycle-config.schema.json'],
  [versionsSchema, 'versions.schema.json'],
  [v1Schema, 'v1/content-index.schema.json'],
]);

const compiled = new Map<ValidatorName, ValidateFunction>();

/**
 * The validator of a schema that ships with content-index. The package's build compiles them ahead of
 * time (scripts/build-dist.mjs, ajv's standalone code): the CLI starts without loading ajv or compiling
 * a schema. From the sources (tests) they are compiled here, with the same options, once each.
 */
export function builtInValidator(name: ValidatorName): ValidateFunction {
  let validate = compiled.get(name) ?? (PRECOMPILED?.[name] as ValidateFunction | undefined);
  if (!validate) {
    const { schema, refs = [] } = BUILT_IN_SCHEMAS[name] as { schema: object; refs?: object[] };
    const ajv = createAjv({ builtIn: true });
    for (const ref of refs) ajv.addSchema(ref);
    validate = ajv.compile(schema);
  }
  compiled.set(name, validate);
  return validate;
}
