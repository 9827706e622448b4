import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './site.ts';

const exec = promisify(execFile);

export interface Checkout {
  root: string;
  /** Runs a program in the copy; never throws: the exit code and what it printed. */
  run(
    program: string,
    args: readonly string[],
    env?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
}

/**
 * A copy of this repository as a clone has it (every file git lists: tracked, and new ones not ignored),
 * without dist/ and with its own node_modules/ whose entries link to this one's: installed packages are
 * shared, caches (node_modules/.cache: the dist/ stamp, compiled configurations) are the copy's own.
 * With `git`, the copy is a repository of its own with everything committed.
 */
export async function copyCheckout(options: { git?: boolean } = {}): Promise<Checkout> {
  const base = await mkdtemp(join(tmpdir(), 'content-index-checkout-'));
  const root = join(base, 'content-index');
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const files = stdout.split('\0').filter(Boolean);
  await Promise.all(
    files.map(async (file) => {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await copyFile(join(PROJECT_ROOT, file), join(root, file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // deleted in the working tree, not yet in git
      });
    }),
  );
  await mkdir(join(root, 'node_modules'), { recursive: true });
  for (const name of await readdir(join(PROJECT_ROOT, 'node_modules'))) {
    if (name === '.cache') continue;
    await symlink(join(PROJECT_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
  // As a fresh shell has it: npm's variables of the `npx vitest` that runs the tests would make npm in
  // the copy take this repository for its project (npm_config_local_prefix). npm's cache is the copy's
  // own: `npx content-index` installs the project it runs in there, a link to a folder soon deleted.
  const shell = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$|NODE_ENV$|VITEST)/.test(name)),
    ),
    npm_config_cache: join(base, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  const run: Checkout['run'] = async (program, args, env = {}) => {
    try {
      const result = await exec(program, [...args], {
        cwd: root,
        env: { ...shell, NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false', ...env },
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, stdout: result.stdout, stderr: result.stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return {
        code: typeof failed.code === 'number' ? failed.code : -1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? String(error),
      };
    }
  };
  if (options.git) {
    const git = (...args: string[]) => exec('git', args, { cwd: root });
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.email', 'author@example.com');
    await git('config', 'user.name', 'Author');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'the checkout');
  }
  return { root, run, dispose: () => rm(base, { recursive: true, force: true }) };
}
