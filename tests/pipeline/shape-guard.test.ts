import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../build/cli.ts';
import { SERIALIZERS, type VersionSerializer } from '../../build/core/serializers/registry.ts';
import { build, isContentIndexError } from '../../build/index.ts';
import { checkSnapshot, writeSnapshot } from '../../build/stages/schema-snapshots.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

const clock = () => new Date('2026-11-22T12:00:00Z');
const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }) };
const v1 = SERIALIZERS.v1 as VersionSerializer;

let site: TempSite | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await site?.dispose();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  site = scratch = undefined;
});

/** v1 with an edited live schema; its snapshot stays the committed one. */
function v1With(edit: (itemProperties: Record<string, unknown>) => void): VersionSerializer {
  const schema = structuredClone(v1.schema);
  const defs = schema.$defs as Record<string, { properties: Record<string, unknown> }>;
  if (defs.ContentItem) edit(defs.ContentItem.properties);
  return { ...v1, schema };
}

describe('the build runs the shape guard', () => {
  it('refuses a removed field, naming it, and writes nothing', async () => {
    site = await tempSite(FILES);
    const snapshotBefore = await readFile(v1.snapshotFile, 'utf8');
    const serializers = { v1: v1With((item) => delete item.image) };
    const error = await build({ root: site.root, clock, serializers }).catch((e: unknown) => e);
    expect(isContentIndexError(error)).toBe(true);
    if (!isContentIndexError(error)) return;
    expect(error.problems).toMatchObject([
      {
        code: 'schema_changed',
        file: 'build/schemas/snapshots/v1.schema.json',
        field: 'content[].image',
        message: expect.stringContaining('v1: content[].image was removed'),
        hint: expect.stringContaining('content-index schema snapshot v1'),
      },
    ]);
    expect(await site.snapshot()).toEqual({});
    expect(await readFile(v1.snapshotFile, 'utf8')).toBe(snapshotBefore);
  });

  it('passes an added optional field and leaves the snapshot as it was', async () => {
    site = await tempSite(FILES);
    const snapshotBefore = await readFile(v1.snapshotFile, 'utf8');
    const serializers = {
      v1: v1With((item) => {
        item.reading_minutes = { type: 'integer' };
      }),
    };
    await build({ root: site.root, clock, serializers });
    expect(await site.readJson('api/v1/content.json')).toMatchObject({ versions: { deprecation: null } });
    expect(await readFile(v1.snapshotFile, 'utf8')).toBe(snapshotBefore);
  });
});

describe('content-index schema', () => {
  it('snapshot is the explicit command that freezes a schema, byte for byte', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'content-index-snapshot-'));
    const schemaPath = join(scratch, 'schema.json');
    const snapshotPath = join(scratch, 'snapshot.json');
    const frozen = { type: 'object', properties: { a: { type: 'string' } } };
    await writeFile(snapshotPath, `${JSON.stringify(frozen)}\n`);
    const live = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } };
    await writeFile(schemaPath, `${JSON.stringify(live, null, 2)}\n`);
    const serializer: VersionSerializer = {
      ...v1,
      schema: live,
      schemaFile: pathToFileURL(schemaPath),
      snapshotFile: pathToFileURL(snapshotPath),
    };
    // The guard accepts the addition without touching the snapshot…
    expect(await checkSnapshot('v7', serializer)).toEqual([]);
    expect(await readFile(snapshotPath, 'utf8')).toBe(`${JSON.stringify(frozen)}\n`);
    // …and only the command changes it.
    expect((await writeSnapshot(serializer)).changed).toBe(true);
    expect(await readFile(snapshotPath, 'utf8')).toBe(await readFile(schemaPath, 'utf8'));
    expect((await writeSnapshot(serializer)).changed).toBe(false);
  });

  it('check passes on the repository and snapshot refuses an unknown version', async () => {
    const out: string[] = [];
    const io = { out: { write: (s: string) => out.push(s) }, err: { write: (s: string) => out.push(s) } };
    expect(await main(['schema', 'check'], io)).toBe(0);
    expect(out.join('')).toContain('v1: the schemas keep the shape of their snapshots');
    expect(await main(['schema', 'snapshot', 'v9'], io)).toBe(1);
    expect(out.join('')).toContain('v9 has no serializer');
  });

  it('reports a version without a snapshot', async () => {
    const serializer = { ...v1, snapshotFile: new URL('file:///nonexistent/v5.schema.json') };
    expect(await checkSnapshot('v5', serializer)).toMatchObject([
      { code: 'schema_changed', message: 'v5 has no frozen snapshot of its schema' },
    ]);
  });
});
