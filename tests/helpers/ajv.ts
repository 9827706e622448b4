import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * An ajv of the tests' own, set up apart from the build's `createAjv` (no custom keywords or formats),
 * so a published document is checked the way a client would check it.
 */
export function clientAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}
