import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { expect, it } from 'vitest';
import { registerSchemaCommands } from '../build/cli-schema.ts';
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

it('refuses `schema snapshot` in an installed copy of the tool, and writes nothing there', async () => {
  const root = await mkdtemp(join(tmpdir(), 'ci-snapshot-'));
  try {
    const dir = join(root, 'node_modules', 'content-index', 'dist', 'schemas');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'v1.snapshot.json'), '{"old":true}\n');
    await writeFile(join(dir, 'v1.schema.json'), '{"new":true}\n');
    const v1 = SERIALIZERS.v1;
    if (!v1) throw new Error('v1 is registered');
    const installed = {
      v1: {
        ...v1,
        snapshotFile: pathToFileURL(join(dir, 'v1.snapshot.json')),
        schemaFile: pathToFileURL(join(dir, 'v1.schema.json')),
      },
    };
    const out: string[] = [];
    let code = 0;
    const program = new Command().exitOverride();
    registerSchemaCommands(
      program,
      { print: (t) => out.push(t), printErr: (t) => out.push(t), setExitCode: (c) => (code = c) },
      installed,
    );
    await program.parseAsync(['schema', 'snapshot', 'v1'], { from: 'user' });
    expect(code).toBe(1);
    expect(out.join('\n')).toContain('belongs to the installed content-index package');
    expect(await readFile(join(dir, 'v1.snapshot.json'), 'utf8')).toBe('{"old":true}\n');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
