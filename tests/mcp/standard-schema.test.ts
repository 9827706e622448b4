import { describe, expect, it } from 'vitest';
import { publishedSchema, standardSchema } from '../../build/core/edge/mcp/standard-schema.ts';

const schema = {
  type: 'object',
  required: ['limit'],
  properties: { limit: { type: 'integer', minimum: 1, description: 'Items per page.' } },
};

describe('tool schemas as Standard Schemas', () => {
  it('checks arguments, naming the argument and adding its description', () => {
    const input = standardSchema(schema);
    expect(input['~standard'].jsonSchema.input({ target: 'draft-2020-12' })).toBe(schema);
    expect(input['~standard'].validate({ limit: 3 })).toEqual({ value: { limit: 3 } });
    expect(input['~standard'].validate({ limit: 0 })).toEqual({
      issues: [{ path: ['limit'], message: '0 is less than 1. Items per page.' }],
    });
  });

  it('publishes an answer schema unchanged without checking each answer against it', () => {
    const output = publishedSchema(schema);
    expect(output['~standard'].jsonSchema.output({ target: 'draft-2020-12' })).toBe(schema);
    // The tests check every tool's answers against the published schemas (tool-suite.ts); per call,
    // the check would cost more than the search.
    expect(output['~standard'].validate({ limit: 0 })).toEqual({ value: { limit: 0 } });
  });
});
