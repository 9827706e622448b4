import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import picomatch from 'picomatch';
import { within } from '../stages/output/tree.ts';

/** What `dev` watches, from the configuration (re-read whenever it changes). */
export interface WatchPlan {
  /** Absolute. */
  contentDir: string;
  /** The content types' globs, relative to `contentDir`. */
  globs: readonly string[];
  /** Absolute; the configuration's `static`, when set. */
  staticDir?: string;
  /** Absolute: site.config.ts, headers.config.ts, the root _headers and _redirects. */
  files: readonly string[];
}

export type SourceEvent = 'add' | 'change' | 'unlink';

/** Long enough for chokidar to have read and watched a new folder tree. */
const RESCAN_MS = 100;

export interface SourceWatcher {
  /** Resolves when the first scan is done: from then on no change is missed. */
  ready: Promise<void>;
  update(plan: WatchPlan): void;
  /** A content or static folder seen back by other means: watched (again) and reported as a change. */
  returned(path: string): void;
  close(): Promise<void>;
}

/**
 * Watches the sources of a build with chokidar: one watch per folder, so a file saved by renaming a
 * new file over it (sed -i, vim, many editors) stays watched, and folders that come and go are picked
 * up or dropped. Reports only files a build reads (content files matching the globs, the configuration
 * files, the static folder's files), so an editor's temporary file never triggers or names a rebuild.
 * File-system races (a folder removed while it is being read) are chokidar's to absorb; anything else it
 * reports goes to `onError`, never up the stack.
 */
export function watchSources(
  initial: WatchPlan,
  options: {
    /** Never watched (absolute): the output folder, the private folder. */
    ignore: readonly string[];
    /** Never watched either: paths starting with these (the build's transient names beside the output). */
    ignorePrefixes?: readonly string[];
    onChange: (path: string, event: SourceEvent) => void;
    onError: (error: Error) => void;
  },
): SourceWatcher {
  let plan = initial;
  // Without regard to case, as the build reads them (`nota.ES.MD`).
  let isContent = picomatch([...plan.globs], { nocase: true });
  const ignored = (path: string): boolean => {
    if (options.ignore.some((dir) => within(dir, path) !== undefined)) return true;
    if (options.ignorePrefixes?.some((prefix) => path.startsWith(prefix))) return true;
    const name = basename(path);
    return name === 'node_modules' || name === '.git' || name === '.wrangler';
  };
  const relevant = (path: string): boolean => {
    if (plan.files.includes(path)) return true;
    if (plan.staticDir && within(plan.staticDir, path)) return true;
    const inside = within(plan.contentDir, path);
    return inside !== undefined && inside !== '' && isContent(inside);
  };
  const trees = (p: WatchPlan) => [p.contentDir, ...(p.staticDir ? [p.staticDir] : [])];
  // Single files are watched through their folders (one level): chokidar misses a file that does not
  // exist yet when it is watched by its own path, and the root _redirects often does not.
  const folders = (p: WatchPlan) => [...new Set(p.files.map((f) => dirname(f)))];
  const common = { ignoreInitial: true, followSymlinks: false, ignored } as const;
  const treeWatcher: FSWatcher = watch(trees(plan), common);
  const fileWatcher: FSWatcher = watch(folders(plan), { ...common, depth: 0 });
  for (const watcher of [treeWatcher, fileWatcher]) {
    for (const event of ['add', 'change', 'unlink'] as const) {
      watcher.on(event, (path: string) => {
        if (relevant(path)) options.onChange(path, event);
      });
    }
    watcher.on('error', (error: unknown) =>
      options.onError(error instanceof Error ? error : new Error(String(error))),
    );
  }
  // chokidar reads a new folder before it watches it: a file written in between is never reported. So a
  // new folder is read again a moment later, and what it holds is reported (a rebuild finds it anyway;
  // this makes sure one happens). A deleted folder is reported too: its files may never have been known.
  treeWatcher.on('addDir', (path: string) => {
    setTimeout(() => void rescan(path), RESCAN_MS).unref();
  });
  treeWatcher.on('unlinkDir', (path: string) => {
    if (within(plan.contentDir, path) || (plan.staticDir && within(plan.staticDir, path)))
      options.onChange(path, 'unlink');
  });
  const rescan = async (dir: string) => {
    let names: string[];
    try {
      names = await readdir(dir, { recursive: true });
    } catch {
      return; // gone again
    }
    for (const name of names) {
      const path = join(dir, name);
      if (!ignored(path) && relevant(path)) options.onChange(path, 'add');
    }
  };
  // A content or static folder created after dev started (or moved away and back) is watched from then
  // on, and is itself a change: its files may be the very ones a build already read (moved back as they
  // were), whose own events tell nothing new, yet the last build ran without the folder.
  const returned = (path: string) => {
    if (!trees(plan).includes(path)) return;
    treeWatcher.add(path);
    options.onChange(path, 'add');
  };
  fileWatcher.on('addDir', returned);
  const ready = Promise.all(
    [treeWatcher, fileWatcher].map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))),
  ).then(() => undefined);
  const swap = (watcher: FSWatcher, before: string[], after: string[]) => {
    const gone = before.filter((t) => !after.includes(t));
    const added = after.filter((t) => !before.includes(t));
    if (gone.length > 0) watcher.unwatch(gone);
    if (added.length > 0) watcher.add(added);
  };
  return {
    ready,
    update(next) {
      const previous = plan;
      plan = next;
      isContent = picomatch([...plan.globs], { nocase: true });
      swap(treeWatcher, trees(previous), trees(plan));
      swap(fileWatcher, folders(previous), folders(plan));
    },
    returned,
    close: async () => {
      await Promise.all([treeWatcher.close(), fileWatcher.close()]);
    },
  };
}

/** A path as messages show it: relative to the project root, POSIX separators. */
export function shownPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || join('.');
}
