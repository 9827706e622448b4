import type { ValidateFunction } from 'ajv';
import versionsSchema from '../schemas/versions.schema.json' with { type: 'json' };
import { ajvProblems, createAjv } from './_ajv.ts';
import type { Problem } from './errors.ts';
import { MANIFEST_PATH } from './version-manifest.ts';

let validate: ValidateFunction | undefined;

/** The manifest the Pages Function relies on passes its schema before anything is written. */
export function validateManifest(manifest: unknown): Problem[] {
  validate ??= createAjv({ builtIn: true }).compile(versionsSchema);
  if (validate(manifest)) return [];
  return ajvProblems(validate, { code: 'index_invalid', file: `public/${MANIFEST_PATH}` });
}
