import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import { installFunctions } from './functions.ts';
import { PROJECT_ROOT } from './site.ts';

/** Fixed, so cursors and `generated` are the same in every run. */
export const GENERATED = new Date('2026-04-01T12:00:00Z');

/** The D1 binding every test project declares (the configuration's default). */
export const D1_WRANGLER = `
[[d1_databases]]
binding = "CONTENT_INDEX_DB"
database_name = "content-index"
database_id = "00000000-0000-4000-8000-000000000000"
`;

export interface SampleProject {
  /** The project's root: its own functions/, wrangler.toml and `.content-index/`. */
  root: string;
  out: string;
  index: ContentIndexV1;
  /** `content-index d1 import` into a local D1 state folder (for `startProjectPagesDev(..., { persistTo })`). */
  importD1(persistTo: string): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * The sample site (this repository's content and configuration) as a project of its own in a temporary
 * folder, built. Each gets its own `.content-index/` and Functions, so tests that serve it with
 * `wrangler pages dev` never share the data module the Functions bundle (or the repository's).
 */
export async function sampleProject(
  options: { backend?: 'embedded' | 'd1' | 'auto'; plan?: 'free' | 'paid' } = {},
): Promise<SampleProject> {
  const root = await mkdtemp(join(tmpdir(), 'content-index-project-'));
  const mcp = options.backend ? `, mcp: { ...base.mcp, backend: '${options.backend}' }` : '';
  const plan = options.plan ? `, plan: '${options.plan}'` : '';
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(root, 'site.config.ts'),
    `import base from ${JSON.stringify(join(PROJECT_ROOT, 'site.config.ts'))};\nexport default { ...base${mcp}${plan} };\n`,
  );
  await writeFile(
    join(root, 'headers.config.ts'),
    `export { default } from ${JSON.stringify(join(PROJECT_ROOT, 'headers.config.ts'))};\n`,
  );
  await copyFile(join(PROJECT_ROOT, '_headers'), join(root, '_headers'));
  await symlink(join(PROJECT_ROOT, 'content'), join(root, 'content'), 'dir');
  // The sample site publishes its own files from static/ (site.config.ts: static).
  await symlink(join(PROJECT_ROOT, 'static'), join(root, 'static'), 'dir');
  const wrangler = await readFile(join(PROJECT_ROOT, 'wrangler.toml'), 'utf8');
  await writeFile(
    join(root, 'wrangler.toml'),
    options.backend === 'd1' ? `${wrangler}${D1_WRANGLER}` : wrangler,
  );
  await installFunctions(root);
  const out = join(root, 'public');
  await build({ root, out, clock: () => GENERATED });
  const index = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8')) as ContentIndexV1;
  return {
    root,
    out,
    index,
    importD1: (persistTo) => d1Import(root, persistTo),
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

/** `content-index d1 import --persist-to <dir>` in the project, as a user runs it. */
export async function d1Import(root: string, persistTo: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'd1', 'import', '--persist-to', persistTo],
    {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
      timeout: 180_000,
    },
  );
  return stdout;
}
