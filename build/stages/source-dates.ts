import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Env } from '../core/config/site-config.ts';
import { parseSourceDateEpoch, type SourceDates } from '../core/content/generated.ts';

export interface SourceDatesOptions {
  root: string;
  /** Paths relative to `root` whose last commit counts: the content folder and the configuration files. */
  paths: readonly string[];
  env: Env;
}

/**
 * What `generated` is derived from besides the content (build/core/content/generated.ts): `SOURCE_DATE_EPOCH`
 * from the environment, and the time of the last commit that touched `paths` when `root` is in a git
 * checkout. No git, no repository, or nothing committed yet: no commit time, and no error, since the
 * build does not need one. Throws ContentIndexError at once for a malformed `SOURCE_DATE_EPOCH`.
 */
export function readSourceDates(options: SourceDatesOptions): Promise<SourceDates> {
  // Synchronous on purpose: a malformed value fails the build before anything else is read.
  const epoch = parseSourceDateEpoch(options.env.SOURCE_DATE_EPOCH);
  return lastCommitTime(options.root, options.paths).then((commit) => ({
    ...(epoch && { sourceDateEpoch: epoch }),
    ...(commit && { lastCommit: commit }),
  }));
}

function lastCommitTime(root: string, paths: readonly string[]): Promise<Date | undefined> {
  // Outside a git checkout there is no commit to ask git for (and starting it is a process a build
  // need not start).
  if (process.env.GIT_DIR === undefined && !insideGit(root)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    // The committer date: when the change landed on the branch being built. `--` keeps a path from
    // being read as a revision. In a shallow clone the oldest fetched commit stands for all history.
    execFile(
      'git',
      ['log', '-1', '--format=%ct', '--', ...paths],
      { cwd: root, timeout: 10_000, windowsHide: true },
      (error, stdout) => {
        const seconds = error ? Number.NaN : Number(stdout.trim() || Number.NaN);
        resolve(Number.isSafeInteger(seconds) && seconds > 0 ? new Date(seconds * 1000) : undefined);
      },
    );
  });
}

/** Whether `dir` or a folder above it holds `.git` (a repository's folder, or a worktree's file). */
function insideGit(dir: string): boolean {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}
