import { MANIFEST_PATH } from '../edge/version-manifest.ts';
import type { Problem } from '../errors.ts';
import { ajvProblems } from '../validation/_ajv.ts';
import { builtInValidator } from '../validation/validators.ts';

/** The manifest the Pages Function relies on passes its schema before anything is written. */
export function validateManifest(manifest: unknown): Problem[] {
  const validate = builtInValidator('versions');
  if (validate(manifest)) return [];
  return ajvProblems(validate, { code: 'index_invalid', file: `public/${MANIFEST_PATH}` });
}
