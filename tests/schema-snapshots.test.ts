import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { SERIALIZERS } from '../build/core/serializers/registry.ts';
import { checkSnapshots } from '../build/stages/schema-snapshots.ts';

// The shape guard as part of `npm test`: a schema edit that breaks a published version fails here
// even before anyone runs a build.
it("every registered version's live schema keeps the shape of its frozen snapshot", async () => {
  expect(Object.keys(SERIALIZERS)).toContain('v1');
  expect(await checkSnapshots(SERIALIZERS, Object.keys(SERIALIZERS))).toEqual([]);
});

it('keeps each snapshot as its own committed file, not a reference to the live schema', async () => {
  for (const serializer of Object.values(SERIALIZERS)) {
    expect(serializer.snapshotFile.href).not.toBe(serializer.schemaFile.href);
    expect(JSON.parse(await readFile(serializer.snapshotFile, 'utf8')).$schema).toMatch(/json-schema/);
  }
});
