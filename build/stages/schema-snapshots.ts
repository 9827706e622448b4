import { existsSync, readFileSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLED } from '../core/bundled.ts';
import { type Lifecycle, versionState } from '../core/edge/lifecycle.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import type { SerializerRegistry, VersionSerializer } from '../core/serializers/registry.ts';
import { compareSchemas } from '../core/versions/shape-guard.ts';

/** Paths in messages are relative to the content-index package (its checkout, or its installed copy). */
const TOOL_ROOT = fileURLToPath(new URL(BUNDLED ? '../' : '../../', import.meta.url));

function shown(url: URL): string {
  return relative(TOOL_ROOT, fileURLToPath(url)).split('\\').join('/');
}

/**
 * The shape guard, a step of its own in build(): every version the build is about to publish (all but
 * the withdrawn ones) must have the shape of its frozen snapshot. Throws ContentIndexError naming each
 * changed field.
 */
export async function guardShapes(
  serializers: SerializerRegistry,
  lifecycle: Lifecycle,
  now: Date,
): Promise<void> {
  const publishing = lifecycle.versions.filter((v) => versionState(v, now) !== 'withdrawn');
  const changed = await checkSnapshots(
    serializers,
    publishing.map((v) => v.version),
  );
  if (changed.length > 0) throw new ContentIndexError(changed);
}

/**
 * The shape guard: each version's live schema against its frozen snapshot. Run by every build (for the
 * versions it publishes) and by `npm test` (for every registered version). Never writes a snapshot.
 */
export async function checkSnapshots(
  serializers: SerializerRegistry,
  versions: readonly string[],
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const version of versions) {
    const serializer = serializers[version];
    if (serializer) problems.push(...(await checkSnapshot(version, serializer)));
  }
  return problems;
}

export async function checkSnapshot(version: string, serializer: VersionSerializer): Promise<Problem[]> {
  const file = shown(serializer.snapshotFile);
  const hint = `publish an incompatible change as a new version; if the snapshot itself is wrong, replace it with \`content-index schema snapshot ${version}\``;
  let snapshot: Record<string, unknown>;
  try {
    snapshot = JSON.parse(readFileSync(serializer.snapshotFile, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return [
      {
        code: 'schema_changed',
        file,
        message: missing
          ? `${version} has no frozen snapshot of its schema`
          : `the snapshot is not JSON: ${(error as Error).message}`,
        hint: `freeze the published shape with \`content-index schema snapshot ${version}\` and commit the file`,
      },
    ];
  }
  return compareSchemas(snapshot, serializer.schema).map((change) => ({
    code: 'schema_changed',
    file,
    field: change.field,
    message: `${version}: ${change.field} ${change.message}; within a version fields are only added, never removed or retyped (docs/api.md, Versions)`,
    hint,
  }));
}

/**
 * The explicit command's work: the schema source file, byte for byte, becomes the snapshot. In a source
 * checkout both are the files in build/schemas/, where git tracks them, even when the command runs
 * from dist/ (whose schemas/ is a copy the next build of dist/ replaces).
 */
export async function writeSnapshot(
  serializer: VersionSerializer,
): Promise<{ file: string; changed: boolean }> {
  const snapshotFile = inSources(serializer.snapshotFile);
  const schemaFile = inSources(serializer.schemaFile);
  const before = await readFile(snapshotFile, 'utf8').catch(() => undefined);
  const source = await readFile(schemaFile, 'utf8');
  if (before !== source) await copyFile(schemaFile, snapshotFile);
  return { file: shown(snapshotFile), changed: before !== source };
}

/** A file of dist/schemas/ as the source it was copied from, when the sources are there (a checkout). */
export function inSources(file: URL): URL {
  if (!BUNDLED) return file;
  const schemas = join(TOOL_ROOT, 'build', 'schemas');
  const inside = relative(join(TOOL_ROOT, 'dist', 'schemas'), fileURLToPath(file));
  if (inside.startsWith('..') || !existsSync(schemas)) return file;
  return pathToFileURL(join(schemas, inside));
}
