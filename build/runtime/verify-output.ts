import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { versionState } from '../core/edge/lifecycle.ts';
import { MANIFEST_PATH, parseManifest } from '../core/edge/version-manifest.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { SERIALIZERS, type SerializerRegistry } from '../core/serializers/registry.ts';
import { ajvProblems, createAjv } from '../core/validation/_ajv.ts';

/**
 * Reads back what a build wrote, as a client would, before anything is deployed: every version the
 * manifest still serves parses and validates against its schema, counts agree with content, and the
 * alias is byte for byte the current version.
 */
export async function verifyOutput(
  outDir: string,
  now: Date,
  serializers: SerializerRegistry = SERIALIZERS,
): Promise<void> {
  const problems: Problem[] = [];
  const read = async (path: string) => {
    try {
      return await readFile(join(outDir, path), 'utf8');
    } catch {
      problems.push({
        code: 'output_failed',
        file: path,
        message: 'is missing from the output',
        hint: 'run the build',
      });
      return undefined;
    }
  };
  const manifestText = await read(MANIFEST_PATH);
  const manifest = manifestText === undefined ? undefined : parseManifest(JSON.parse(manifestText));
  if (manifestText !== undefined && !manifest) {
    problems.push({ code: 'index_invalid', file: MANIFEST_PATH, message: 'is not a versions manifest' });
  }
  const alias = await read('api/content.json');
  for (const version of manifest?.versions ?? []) {
    const dates = { deprecated: date(version.deprecated_at), sunset: date(version.sunset_at) };
    if (versionState(dates, now) === 'withdrawn') continue;
    const path = `api/${version.version}/content.json`;
    const text = await read(path);
    if (text === undefined) continue;
    const body = JSON.parse(text) as { counts?: { total?: number }; content?: unknown[] };
    const schema = serializers[version.version]?.schema;
    if (!schema) {
      problems.push({
        code: 'index_invalid',
        file: path,
        message: `no schema is registered for ${version.version}`,
      });
      continue;
    }
    const validate = createAjv().compile(schema);
    if (!validate(body)) problems.push(...ajvProblems(validate, { file: path, code: 'index_invalid' }));
    if (body.counts?.total !== body.content?.length) {
      problems.push({
        code: 'index_invalid',
        file: path,
        field: 'counts.total',
        message: 'does not match content',
      });
    }
    if (version.version === manifest?.current && alias !== undefined && alias !== text) {
      problems.push({ code: 'index_invalid', file: 'api/content.json', message: `differs from ${path}` });
    }
  }
  if (problems.length > 0) throw new ContentIndexError(problems);
}

function date(value: string | null): Date | undefined {
  return value ? new Date(value) : undefined;
}
