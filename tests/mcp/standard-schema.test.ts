import { describe, expect, it } from 'vitest';
import { standardSchema, withoutFormats } from '../../build/core/mcp/standard-schema.ts';

describe('output schemas checked without formats', () => {
  const schema = {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      // A property named "format" is data, not an assertion: it stays.
      format: { type: 'string', enum: ['json'] },
      items: { type: 'array', items: { $ref: '#/$defs/Item' } },
      either: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
    },
    $defs: { Item: { type: 'object', properties: { image: { type: 'string', format: 'uri' } } } },
  };

  it('drops every format assertion and keeps everything else', () => {
    expect(withoutFormats(schema)).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string' },
        format: { type: 'string', enum: ['json'] },
        items: { type: 'array', items: { $ref: '#/$defs/Item' } },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      $defs: { Item: { type: 'object', properties: { image: { type: 'string' } } } },
    });
  });

  it('publishes the schema unchanged and still checks types and enums', () => {
    const output = standardSchema(schema, { formats: false });
    expect(output['~standard'].jsonSchema.output({ target: 'draft-2020-12' })).toBe(schema);
    const valid = { url: 'not a uri', format: 'json', items: [{ image: 'nor this' }], either: 'x' };
    expect(output['~standard'].validate(valid)).toEqual({ value: valid });
    expect(output['~standard'].validate({ ...valid, format: 'xml' })).toHaveProperty('issues');
    expect(standardSchema(schema)['~standard'].validate(valid)).toHaveProperty('issues');
  });
});
