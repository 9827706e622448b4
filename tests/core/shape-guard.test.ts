import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../../build/core/versions/shape-guard.ts';
import snapshot from '../../build/schemas/snapshots/v1.schema.json' with { type: 'json' };

type Schema = Record<string, unknown>;

/** The frozen v1 snapshot with one edit, as a developer might make it to the live schema. */
function edited(edit: (schema: Schema) => void): Schema {
  const copy = structuredClone(snapshot) as Schema;
  edit(copy);
  return copy;
}

/** The object at a path inside a schema. */
function at(schema: Schema, ...path: string[]): Schema {
  return path.reduce((node, key) => node[key] as Schema, schema);
}

function requiredOf(schema: Schema, ...path: string[]): string[] {
  return at(schema, ...path).required as string[];
}

describe('the shape guard (docs/api.md: fields are only added within a version)', () => {
  it('passes the live schema identical to its snapshot', () => {
    expect(compareSchemas(snapshot, structuredClone(snapshot))).toEqual([]);
  });

  it('fails on a removed field, naming it', () => {
    const live = edited((s) => delete at(s, '$defs', 'ContentItem', 'properties').url_en);
    expect(compareSchemas(snapshot, live)).toEqual([{ field: 'content[].url_en', message: 'was removed' }]);
  });

  it('fails on a removed field nested behind $ref and oneOf', () => {
    const live = edited((s) => delete at(s, '$defs', 'Deprecation', 'properties').sunset_at);
    expect(compareSchemas(snapshot, live).map((c) => c.field)).toEqual(['versions.deprecation.sunset_at']);
  });

  it('fails on a changed type, naming the field and both types', () => {
    const live = edited((s) => {
      at(s, '$defs', 'Counts', 'properties').total = { type: 'string' };
    });
    expect(compareSchemas(snapshot, live)).toEqual([
      { field: 'counts.total', message: 'changed type from integer to string' },
    ]);
  });

  it('fails on a changed format', () => {
    const live = edited((s) => {
      at(s, 'properties', 'generated').format = 'date';
    });
    expect(compareSchemas(snapshot, live)).toEqual([
      { field: 'generated', message: 'changed format from date-time to date' },
    ]);
  });

  it('fails on an optional field made required', () => {
    const live = edited((s) => requiredOf(s, '$defs', 'ContentItem').push('description'));
    expect(compareSchemas(snapshot, live)).toEqual([
      { field: 'content[].description', message: 'became required' },
    ]);
  });

  it('fails on a required field made optional (clients rely on it being there)', () => {
    const live = edited((s) => {
      s.required = ['site', 'languages'];
    });
    expect(compareSchemas(snapshot, live).map((c) => `${c.field} ${c.message}`)).toEqual([
      'content is no longer required, so clients could stop receiving it',
    ]);
  });

  it('passes an added optional field', () => {
    const live = edited((s) => {
      at(s, '$defs', 'ContentItem', 'properties').summary = { type: 'string' };
      at(s, 'properties').stats = {
        type: 'object',
        required: ['words'],
        properties: { words: { type: 'integer' } },
      };
    });
    expect(compareSchemas(snapshot, live)).toEqual([]);
  });

  it('fails on an added field that is required', () => {
    const live = edited((s) => {
      at(s, '$defs', 'ContentItem', 'properties').summary = { type: 'string' };
      requiredOf(s, '$defs', 'ContentItem').push('summary');
    });
    expect(compareSchemas(snapshot, live)).toEqual([
      {
        field: 'content[].summary',
        message: 'was added as required; a field added within a version must be optional',
      },
    ]);
  });
});
