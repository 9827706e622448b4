import { type Dirent, type FSWatcher, watch as watchFolder } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { type AsyncSubscription, subscribe } from '@parcel/watcher';
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

/** Long enough for the watcher to have watched a new folder tree before it is read. */
const RESCAN_MS = 100;

/** Names never watched, wherever they are. */
const IGNORED_NAMES = ['node_modules', '.git', '.wrangler'];

export interface SourceWatcher {
  /** Resolves when watching has begun: from then on no change is missed. */
  ready: Promise<void>;
  update(plan: WatchPlan): void;
  /** A content or static folder seen back by other means: watched (again) and reported as a change. */
  returned(path: string): void;
  close(): Promise<void>;
}

/** One watched tree (the content or the static folder) and what is known to be in it. */
interface Tree {
  root: string;
  subscription: Promise<AsyncSubscription | undefined>;
  /** Its folders: a deleted path is told a folder (its files go with it, unreported) by this. */
  dirs: Set<string>;
  /** Its files a build reads: a file created where one was is a save by rename, a change of it. */
  files: Set<string>;
}

/**
 * Watches the sources of a build: the content and static folders with @parcel/watcher (the system's
 * recursive watch: inotify, FSEvents, ReadDirectoryChangesW), the folders of the configuration files
 * with Node's `fs.watch`, one level. A save costs one event, whatever the size of its folder: a watcher
 * that re-reads the folder of each event (chokidar) did an lstat of its 15,600 files on every save of
 * a 10,000-item site (about a second of CPU). Reports only files a build reads (content files matching
 * the globs, the configuration files, the static folder's files), so an editor's temporary file never
 * triggers or names a rebuild; a file saved by renaming a new file over it (sed -i, vim, many editors)
 * is a change, new folders are read, removed ones reported. Watch errors go to `onError`, never up the
 * stack.
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
  let closed = false;
  // Without regard to case, as the build reads them (`nota.ES.MD`).
  let isContent = picomatch([...plan.globs], { nocase: true });
  /** A path of the tree at `root` that is never watched. */
  const ignored = (root: string, path: string): boolean => {
    if (options.ignore.some((dir) => within(dir, path) !== undefined)) return true;
    if (options.ignorePrefixes?.some((prefix) => path.startsWith(prefix))) return true;
    return relative(root, path)
      .split(sep)
      .some((name) => IGNORED_NAMES.includes(name));
  };
  const relevant = (path: string): boolean => {
    if (plan.files.includes(path)) return true;
    if (plan.staticDir && within(plan.staticDir, path)) return true;
    const inside = within(plan.contentDir, path);
    return inside !== undefined && inside !== '' && isContent(inside);
  };
  const error = (cause: unknown) => {
    if (!closed) options.onError(cause instanceof Error ? cause : new Error(String(cause)));
  };
  const report = (path: string, event: SourceEvent) => {
    if (!closed) options.onChange(path, event);
  };

  const trees = new Map<string, Tree>();
  const treeRoots = (p: WatchPlan) => [p.contentDir, ...(p.staticDir ? [p.staticDir] : [])];
  /** Reads a folder of a tree: its folders and its files a build reads are known from then on. */
  const learn = async (tree: Tree, dir: string, found?: (file: string) => void) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { recursive: true, withFileTypes: true });
    } catch {
      return; // gone again, or not there yet
    }
    tree.dirs.add(dir);
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      if (ignored(tree.root, path)) continue;
      if (entry.isDirectory()) tree.dirs.add(path);
      else if (relevant(path) && !tree.files.has(path)) {
        tree.files.add(path);
        found?.(path);
      }
    }
  };
  const onTreeEvents = (tree: Tree, events: readonly { path: string; type: string }[]) => {
    for (const { path, type } of events) {
      if (ignored(tree.root, path)) continue;
      if (type === 'delete') {
        tree.files.delete(path);
        if (tree.dirs.delete(path)) {
          // A folder removed or moved away: only the folder is told, never the files it held.
          for (const known of [...tree.dirs, ...tree.files])
            if (within(path, known) !== undefined) tree.dirs.delete(known) || tree.files.delete(known);
          report(path, 'unlink');
        } else if (relevant(path)) report(path, 'unlink');
      } else if (relevant(path)) {
        report(path, type === 'update' || tree.files.has(path) ? 'change' : 'add');
        tree.files.add(path);
      } else if (type === 'create') {
        // A new folder (made, or moved in) is told alone: what it holds is read once it is watched.
        void stat(path).then(
          (found) => {
            if (found.isDirectory())
              setTimeout(() => void learn(tree, path, (file) => report(file, 'add')), RESCAN_MS).unref();
          },
          () => undefined,
        );
      }
    }
  };
  /** `before`: the tree as it was known before it went away; a file it did not hold is told as new. */
  const watchTree = (root: string, before?: Tree): Tree => {
    const tree: Tree = { root, subscription: Promise.resolve(undefined), dirs: new Set(), files: new Set() };
    tree.subscription = subscribe(
      root,
      (cause, events) => {
        if (cause) error(cause);
        else if (!closed && trees.get(root) === tree) onTreeEvents(tree, events);
      },
      { ignore: [...IGNORED_NAMES.map((name) => `**/${name}`), ...options.ignore] },
    ).then(
      async (subscription) => {
        const told = before && ((file: string) => !before.files.has(file) && report(file, 'add'));
        await learn(tree, root, told);
        return subscription;
      },
      () => undefined, // not there (yet): dev looks for it, and `returned` watches it
    );
    return tree;
  };
  const unwatchTree = (root: string) => {
    const tree = trees.get(root);
    trees.delete(root);
    void tree?.subscription.then((s) => s?.unsubscribe()).catch(() => undefined);
  };

  // Single files are watched through their folders (one level): a file that does not exist yet (the root
  // _redirects often does not) or is replaced by a rename keeps being seen.
  const folders = new Map<string, FSWatcher>();
  const fileFolders = (p: WatchPlan) => [...new Set(p.files.map((f) => dirname(f)))];
  const watchFiles = (folder: string) => {
    try {
      const watcher = watchFolder(folder, (_type, name) => {
        if (closed) return;
        const named = name === null ? undefined : join(folder, name.toString());
        for (const file of plan.files)
          if (dirname(file) === folder && (named === undefined || named === file)) report(file, 'change');
        // A content or static folder made (or moved back) after dev started is watched from then on.
        if (named !== undefined && treeRoots(plan).includes(named))
          void stat(named).then(
            (found) => found.isDirectory() && returned(named),
            () => undefined,
          );
      });
      watcher.on('error', error);
      folders.set(folder, watcher);
    } catch (cause) {
      error(cause);
    }
  };

  /**
   * A content or static folder created after dev started (or moved away and back) is watched from then
   * on, and is itself a change: its files may be the very ones a build already read (moved back as they
   * were), whose own events tell nothing new, yet the last build ran without the folder.
   */
  const returned = (path: string) => {
    if (closed || !treeRoots(plan).includes(path)) return;
    const before = trees.get(path);
    unwatchTree(path);
    trees.set(path, watchTree(path, before));
    report(path, 'add');
  };

  for (const root of treeRoots(plan)) trees.set(root, watchTree(root));
  for (const folder of fileFolders(plan)) watchFiles(folder);
  const ready = Promise.all([...trees.values()].map((tree) => tree.subscription)).then(() => undefined);

  return {
    ready,
    update(next) {
      const previous = plan;
      plan = next;
      isContent = picomatch([...plan.globs], { nocase: true });
      for (const root of treeRoots(previous)) if (!treeRoots(plan).includes(root)) unwatchTree(root);
      for (const root of treeRoots(plan)) if (!trees.has(root)) trees.set(root, watchTree(root));
      for (const [folder, watcher] of folders) {
        if (fileFolders(plan).includes(folder)) continue;
        watcher.close();
        folders.delete(folder);
      }
      for (const folder of fileFolders(plan)) if (!folders.has(folder)) watchFiles(folder);
    },
    returned,
    close: async () => {
      closed = true;
      for (const watcher of folders.values()) watcher.close();
      folders.clear();
      const subscriptions = [...trees.values()].map((tree) => tree.subscription);
      trees.clear();
      await Promise.all(subscriptions.map((s) => s.then((sub) => sub?.unsubscribe()).catch(() => undefined)));
    },
  };
}

/** A path as messages show it: relative to the project root, POSIX separators. */
export function shownPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || join('.');
}
