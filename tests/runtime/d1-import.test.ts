import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENERATION_PLACEHOLDER } from '../../build/core/edge/mcp/d1-sql.ts';
import { formatProblems, isContentIndexError } from '../../build/core/errors.ts';
import { readD1Manifest, readJoinedImport, writeJoinedImport } from '../../build/runtime/d1-import.ts';
import type { D1Manifest } from '../../build/stages/mcp-output.ts';

// The D1 import is files that name no generation (the build rewrites only those an edit changed); the
// import joins them, the generation put in at the places import.json gives. What reaches wrangler is
// only ever what the build wrote: a damaged or foreign manifest, or a file not as it describes, stops
// the import with what to do.

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'content-index-d1-import-'));
  await mkdir(join(root, '.content-index/d1'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

const GENERATION = 'g0123456789ab';
const SCHEMA = `CREATE TABLE ci_${GENERATION_PLACEHOLDER}_items (pos INTEGER);\n`;
// Entry text may hold the placeholder itself: only the marks are replaced.
const ENTRIES = `INSERT INTO ci_${GENERATION_PLACEHOLDER}_items (pos) VALUES\n(0, 'ñ ${GENERATION_PLACEHOLDER}');\n`;

async function files(): Promise<D1Manifest> {
  const schema = '.content-index/d1/schema-0123456789abcdef.sql';
  const entries = '.content-index/d1/entries-0123456789abcdef.sql';
  await writeFile(join(root, schema), SCHEMA);
  await writeFile(join(root, entries), ENTRIES);
  const manifest: D1Manifest = {
    generation: GENERATION,
    database: 'content-index',
    binding: 'CONTENT_INDEX_DB',
    items: 1,
    parts: [
      { path: schema, bytes: Buffer.byteLength(SCHEMA), marks: [SCHEMA.indexOf(GENERATION_PLACEHOLDER)] },
      { path: entries, bytes: Buffer.byteLength(ENTRIES), marks: ['INSERT INTO ci_'.length] },
    ],
  };
  await writeFile(join(root, '.content-index/d1/import.json'), JSON.stringify(manifest));
  return manifest;
}

async function problem(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isContentIndexError(error)) throw new Error(`expected a ContentIndexError, got ${String(error)}`);
  return formatProblems(error.problems);
}

describe('the D1 import joined', () => {
  it('puts the generation at the marks only, and leaves no copy behind', async () => {
    const manifest = await files();
    expect(await readD1Manifest(root)).toEqual(manifest);
    expect(await readJoinedImport(root, manifest)).toBe(
      `CREATE TABLE ci_${GENERATION}_items (pos INTEGER);\nINSERT INTO ci_${GENERATION}_items (pos) VALUES\n(0, 'ñ ${GENERATION_PLACEHOLDER}');\n`,
    );
    expect((await readdir(join(root, '.content-index'))).sort()).toEqual(['d1']);
  });

  it('refuses a manifest of an older build, or one naming a file outside the import', async () => {
    const manifest = await files();
    const write = (value: unknown) =>
      writeFile(join(root, '.content-index/d1/import.json'), JSON.stringify(value));
    await write({ ...manifest, parts: undefined, sql: '.content-index/d1/import.sql' });
    expect(await problem(readD1Manifest(root))).toContain(
      '.content-index/d1/import.json: is damaged, or was written by an older content-index',
    );
    for (const path of [
      '.content-index/d1/../../secret.sql',
      '.content-index/d1/import.json',
      '.content-index/d1/',
      '.content-index/worker/mcp-data.mjs',
    ]) {
      await write({ ...manifest, parts: [{ path, bytes: 20, marks: [] }] });
      expect(await problem(readD1Manifest(root)), path).toContain('is damaged');
    }
    await write({ ...manifest, parts: [{ ...manifest.parts[0], marks: [manifest.parts[0]?.bytes] }] });
    expect(await problem(readD1Manifest(root))).toContain('is damaged');
  });

  it('stops on a file missing, of another size, or without the placeholder at a mark', async () => {
    const manifest = await files();
    const [schema, entries] = manifest.parts as [D1Manifest['parts'][0], D1Manifest['parts'][0]];
    const out = join(root, 'joined.sql');
    await writeFile(join(root, entries.path), ENTRIES.replace('(0,', '(1,'));
    await writeFile(join(root, schema.path), `${SCHEMA} `);
    expect(await problem(writeJoinedImport(root, manifest, out))).toContain(
      `${schema.path}: is not the size import.json gives it`,
    );
    await writeFile(
      join(root, schema.path),
      SCHEMA.replace(GENERATION_PLACEHOLDER, 'g____________'.replace('_', 'x')),
    );
    const moved = await problem(writeJoinedImport(root, manifest, join(root, 'joined-2.sql')));
    expect(moved).toContain(
      `${schema.path}: does not hold the generation placeholder where import.json says`,
    );
    expect(moved).toContain('remove .content-index/d1/ and run content-index build again');
    await rm(join(root, schema.path));
    expect(await problem(writeJoinedImport(root, manifest, join(root, 'joined-3.sql')))).toContain(
      `${schema.path}: is missing: the D1 import of ${GENERATION} is not whole`,
    );
  });
});
