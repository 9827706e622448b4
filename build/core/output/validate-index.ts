import type { ValidateFunction } from 'ajv';
import type { Problem } from '../errors.ts';
import { indexSchema } from '../serializers/registry.ts';
import { ajvProblems, createAjv } from '../validation/_ajv.ts';
import { BUILT_IN_SCHEMAS, builtInValidator } from '../validation/validators.ts';

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The last gate before anything is written: the assembled body must pass the schema we publish.
 * A failure here is a content-index bug or a value the earlier checks let through; either way the
 * message names the source file of the offending item.
 */
export function validateIndex(
  version: string,
  body: unknown,
  /** The source file of the body's nth item, for messages. */
  fileOf: (item: number) => string | undefined,
  schema: object | undefined = indexSchema(version),
): Problem[] {
  if (!schema) return [{ code: 'index_invalid', message: `no JSON Schema for version ${version}` }];
  let validate = compiled.get(schema);
  if (!validate) {
    validate =
      schema === BUILT_IN_SCHEMAS['v1-content-index'].schema
        ? builtInValidator('v1-content-index')
        : createAjv().compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(body)) return [];
  return ajvProblems(validate, { code: 'index_invalid' }).map((problem) => {
    const match = /^content\.(\d+)(?:\.|$)/.exec(problem.field ?? '');
    const file = match ? fileOf(Number(match[1])) : undefined;
    return file !== undefined ? { ...problem, file } : problem;
  });
}
