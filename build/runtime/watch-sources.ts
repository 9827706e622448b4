import { type Dirent, type FSWatcher, watch as watchFolder } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { type AsyncSubscription, type BackendType, subscribe } from '@parcel/watcher';
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

/** How often a content or static folder that is not there is looked for. */
const LOOK_FOR_MS = 250;

/** Files saved lately that are also watched directly (hot), the folders they are in watched one level. */
const HOT_FILES = 8;

/** Names never watched, wherever they are. */
const IGNORED_NAMES = ['node_modules', '.git', '.wrangler'];

export interface SourceWatcher {
  /** Resolves when watching has begun: from then on no change is missed. */
  ready: Promise<void>;
  update(plan: WatchPlan): void;
  /**
   * A content or static folder a build found missing (dev): when it is not there, it is looked for, and
   * once back watched again and reported as a change whatever it holds (a folder moved away and back
   * quickly may give the watcher no event at all).
   */
  awaitReturn(path: string): void;
  close(): Promise<void>;
}

/** One watched tree (the content or the static folder) and what is known to be in it. */
interface Tree {
  root: string;
  /** The root folder's inode when it was watched: a folder made in its place is another one. */
  ino?: number;
  subscription: Promise<AsyncSubscription | undefined>;
  /** The root was seen going, or was not there: it is looked for, and watched again when it is back. */
  dead: boolean;
  /** Each known folder's entries (its folders, and its files a build reads): a deleted path is a folder by this. */
  children: Map<string, Set<string>>;
  /** Its files a build reads: a file created where one was is a save by rename, a change of it. */
  files: Set<string>;
}

/**
 * Each platform's own recursive watch. Named, because @parcel/watcher would otherwise use watchman
 * wherever it happens to be installed, which reports otherwise.
 */
const BACKENDS: Partial<Record<NodeJS.Platform, BackendType>> = {
  linux: 'inotify',
  darwin: 'fs-events',
  win32: 'windows',
};

/**
 * Watches the sources of a build: the content and static folders with @parcel/watcher (the system's
 * recursive watch: inotify, FSEvents, ReadDirectoryChangesW), the folders of the configuration files
 * with Node's `fs.watch`, one level. A save costs one event, whatever the size of its folder: a watcher
 * that re-reads the folder of each event (chokidar) did an lstat of its 15,600 files on every save of
 * a 10,000-item site (about a second of CPU). Reports only files a build reads (content files matching
 * the globs, the configuration files, the static folder's files), so an editor's temporary file never
 * triggers or names a rebuild; a file saved by renaming a new file over it (sed -i, vim, many editors)
 * is a change, new folders are read, removed ones reported, a content or static folder that is not
 * there is watched once it is (told as added); symbolic links are not followed. The files saved last
 * are watched directly too, so their next saves are told at once (a save can then be told twice). Watch
 * errors go to `onError`, never up the stack.
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
    /** Tests give a recursive watch of their own (one that tells nothing, say). */
    subscribe?: typeof subscribe;
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

  // @parcel/watcher holds every event for 50 ms when it told one within the last 500 ms (its Debounce):
  // an author saving a file again within half a second waited that long before the rebuild began, a
  // third of a 1,000-item save's time. The files saved last are watched through their folders with Node's
  // fs.watch as well, which tells at once; the same save then comes twice, and dev drops the second
  // (the file is as the rebuild read it).
  const hotFiles = new Set<string>();
  const hotFolders = new Map<string, FSWatcher>();
  const cool = (folder: string) => {
    hotFolders.get(folder)?.close();
    hotFolders.delete(folder);
  };
  const coolAll = () => {
    for (const folder of [...hotFolders.keys()]) cool(folder);
    hotFiles.clear();
  };
  const heat = (file: string) => {
    hotFiles.delete(file);
    hotFiles.add(file);
    const folder = dirname(file);
    if (!hotFolders.has(folder)) {
      try {
        const watcher = watchFolder(folder, (_type, name) => {
          if (closed || name === null) return;
          const named = join(folder, name.toString());
          if (hotFiles.has(named)) options.onChange(named, 'change');
        });
        // The folder removed: its files' events come from the recursive watch, as before they were hot.
        watcher.on('error', () => cool(folder));
        hotFolders.set(folder, watcher);
      } catch {
        return; // gone already: the recursive watch tells what became of it
      }
    }
    for (const oldest of hotFiles) {
      if (hotFiles.size <= HOT_FILES) break;
      hotFiles.delete(oldest);
      if (![...hotFiles].some((other) => dirname(other) === dirname(oldest))) cool(dirname(oldest));
    }
  };

  const trees = new Map<string, Tree>();
  const treeRoots = (p: WatchPlan) => [p.contentDir, ...(p.staticDir ? [p.staticDir] : [])];
  const entriesOf = (tree: Tree, dir: string): Set<string> => {
    let entries = tree.children.get(dir);
    if (!entries) {
      entries = new Set();
      tree.children.set(dir, entries);
    }
    return entries;
  };
  const known = (tree: Tree, path: string) => entriesOf(tree, dirname(path)).add(path);
  /** A folder and everything known below it, forgotten: in the size of what it held. */
  const forget = (tree: Tree, path: string) => {
    tree.files.delete(path);
    tree.children.get(dirname(path))?.delete(path);
    const entries = tree.children.get(path);
    tree.children.delete(path);
    for (const entry of entries ?? []) forget(tree, entry);
  };
  /** Reads a folder of a tree: its folders and its files a build reads are known from then on. */
  const learn = async (tree: Tree, dir: string, found?: (file: string) => void) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { recursive: true, withFileTypes: true });
    } catch {
      return; // gone again, or not there yet
    }
    entriesOf(tree, dir);
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      if (ignored(tree.root, path)) continue;
      // A Dirent tells a link as a link: links are neither followed nor read through.
      if (entry.isDirectory()) {
        entriesOf(tree, path);
        known(tree, path);
      } else if (relevant(path) && !tree.files.has(path)) {
        tree.files.add(path);
        known(tree, path);
        found?.(path);
      }
    }
  };
  const onTreeEvents = (tree: Tree, events: readonly { path: string; type: string }[]) => {
    for (const { path, type } of events) {
      if (ignored(tree.root, path)) continue;
      const folder = tree.children.has(path);
      if (type === 'delete') {
        if (path === tree.root) {
          tree.dead = true;
          lookFor(path);
        }
        forget(tree, path);
        // A folder removed or moved away is told alone, never the files it held: it is reported.
        if (folder || relevant(path)) report(path, 'unlink');
      } else if (folder) {
        // A known folder changed as a whole (moved away and back between two looks): what it holds now
        // is unknown, so it is told, and a build looks at everything.
        // The root itself: dev tells its return (revive).
        if (type === 'update' && path !== tree.root) report(path, 'change');
      } else if (relevant(path)) {
        const event = type === 'update' || tree.files.has(path) ? 'change' : 'add';
        // A save (in place or by rename), not a new file: a tree checked out would heat thousands.
        if (event === 'change') heat(path);
        report(path, event);
        tree.files.add(path);
        known(tree, path);
      } else if (type === 'create') {
        // A new folder (made, or moved in) is told by its files, read once it is watched.
        void lstat(path).then(
          (found) => {
            if (found.isDirectory())
              setTimeout(() => void learn(tree, path, (file) => report(file, 'add')), RESCAN_MS).unref();
          },
          () => undefined,
        );
      }
    }
  };
  /**
   * `before`: the tree as it was known before it went away; a file it did not hold is told as new.
   * `after`: the previous watch of the folder, let go: @parcel/watcher shares one native watch per
   * folder, and a subscription made while the old one is still there would share its dead watch.
   */
  const watchTree = (root: string, before?: Tree, after: Promise<unknown> = Promise.resolve()): Tree => {
    const tree: Tree = {
      root,
      subscription: Promise.resolve(undefined),
      dead: false,
      children: new Map(),
      files: new Set(),
    };
    tree.subscription = (async () => {
      await after;
      if (closed) return undefined;
      let subscription: AsyncSubscription;
      try {
        subscription = await (options.subscribe ?? subscribe)(
          root,
          (cause, events) => {
            if (cause) error(cause);
            else if (!closed && trees.get(root) === tree) onTreeEvents(tree, events);
          },
          {
            ignore: [...IGNORED_NAMES.map((name) => `**/${name}`), ...options.ignore],
            ...(BACKENDS[process.platform] && { backend: BACKENDS[process.platform] }),
          },
        );
      } catch (cause) {
        tree.dead = true;
        // Not there (yet): looked for, and watched once it is there. Anything else is said.
        if (
          await lstat(root).then(
            () => true,
            () => false,
          )
        )
          error(cause);
        else lookFor(root);
        return undefined;
      }
      if (closed) {
        // close() let go of every watch while this one was being made.
        await subscription.unsubscribe().catch(() => undefined);
        return undefined;
      }
      tree.ino = (await lstat(root).catch(() => undefined))?.ino;
      await learn(tree, root, before && ((file) => !before.files.has(file) && report(file, 'add')));
      return subscription;
    })();
    return tree;
  };
  /** Stops watching a tree; resolves once its watch is let go. */
  const unwatchTree = (root: string): Promise<unknown> => {
    const tree = trees.get(root);
    trees.delete(root);
    return tree ? tree.subscription.then((s) => s?.unsubscribe()).catch(() => undefined) : Promise.resolve();
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
        if (named !== undefined && treeRoots(plan).includes(named)) void revive(named, false);
      });
      watcher.on('error', error);
      folders.set(folder, watcher);
    } catch (cause) {
      error(cause);
    }
  };

  /**
   * A content or static folder back (made after dev started, or moved away and back) is watched again
   * when it is not the folder being watched, and is itself a change: its files may be the very ones a
   * build already read (moved back as they were), whose own events tell nothing new, yet the last build
   * ran without the folder. `told`: dev saw it back, and rebuilds for it whatever it is; otherwise an
   * event of the folder's own (a touch, a chmod) tells nothing when it is the folder being watched.
   */
  let reviving = Promise.resolve();
  const revive = (path: string, told: boolean): Promise<void> => {
    reviving = reviving.then(async () => {
      if (closed || !treeRoots(plan).includes(path)) return;
      const found = await lstat(path).catch(() => undefined);
      const tree = trees.get(path);
      if (!found?.isDirectory()) {
        // Gone again before it could be watched: looked for again.
        if (!closed && (!tree || tree.dead)) lookFor(path);
        return;
      }
      const watching =
        tree && (await tree.subscription) !== undefined && !tree.dead && tree.ino === found.ino;
      if (closed) return;
      if (!watching) trees.set(path, watchTree(path, tree, unwatchTree(path)));
      if (!watching || told) report(path, 'add');
    });
    return reviving;
  };

  /**
   * Content or static folders that are not there, looked for until they are: a folder made where no
   * watched folder tells it (a static folder below one that did not exist either, `assets/static`).
   */
  const missing = new Map<string, { timer: NodeJS.Timeout; told: boolean }>();
  /** `told`: reported once back even when it is the folder being watched (revive). */
  function lookFor(root: string, told = false): void {
    if (closed) return;
    const looking = missing.get(root);
    if (looking) {
      looking.told ||= told;
      return;
    }
    const timer = setInterval(() => {
      if (closed || !treeRoots(plan).includes(root)) {
        clearInterval(timer);
        missing.delete(root);
        return;
      }
      void lstat(root).then(
        (found) => {
          const entry = missing.get(root);
          if (!found.isDirectory() || entry?.timer !== timer) return;
          clearInterval(timer);
          missing.delete(root);
          void revive(root, entry.told);
        },
        () => undefined,
      );
    }, LOOK_FOR_MS);
    timer.unref();
    missing.set(root, { timer, told });
  }

  for (const root of treeRoots(plan)) trees.set(root, watchTree(root));
  for (const folder of fileFolders(plan)) watchFiles(folder);
  const ready = Promise.all([...trees.values()].map((tree) => tree.subscription)).then(() => undefined);

  return {
    ready,
    update(next) {
      // A rebuild that ends after dev stopped must not watch again: one watch held the process for ever.
      if (closed) return;
      const previous = plan;
      plan = next;
      isContent = picomatch([...plan.globs], { nocase: true });
      // A hot file may be no file of the build now (other globs, another content folder).
      coolAll();
      for (const root of treeRoots(previous)) if (!treeRoots(plan).includes(root)) void unwatchTree(root);
      for (const root of treeRoots(plan)) if (!trees.has(root)) trees.set(root, watchTree(root));
      for (const [folder, watcher] of folders) {
        if (fileFolders(plan).includes(folder)) continue;
        watcher.close();
        folders.delete(folder);
      }
      for (const folder of fileFolders(plan)) if (!folders.has(folder)) watchFiles(folder);
    },
    awaitReturn: (path) =>
      void lstat(path).then(
        () => undefined,
        () => lookFor(path, true),
      ),
    close: async () => {
      closed = true;
      for (const { timer } of missing.values()) clearInterval(timer);
      missing.clear();
      await reviving.catch(() => undefined);
      for (const watcher of folders.values()) watcher.close();
      folders.clear();
      coolAll();
      await Promise.all([...trees.keys()].map(unwatchTree));
    },
  };
}

/** A path as messages show it: relative to the project root, POSIX separators. */
export function shownPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || join('.');
}
