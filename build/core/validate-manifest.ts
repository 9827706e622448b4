import { ajvProblems } from './_ajv.ts';
import type { Problem } from './errors.ts';
import { builtInValidator } from './validators.ts';
import { MANIFEST_PATH } from './version-manifest.ts';

/** The manifest the Pages Function relies on passes its schema before anything is written. */
export function validateManifest(manifest: unknown): Problem[] {
  const validate = builtInValidator('versions');
  if (validate(manifest)) return [];
  return ajvProblems(validate, { code: 'index_invalid', file: `public/${MANIFEST_PATH}` });
}
