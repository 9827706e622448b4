import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Checkout, copyCheckout } from './helpers/checkout.ts';

// dist/ in a source checkout: scripts/build-dist.mjs, and the bin that runs what the sources say.

let checkout: Checkout;
beforeAll(async () => {
  checkout = await copyCheckout();
});
afterAll(() => checkout?.dispose());

it('names the schema file and the keyword when ajv’s strict mode refuses an edited schema, without a stack trace', async () => {
  // A field retyped from integer to string with its `minimum` left behind.
  const file = join(checkout.root, 'build/schemas/v1/content-index.schema.json');
  const original = await readFile(file, 'utf8');
  const edited = original.replace(
    '"posts": { "type": "integer", "minimum": 0 }',
    '"posts": { "type": "string", "minimum": 0 }',
  );
  expect(edited).not.toBe(original);
  await writeFile(file, edited);
  try {
    const result = await checkout.run(process.execPath, ['scripts/build-dist.mjs']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '✗ dist/ was not built: build/schemas/v1/content-index.schema.json: ajv\'s strict mode refuses the keyword "minimum" at #/$defs/Counts/properties/posts: missing type "number" for keyword "minimum" (strictTypes)',
    );
    expect(result.stderr).toContain('hint: ');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  } finally {
    await writeFile(file, original);
  }
});
