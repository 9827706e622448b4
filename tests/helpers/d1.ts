import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readD1Manifest, readJoinedImport } from '../../build/runtime/d1-import.ts';
import { D1_WRANGLER } from './project.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT } from './site.ts';

/** A small site on the D1 backend: its configuration and wrangler.toml, for `tempSite`. */
export const D1_SITE = {
  config: { ...FIXTURE_CONFIG, mcp: { backend: 'd1' } },
  files: {
    'wrangler.toml': `name = "d1-site"\npages_build_output_dir = "public"\ncompatibility_date = "2026-04-26"\n${D1_WRANGLER}`,
    'content/posts/primera.es.md': md({
      title: 'Primera entrada sobre redes neuronales',
      date: '2026-01-01',
    }),
    'content/posts/segunda.es.md': md({ title: 'Segunda entrada sobre transformers', date: '2026-01-02' }),
  },
};

export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' };

/** Each statement's rows, of SQL run against a project's local D1 (`wrangler d1 execute --local --json`). */
export async function localD1(root: string, persistTo: string, sql: string): Promise<unknown[][]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules/wrangler/bin/wrangler.js'),
      'd1',
      'execute',
      'content-index',
      '--local',
      '--persist-to',
      persistTo,
      '--json',
      '--command',
      sql,
    ],
    { cwd: root, env: WRANGLER_ENV, timeout: 120_000 },
  );
  return (JSON.parse(stdout.slice(stdout.indexOf('['))) as { results?: unknown[] }[]).map(
    (r) => r.results ?? [],
  );
}

/** The generations a local D1 holds, and which generations still have tables. */
export async function generations(root: string, persistTo: string) {
  const [rows = [], tables = []] = (await localD1(
    root,
    persistTo,
    "SELECT id, state FROM content_index_generations ORDER BY id; SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ci\\_g%' ESCAPE '\\'",
  )) as [{ id: string; state: string }[], { name: string }[]];
  const withTables = [...new Set(tables.map((t) => /^ci_(g[0-9a-f]{12})_/.exec(t.name)?.[1] ?? ''))].sort();
  return { states: Object.fromEntries(rows.map((r) => [r.id, r.state])), withTables };
}

/** The D1 import the last build of `root` wrote, joined as an import runs it (with its generation). */
export async function d1ImportSql(root: string): Promise<string> {
  const manifest = await readD1Manifest(root);
  if (!manifest) throw new Error(`${root}: the last build wrote no D1 import`);
  return readJoinedImport(root, manifest);
}
