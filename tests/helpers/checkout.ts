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
  const root = await mkdtemp(join(tmpdir(), 'content-index-checkout-'));
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
  await mkdir(join(root, 'node_modules'));
  for (const name of await readdir(join(PROJECT_ROOT, 'node_modules'))) {
    if (name === '.cache') continue;
    await symlink(join(PROJECT_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  }
  const run: Checkout['run'] = async (program, args, env = {}) => {
    try {
      const result = await exec(program, [...args], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1', WRANGLER_SEND_METRICS: 'false', ...env },
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
  return { root, run, dispose: () => rm(root, { recursive: true, force: true }) };
}
