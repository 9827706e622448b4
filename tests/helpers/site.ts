import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { main } from '../../build/cli.ts';

export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

export const FIXTURE_CONFIG = {
  site: 'https://example.com/',
  images: 'https://images.example.com/',
  name: 'Fixture',
  description: 'A fixture site',
  sections: [{ name: 'Blog', url: '/blog/' }],
  // Given, as a site's own would be: left to their defaults, each is a warning on every build.
  aiPlugin: { logoUrl: 'https://images.example.com/logo.png', contactEmail: 'fixture@example.com' },
};

/** Only v1, current: the lifecycle every fixture site has unless a test writes its own headers.config.ts. */
export const FIXTURE_HEADERS = { versions: { v1: { published: '2025-01-15' } } };

export interface TempSite {
  root: string;
  out: string;
  write(path: string, content: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Runs the CLI in-process from the site root; returns its exit code and what it printed. */
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Same, with an environment of its own (process.env is not read). */
  cliWithEnv(
    env: Record<string, string | undefined>,
    ...args: string[]
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Every file under the output folder with a hash of its bytes. */
  snapshot(): Promise<Record<string, string>>;
  readJson<T = unknown>(path: string): Promise<T>;
  dispose(): Promise<void>;
}

/** A throwaway project: package.json, site.config.ts, headers.config.ts and the given content files. */
export async function tempSite(
  files: Record<string, string>,
  config: Record<string, unknown> = FIXTURE_CONFIG,
): Promise<TempSite> {
  const root = await mkdtemp(join(tmpdir(), 'content-index-'));
  const out = join(root, 'public');
  const write = async (path: string, content: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  };
  await write('package.json', '{ "type": "module" }\n');
  await write('site.config.ts', `export default ${JSON.stringify(config, null, 2)};\n`);
  await write('headers.config.ts', `export default ${JSON.stringify(FIXTURE_HEADERS, null, 2)};\n`);
  for (const [path, content] of Object.entries(files)) await write(path, content);
  const cliWithEnv = (env: Record<string, string | undefined>, ...args: string[]) => runCli(root, env, args);
  return {
    root,
    out,
    write,
    remove: (path) => rm(join(root, path), { force: true }),
    cli: (...args) => cliWithEnv(process.env, ...args),
    cliWithEnv,
    snapshot: () => snapshotDir(out),
    readJson: async (path) => JSON.parse(await readFile(join(out, path), 'utf8')),
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

/** Every file under `dir` with a hash of its bytes; folders named in `skip` are not entered. */
export async function snapshotDir(
  dir: string,
  { skip = [] }: { skip?: readonly string[] } = {},
): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  async function walk(current: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!skip.includes(entry.name)) await walk(path);
      } else
        result[relative(dir, path)] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
    }
  }
  await walk(dir);
  return result;
}

/** Front matter plus a body, as an author would write it. */
export function md(frontMatter: Record<string, unknown> | string, body = 'Texto.\n'): string {
  const yaml =
    typeof frontMatter === 'string'
      ? frontMatter
      : Object.entries(frontMatter)
          .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
          .join('\n');
  return `---\n${yaml}\n---\n${body}`;
}

/** Runs the CLI in-process from `root`; returns its exit code and what it printed. */
export async function runCli(
  root: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) => ({
    write: (s: string) => {
      append(s);
      return true;
    },
  });
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const code = await main(args, { out: sink((s) => (stdout += s)), err: sink((s) => (stderr += s)) }, env);
    return { code, stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}
