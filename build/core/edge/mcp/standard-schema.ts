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
export function standardSchema<T>(schema: JsonSchema): StandardSchemaWithJSON<T, T> {
  const check = validator.getValidator<T>(schema as never);
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

/**
 * A schema that is published (`tools/list` shows it) but not checked per call: for the tools' answers.
 * They are built by this code from data the build validated against the same published schema, and the
 * tests check every tool's answers against it with a separate validator; checking them again on every
 * call cost more than the search itself (0.7 ms of 2.9 at 1,000 items, and a tenth of the garbage).
 */
export function publishedSchema<T>(schema: JsonSchema): StandardSchemaWithJSON<T, T> {
  return {
    '~standard': {
      version: 1,
      vendor: 'content-index',
      jsonSchema: { input: () => schema, output: () => schema },
      validate: (value: unknown) => ({ value: value as T }),
    },
  };
}

/**
 * cfworker reports `#: Property "limit" does not match schema.; #/limit: 0 is less than 1.`: an outer
 * line per enclosing object and the real reason last. Keep the reasons, name the argument, and add the
 * argument's own description as the hint.
 */
export function explain(raw: string, schema: JsonSchema): Issue[] {
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const describe = (name: string) => properties[name]?.description;
  const resolve = (name: string): PropertySchema | undefined => {
    const property = properties[name];
    const ref = property?.$ref?.replace('#/$defs/', '');
    const defs = (schema.$defs ?? {}) as Record<string, PropertySchema>;
    return ref === undefined ? property : { ...defs[ref], ...property };
  };
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
        message: withHint(
          reword(text, path.length === 1 ? resolve(path[0] ?? '') : undefined),
          path.length === 1 ? describe(path[0] ?? '') : undefined,
        ),
      });
    }
  }
  return issues.length > 0 ? issues : [{ message: raw }];
}

// Lines that only say "something inside failed"; the line after them says what.
const WRAPPERS = [/^Property ".+" does not match/, /^A subschema had errors$/, /^False boolean schema$/];

interface PropertySchema {
  $ref?: string;
  description?: string;
  examples?: unknown[];
}

function reword(text: string, property: PropertySchema | undefined): string {
  // The one pattern with examples is the language argument: the codes, accepted in any case.
  if (/^String does not match pattern/.test(text) && property?.examples) {
    return `must be one of ${property.examples.join(', ')}, in any case`;
  }
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
