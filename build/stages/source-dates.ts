import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Env } from '../core/config/site-config.ts';
import { parseSourceDateEpoch, type SourceDates } from '../core/content/generated.ts';
import { statStamp } from './parse-cache.ts';

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
  // GIT_DIR as git, started in `root`, reads it.
  const gitDir = process.env.GIT_DIR === undefined ? findGitDir(root) : resolve(root, process.env.GIT_DIR);
  if (gitDir === undefined) return Promise.resolve(undefined);
  // Asked again only when the repository's HEAD may have moved: dev builds at every save, and git took
  // some 50 ms to answer in a repository of a few hundred commits, which the save then waited for.
  const key = JSON.stringify([root, paths, headState(gitDir)]);
  if (asked?.key === key) return asked.time;
  const time = askGit(root, paths);
  asked = { key, time };
  // No answer (no commit yet, git missing or too slow): asked again next time.
  void time.then((answer) => {
    if (answer === undefined && asked?.time === time) asked = undefined;
  });
  return time;
}

/** The last answer, and what the repository's HEAD was then. */
let asked: { key: string; time: Promise<Date | undefined> } | undefined;

function askGit(root: string, paths: readonly string[]): Promise<Date | undefined> {
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

/**
 * The git folder of the checkout `dir` is in: the `.git` folder of `dir` or of a folder above it, or the
 * one a `.git` file names (a worktree, a submodule); undefined outside git.
 */
function findGitDir(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(dotGit, { throwIfNoEntry: false });
    } catch {
      stats = undefined; // a folder it may not look into: as if there were none
    }
    if (stats?.isDirectory()) return dotGit;
    if (stats) {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '')?.[1];
      return named === undefined ? dotGit : resolve(at, named);
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * What changes when HEAD moves (a commit, a checkout, a reset, a pull): the stamps of HEAD, its log,
 * the branch it names (loose or packed) and the shallow clone's boundary. A worktree keeps its HEAD
 * apart and its branches in the common folder.
 */
function headState(gitDir: string): string {
  const common = resolve(gitDir, readText(join(gitDir, 'commondir'))?.trim() || '.');
  const branch = /^ref:\s*(\S+)/.exec(readText(join(gitDir, 'HEAD')) ?? '')?.[1];
  const files = [
    join(gitDir, 'HEAD'),
    join(gitDir, 'logs', 'HEAD'),
    join(common, 'packed-refs'),
    join(common, 'shallow'),
    ...(branch ? [join(common, branch)] : []),
  ];
  return JSON.stringify(files.map((file) => statStamp(file) ?? null));
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
