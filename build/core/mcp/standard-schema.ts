import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type { JsonSchema } from './tool-schemas.ts';

// @cfworker/json-schema interprets schemas instead of compiling them with `new Function`, which workerd
// forbids; using it in Node too gives stdio and HTTP clients the same error messages.
const validator = new CfWorkerJsonSchemaValidator({ shortcircuit: true });

interface Issue {
  message: string;
  path?: PropertyKey[];
}

/**
 * A JSON Schema file as the Standard Schema the SDK's `registerTool` takes: `tools/list` publishes the
 * schema unchanged, and failed validation becomes one issue per argument that an agent can act on
 * (`limit: 0 is less than 1. Items per page, from 1 to 100 (default 20).`).
 */
export function standardSchema<T>(
  schema: JsonSchema,
  options: { formats: boolean } = { formats: true },
): StandardSchemaWithJSON<T, T> {
  const check = validator.getValidator<T>((options.formats ? schema : withoutFormats(schema)) as never);
  return {
    '~standard': {
      version: 1,
      vendor: 'content-index',
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (value: unknown) => {
        const result = check(value);
        if (result.valid) return { value: result.data };
        return { issues: explain(result.errorMessage ?? 'is not valid', schema) };
      },
    },
  };
}

// Keywords whose value is a schema, an array of schemas, or a map of names to schemas.
const SUBSCHEMA = new Set([
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/** The schema without its `format` assertions (a property that happens to be called `format` stays). */
export function withoutFormats(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = {};
  const sub = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? withoutFormats(value as JsonSchema)
      : value;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format' && typeof value === 'string') continue;
    if (SUBSCHEMA.has(key)) copy[key] = sub(value);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map(sub);
    else if (SUBSCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, v]) => [name, sub(v)]));
    } else copy[key] = value;
  }
  return copy;
}

/**
 * cfworker reports `#: Property "limit" does not match schema.; #/limit: 0 is less than 1.`: an outer
 * line per enclosing object and the real reason last. Keep the reasons, name the argument, and add the
 * argument's own description as the hint.
 */
export function explain(raw: string, schema: JsonSchema): Issue[] {
  const properties = (schema.properties ?? {}) as Record<string, { description?: string }>;
  const describe = (name: string) => properties[name]?.description;
  const entries = [...raw.matchAll(/(?:^|; )#((?:\/[^:;]*)*): (.*?)(?=; #|$)/g)].map((m) => ({
    path: (m[1] ?? '').split('/').slice(1),
    text: (m[2] ?? '').replace(/\.$/, ''),
  }));
  const issues: Issue[] = [];
  for (const { path, text } of entries) {
    const unknown = /^Property "(.+)" does not match additional properties schema$/.exec(text);
    const missing = /^Instance does not have required property "(.+)"$/.exec(text);
    if (path.length === 0 && unknown?.[1]) {
      issues.push({
        path: [unknown[1]],
        message: `is not an argument of this tool. Arguments: ${Object.keys(properties).join(', ') || 'none'}.`,
      });
    } else if (path.length === 0 && missing?.[1]) {
      issues.push({ path: [missing[1]], message: withHint('is required', describe(missing[1])) });
    } else if (path.length > 0 && !WRAPPERS.some((wrapper) => wrapper.test(text))) {
      issues.push({
        path,
        message: withHint(reword(text), path.length === 1 ? describe(path[0] ?? '') : undefined),
      });
    }
  }
  return issues.length > 0 ? issues : [{ message: raw }];
}

// Lines that only say "something inside failed"; the line after them says what.
const WRAPPERS = [/^Property ".+" does not match/, /^A subschema had errors$/, /^False boolean schema$/];

function reword(text: string): string {
  const oneOf = /^Instance does not match any of (\[.*\])$/.exec(text);
  if (oneOf?.[1]) return `must be one of ${(JSON.parse(oneOf[1]) as unknown[]).join(', ')}`;
  const type = /^Instance type "(\w+)" is invalid\. Expected "(\w+)"$/.exec(text);
  if (type) return `must be ${article(type[2] ?? '')}, got ${article(type[1] ?? '')}`;
  const length = /^String is too (short|long) \((\d+) [<>] (\d+)\)$/.exec(text);
  if (length) {
    return `is too ${length[1]}: ${length[2]} characters, ${length[1] === 'short' ? 'at least' : 'at most'} ${length[3]}`;
  }
  return text;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function withHint(message: string, hint: string | undefined): string {
  return hint ? `${message}. ${hint}` : message;
}
