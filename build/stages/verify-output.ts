import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ajvProblems, createAjv } from '../core/_ajv.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { indexSchema } from '../core/validate-index.ts';

/**
 * Reads back what a build wrote, as a client would, before anything is deployed: the index parses and
 * validates against its published schema, the alias matches its version, and counts agree with content.
 */
export async function verifyOutput(outDir: string, version = 'v1'): Promise<void> {
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
  const versioned = await read(`api/${version}/content.json`);
  const alias = await read('api/content.json');
  if (versioned !== undefined) {
    const body = JSON.parse(versioned) as { counts?: { total?: number }; content?: unknown[] };
    const validate = createAjv().compile(indexSchema(version) ?? {});
    if (!validate(body))
      problems.push(...ajvProblems(validate, { file: `api/${version}/content.json`, code: 'index_invalid' }));
    if (body.counts?.total !== body.content?.length) {
      problems.push({
        code: 'index_invalid',
        file: `api/${version}/content.json`,
        field: 'counts.total',
        message: 'does not match content',
      });
    }
  }
  if (versioned !== undefined && alias !== undefined && alias !== versioned) {
    // With several versions the alias follows the latest, which may not be `version`.
    const latest = JSON.parse(alias) as { versions?: { current?: string } };
    if (latest.versions?.current === version) {
      problems.push({
        code: 'index_invalid',
        file: 'api/content.json',
        message: `differs from api/${version}/content.json`,
      });
    }
  }
  if (problems.length > 0) throw new ContentIndexError(problems);
}
