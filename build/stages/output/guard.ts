import { execFile } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, parse } from 'node:path';
import type { Problem } from '../../core/errors.ts';
import { PRIVATE_DIR } from './place.ts';
import { within } from './tree.ts';

export interface GuardedPlaces {
  root: string;
  home: string;
  content?: string;
  staticDir?: string;
}

/** Folders whose names say what they hold, wherever they are: a repository's own data, installed packages. */
const TOOL_FOLDERS: Record<string, string> = {
  '.git': "git's own folder (the repository's history)",
  node_modules: 'node_modules, where npm installs packages',
};

/** The Pages Functions' folder at the project root (wrangler compiles every file in it). */
const FUNCTIONS_DIR = 'functions';

/**
 * The build makes the output folder a link to a folder it owns, carrying the files already there into
 * each new generation. Pointed at a folder that holds the project, the home folder, the sources or the
 * tools' own files, that would move them under the git-ignored private folder: refused, with the reason.
 */
export function refusedOutput(out: string, places: GuardedPlaces): Problem | undefined {
  // The last component is not resolved: once published, the output folder is a link the build owns.
  const target = join(canonical(dirname(out)), basename(out));
  const root = canonical(places.root);
  const shown = within(root, target) || target;
  const refuse = (message: string, hint?: string): Problem => ({
    code: 'output_refused',
    file: shown,
    field: 'out',
    message: `${message}; the build replaces the output folder as a whole and cannot use it`,
    hint: hint ?? 'choose a folder of its own for the output, such as --out public (the default)',
  });
  if (parse(target).root === target) return refuse('is the root of the file system');
  const checks: [string | undefined, string, string, string][] = [
    [places.root, 'is the project root', 'contains the project', ''],
    [places.home, 'is your home folder', 'contains your home folder', ''],
    [places.content, 'is the content folder', 'contains the content folder', 'is inside the content folder'],
    [places.staticDir, 'is the static folder', 'contains the static folder', 'is inside the static folder'],
    [
      join(places.root, FUNCTIONS_DIR),
      `is ${FUNCTIONS_DIR}/, the Pages Functions' folder`,
      `contains ${FUNCTIONS_DIR}/, the Pages Functions' folder`,
      `is inside ${FUNCTIONS_DIR}/, the Pages Functions' folder`,
    ],
    [
      join(places.root, PRIVATE_DIR),
      `is ${PRIVATE_DIR}/, the tool's private folder`,
      `contains ${PRIVATE_DIR}/, the tool's private folder`,
      `is inside ${PRIVATE_DIR}/, the tool's private folder`,
    ],
  ];
  const guarded = checks.flatMap(([place, same, contains, inside]) => {
    if (place === undefined) return [];
    const resolved = canonical(place);
    // Content kept at the project root (content.dir '.'): every output is inside it and never read as content.
    if (place === places.content && within(resolved, root) !== undefined) return [];
    return [{ resolved, same, contains, inside }];
  });
  // The place it is, before any place it holds (a home folder holds the project, and /tmp may hold both).
  for (const { resolved, same } of guarded) if (within(target, resolved) === '') return refuse(same);
  for (const { resolved, contains, inside } of guarded) {
    const below = within(target, resolved);
    if (below !== undefined) return refuse(contains);
    // Inside the home folder is where projects live; inside the project is where outputs live.
    if (inside && within(resolved, target) !== undefined) return refuse(inside);
  }
  // Inside the project only its own path is looked at: where the project itself lives is not the build's business.
  const parts = (within(root, target) ?? target).split(/[\\/]/);
  for (const [i, part] of parts.entries()) {
    const what = Object.hasOwn(TOOL_FOLDERS, part) ? TOOL_FOLDERS[part] : undefined;
    if (what) return refuse(`is ${i === parts.length - 1 ? '' : 'inside '}${what}`);
  }
  return undefined;
}

/**
 * An existing real folder the build is about to turn into a link, whose files would move into the
 * git-ignored private folder: a site generator's own folder holding files, or files git tracks there
 * (git would see them deleted). Asks git in the folder itself, so a submodule or another repository
 * answers for its own files; no git, or no repository there: nothing to say of tracked files.
 */
export async function existingFolderProblem(out: string, root: string): Promise<Problem | undefined> {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(out, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (!stats?.isDirectory()) return undefined;
  const target = join(canonical(dirname(out)), basename(out));
  const shown = within(canonical(root), target) || target;
  // Outside git too: a site generator's own folder (templates, assets) is never an output folder.
  const generator = Object.hasOwn(SOURCE_FOLDERS, shown) ? SOURCE_FOLDERS[shown] : undefined;
  if (generator && (await readdir(out).catch(() => [])).length > 0) {
    return {
      code: 'output_refused',
      file: shown,
      field: 'out',
      message: `is ${generator}, and holds files; the build would make ${shown} a link into the git-ignored ${PRIVATE_DIR}/, moving them there`,
      hint: 'choose the folder the site generator writes (public/ for Hugo, dist/ for Astro) or a new folder for --out',
    };
  }
  const tracked = await gitTrackedFiles(out);
  if (tracked.length === 0) return undefined;
  const named = tracked.slice(0, 3).map((path) => `${shown}/${path}`);
  const more =
    tracked.length > 3 ? ` and ${tracked.length - 3}${tracked.length >= MAX_LISTED ? '+' : ''} more` : '';
  return {
    code: 'output_refused',
    file: shown,
    field: 'out',
    message: `holds files tracked by git (${named.join(', ')}${more}); the build would make ${shown} a link into the git-ignored ${PRIVATE_DIR}/, moving them there, and git would see them deleted`,
    hint: `choose another output folder (--out), or, if these files are build output that does not belong in git: git rm -r --cached ${shown}, add /${shown} to .gitignore, and build again`,
  };
}

/** Top-level folders Hugo and Astro read their site from (content/ and static/ are guarded by the layout). */
const SOURCE_FOLDERS: Record<string, string> = {
  archetypes: "Hugo's archetypes folder",
  assets: "Hugo's assets folder",
  config: "Hugo's configuration folder",
  data: "Hugo's data folder",
  i18n: "Hugo's translations folder",
  layouts: "Hugo's templates folder",
  static: "Hugo's static files folder",
  themes: "Hugo's themes folder",
  resources: "Hugo's generated resources folder",
  src: "the site's source folder (Astro's src/)",
};

/** Enough names to show a few and say "and N more". */
const MAX_LISTED = 1000;

function gitTrackedFiles(dir: string): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['ls-files', '-z', '--', '.'],
      { cwd: dir, env: gitEnv(), timeout: 10_000, windowsHide: true, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        // Not a repository (128), no git installed: nothing is tracked here as far as anyone can tell.
        if (error && (error as { code?: unknown }).code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return resolve([]);
        resolve(stdout.split('\0').filter(Boolean).slice(0, MAX_LISTED).sort());
      },
    );
  });
}

/** Without the variables that point git at another repository (set inside a git hook, for one). */
function gitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR']) delete env[name];
  return env;
}

/** The path with links resolved in the part that exists (`/tmp` and `/private/tmp` are one folder). */
function canonical(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...[...rest].reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}
