import { hash } from 'node:crypto';
import type { SiteConfig } from '../core/config/site-config.ts';
import {
  type AssembledItem,
  addressKey,
  assemble,
  assembleItems,
  entryOrder,
  itemOf,
  leftOutOrder,
} from '../core/content/assemble.ts';
import { unrenderedLists } from '../core/content/cascade.ts';
import {
  type BranchFile,
  type ContentEntry,
  type ContentModel,
  type FollowedLink,
  type LeftOut,
  rekeyBody,
  type SourceFile,
  type Translation,
} from '../core/content/model.ts';
import type { HugoPublication } from '../core/content/publication.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { type ItemFragments, renderItem } from '../core/output/item-fragments.ts';
import type { SerializerRegistry } from '../core/serializers/registry.ts';
import { entryKey, entryWithoutBodies } from './entry-form.ts';
import {
  constant,
  type FileRecord,
  type FragmentStore,
  type ItemRecord,
  type StampsTaken,
  type Walk,
} from './fragment-store.ts';
import { holdBodies } from './held-bodies.ts';
import { orderFrom, reorder, sortedOrder } from './item-order.ts';
import {
  branchesKey,
  cascadeOf,
  contentFolder,
  fileHash,
  type Listing,
  type LoadOptions,
  letBodiesGo,
  listedPaths,
  listingCurrent,
  listingHolds,
  listSources,
  patchedListing,
  type Read,
  readBranches,
  readSources,
  readUnreadBodies,
  relistedFolders,
  vanishedContent,
} from './load.ts';
import { type ParseCache, type Stamp, sameStamp, statStamp } from './parse-cache.ts';
import type { BodySpooling } from './parse-files.ts';
import type { RowSpool } from './row-spool.ts';
import { STAMPS_ASIDE_FROM, stampsAside } from './stamps-aside.ts';

export interface ItemsOptions extends LoadOptions {
  /**
   * Dev: the only content files (absolute paths) changed since the last build with this store, as its
   * watcher saw them; none added or removed. A path the last build did not read makes the build list
   * every folder and look at every file.
   */
  changed?: ReadonlySet<string>;
  config: SiteConfig;
  now: Date;
  drafts: boolean;
  future: boolean;
  /** A Hugo site's publication rules (BuildOptions.hugo). */
  hugo?: HugoPublication;
  serializers: SerializerRegistry;
  store: FragmentStore;
  /**
   * Where the bodies of many files read at once wait, rather than in the heap, until their items' MCP
   * shares read them (parse-files.ts BodySpooling): the item store's; none in a dry run, which writes
   * nothing of the project's.
   */
  bodySpool?: () => RowSpool | undefined;
  /** The digest of everything an item depends on besides its files (the tool, the configuration, the flags). */
  context: string;
  /** The digest of what an item's fragments depend on besides its entry (the tool, the serializers). */
  renderer: string;
  /**
   * Parsed front matter of unchanged files: opened only when many files must be read, with the stamps
   * this build took (each file is looked at once); with `byRead`, the files it has no entry for are
   * stamped by their reads instead (ParseCacheOptions.stampByRead).
   */
  parseCache?: (stat: (path: string) => Stamp | undefined, byRead: boolean) => ParseCache | undefined;
  /** Called when the items have been read and are being assembled (the stage changes). */
  onAssemble?: () => void;
  /** Tests give a file system whose times lie. */
  stat?: (path: string) => Stamp | undefined;
  /**
   * The stamps the check for an unchanged build took, before it found a file changed (unchanged.ts):
   * taken for this build, of the listing the store held then.
   */
  stamps?: StampsTaken;
}

/** What a build did again, and what it kept from the build before (its report's `incremental`). */
export interface ItemCounts {
  /** Source files listed, and read (the others were known by their stamps). */
  files: number;
  read: number;
  /**
   * Items whose key (a digest of their files) was worked out; dev, knowing which files changed, takes
   * the other items' from their records.
   */
  keyed: number;
  /**
   * Items whose place in the index order was looked for: every published item when they were sorted;
   * when the last order (this process's, or the one the store kept) was moved, the items made again
   * or gone.
   */
  placed: number;
  /** Items assembled again from their files, and items whose fragments were made (the rest were kept). */
  assembled: number;
  redone: number;
  reused: number;
  /**
   * Bodies read again from their files for the items whose fragments were made: the parse cache keeps
   * none, and an entry found unchanged (its key is made of its files' hashes) has its bodies read never.
   */
  bodies: number;
  /**
   * Bodies put in the item store's spool as they were read, rather than held: by a parse of many files,
   * or read again at once for many items made again (parse-files.ts BodySpooling).
   */
  spooled: number;
}

/** Every published item's fragments in index order, and what the build tells of them. */
export interface Items {
  items: ItemFragments[];
  leftOut: LeftOut[];
  /** The files' warnings, in the files' order, and the listing's. */
  warnings: Problem[];
  links: FollowedLink[];
  /** Items whose fragments this build made, with each version's item as a value (checked before writing). */
  fresh: { fragments: ItemFragments; values: Record<string, unknown> }[];
  /** What this build did: source files, items assembled again, items whose fragments it made. */
  counts: ItemCounts;
  /** The ids of the items whose fragments this build made (the first few hundred). */
  redone: string[];
  /** The earliest instant (ms) at which the clock alone changes an item, if any. */
  changesAt?: number;
  /** The content model, made when asked (most of its entries come from the store). */
  model(): ContentModel;
  /** Hugo's list pages' files (`_index.md`), read at every build: their cascades reach the pages below. */
  branches: BranchFile[];
  /** One digest of the branches as read (branchesKey): every item depends on them. */
  branchesKey: string;
  /** Hugo's list pages it writes no page for (cascade.ts unrenderedLists): a section of one has no page. */
  unrenderedLists: BranchFile[];
}

/** Past this many files to read, they are read through the parse cache with every other file. */
const DIRECT_READS = 256;
/** The report names the items redone up to this many. */
const NAMED = 200;

/**
 * The build's items, assembling and rendering again only those whose files changed: each file's stamp
 * says whether it changed; an unchanged file is not read; an item whose files and context are those of
 * its record is taken from the store as it is; an item assembled again whose entry is its record's
 * keeps its fragments. Problems are reported as a build from nothing reports them.
 */
export async function buildItems(options: ItemsOptions): Promise<Items> {
  const { store } = options;
  const { listing, hinted, patched } = await listingOf(options);
  if (listing.problems.length > 0) await fail(options, listing);
  const { tasks } = listing;
  const changed = hinted ? options.changed : undefined;
  const branchProblems: Problem[] = [];
  const branches = await readBranches(listing.branches, options.layout, options.maxFileBytes, branchProblems);
  if (branchProblems.length > 0) await fail(options, listing);
  const cascades = branchesKey(branches);
  const cascade = await cascadeOf(branches);
  const contentDir = contentFolder(options).shown;
  const unrendered =
    options.hugo && cascade ? unrenderedLists({ ...cascade, contentDir, layout: options.layout }) : [];
  const stat = options.stat ?? statStamp;
  const { racyMs } = store;
  // The stamps the check for an unchanged build took before it found a file changed, when it looked at
  // this listing: taken before this build began, so their files are judged recent from then.
  const taken = !options.stat && !changed ? options.stamps : undefined;
  const early = taken && store.stampsOf(listing, taken);
  const at = Math.min(Date.now(), (early && taken?.at) ?? Number.POSITIVE_INFINITY);
  const nowMs = options.now.getTime();
  const aside =
    !changed && !options.stat ? stampsOfKnown(store, listing, early, options.parallelThreshold) : undefined;
  const places = placesOf(tasks);
  const taskAt = (i: number) => tasks[i] as Listing['tasks'][number];
  const keyBase = hash('sha256', `${options.context}\u0000${cascades}`, 'base64url');
  // The files the last build listed, each told changed or not (by the watcher, or by its stamp, every
  // one looked at below), under the same context and list pages: an item none of the changed files
  // touch keeps its record's key. At 10,000 items, hashing every item's files took some 50 ms of an
  // edit's build.
  const carried = (hinted || patched || listing === store.listing) && store.keyBase === keyBase;
  // A build after one in this process that listed the same files, under the same context (dev's saves):
  // that build's walks of the whole site (which files make which item, the items' warnings, what was
  // left out) are patched where the changed files are (the saved ones and the files it could not trust
  // yet, or every file found changed by its stamp); any other change walks every file and item. At
  // 10,000 items the walks took some 40 ms of a save's 200.
  const behind = store.clockBehind(nowMs);
  let walk = carried && !behind ? store.walk(listing) : undefined;
  if (walk?.changesAt !== undefined && nowMs >= walk.changesAt) walk = undefined;
  const lookAt = (partly: boolean): number[] =>
    partly && walk && changed
      ? [...new Set([...[...changed].map((path) => places.indexOf.get(path) ?? -1), ...walk.unsure])]
          .filter((i) => i >= 0)
          .sort((a, b) => a - b)
      : tasks.map((_, i) => i);

  // Which files are as the store last saw them: their item is known without reading them. A file not
  // looked at is one the store trusts and the watcher did not name: its record says what it is.
  let stamps: (Stamp | undefined)[] = [];
  let known: (FileRecord | undefined)[] = [];
  let unknown: number[] = [];
  let looked: number[] = [];
  // Files the store has no record of are read whatever their stamps: each is stamped as its read opens
  // it (read-head.js), not stat'ed before. A build from nothing at 10,000 items spent some 0.2 s of its
  // main thread on those stats. Not with a file system whose stamps are the caller's (`stat`).
  const byRead = !options.stat;
  let stampedByRead = new Set<number>();
  const look = (partly: boolean) => {
    stamps = [];
    known = [];
    unknown = [];
    stampedByRead = new Set();
    looked = lookAt(partly);
    for (const i of looked) {
      const task = taskAt(i);
      const record = store.files.get(task.path);
      const trusted = record !== undefined && !record.racy;
      if (trusted && changed && !changed.has(task.absolute)) {
        stamps[i] = record.stamp;
        known[i] = record;
        continue;
      }
      const taken = early?.(i) ?? asideTaken?.(i);
      if (record === undefined && taken === undefined && byRead) {
        stampedByRead.add(i);
        known[i] = undefined;
        unknown.push(i);
        continue;
      }
      const stamp = taken ?? stat(task.absolute);
      stamps[i] = stamp;
      if (trusted && stamp && sameStamp(record.stamp, stamp)) known[i] = record;
      else {
        known[i] = undefined;
        unknown.push(i);
      }
    }
  };
  const asideTaken = aside && (await aside);
  look(true);
  // So many to read that every file is read through the parse cache: the whole site is looked at.
  if (walk && unknown.length > DIRECT_READS) {
    walk = undefined;
    look(false);
  }
  const partial = looked.length < tasks.length;
  const knownOf = (i: number): FileRecord | undefined =>
    partial && !(i in known) ? store.files.get(taskAt(i).path) : known[i];
  const stampAt = (i: number): Stamp | undefined =>
    partial && !(i in stamps) ? store.files.get(taskAt(i).path)?.stamp : stamps[i];

  const sourceFiles = new Map<string, SourceFile>();
  const hashes = new Map<string, string>();
  let gone = 0;
  const take = (read: Read) => {
    gone += read.gone;
    for (const file of read.files) sourceFiles.set(file.path, file);
    for (const [path, hash] of read.hashes) hashes.set(path, hash);
    for (const [path, stamp] of read.stamps) {
      const i = places.position.get(path);
      if (i !== undefined && stampedByRead.delete(i)) stamps[i] = stamp;
    }
    return read.problems.length === 0 && read.unreadable.length === 0;
  };
  const stampOf = (path: string) => {
    const i = places.indexOf.get(path);
    if (i === undefined) return stat(path);
    // Asked before its read (the parse cache knows the file): stat'ed now.
    if (stampedByRead.delete(i)) stamps[i] = stat(path);
    return stampAt(i);
  };
  /** Whether every listed file was read (through the parse cache): then each may say something new. */
  let readAll = false;
  const spooling: BodySpooling | undefined = options.bodySpool && {
    spool: options.bodySpool,
    spooled: 0,
    ...(options.parallelThreshold !== undefined && { from: options.parallelThreshold }),
  };
  const readTasks = async (indexes: readonly number[], all = false) => {
    const chosen = all ? tasks : indexes.map(taskAt);
    const cache = all || chosen.length > DIRECT_READS ? options.parseCache?.(stampOf, byRead) : undefined;
    if (cache) readAll = true;
    // Through the parse cache, every listed file is read (its record of the folder stays whole).
    return readSources(cache ? tasks : chosen, {
      layout: options.layout,
      bodies: options.bodies ?? false,
      maxFileBytes: options.maxFileBytes,
      ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
      ...(cache && { cache }),
      ...(cache && changed && { only: changed }),
      ...(spooling && { spooling }),
    });
  };

  let readable = take(await readTasks(unknown, store.items.size === 0 || unknown.length > DIRECT_READS));
  const itemOfTask = (i: number): string | undefined => {
    const file = sourceFiles.get(taskAt(i).path);
    return file ? itemOf(file) : knownOf(i)?.item;
  };
  const hashOf = (i: number): string | undefined => hashes.get(taskAt(i).path) ?? knownOf(i)?.hash;
  /** The files that may differ from their records: those looked at, and those read. */
  const lookedOrRead = (): Iterable<number> =>
    !partial || readAll
      ? tasks.keys()
      : new Set(
          [...looked, ...[...hashes.keys()].map((path) => places.position.get(path) ?? -1)].filter(
            (i) => i >= 0,
          ),
        );

  // Files by item, in the files' order; each item's digest of what it is made from.
  let groups: ReadonlyMap<string, readonly number[]> = new Map();
  const grouped = () => {
    walk = undefined;
    const byItem = new Map<string, number[]>();
    tasks.forEach((_, i) => {
      const id = itemOfTask(i);
      if (id === undefined) return; // deleted while read: left out
      const group = byItem.get(id);
      if (group) group.push(i);
      else byItem.set(id, [i]);
    });
    groups = byItem;
  };
  // The last build's, when every file looked at still makes the item its record says.
  if (walk && !readAll && looked.every((i) => itemOfTask(i) === store.files.get(taskAt(i).path)?.item))
    groups = walk.groups;
  else grouped();
  const sourcesKey = (indexes: readonly number[]) => {
    let text = `${options.context}\u0000${cascades}`;
    for (const i of indexes) {
      const { path, location } = taskAt(i);
      text += `\u0000${path}\u0000${location.type}\u0000${location.name}\u0000${location.dir}\u0000${location.lang ?? ''}\u0000${hashOf(i)}`;
    }
    return hash('sha256', text, 'base64url');
  };
  const reusable = (id: string, key: string): ItemRecord | undefined => {
    const record = store.items.get(id);
    if (!record || record.sources !== key || behind) return undefined;
    if (record.changesAt !== undefined && nowMs >= record.changesAt) return undefined;
    return record;
  };

  // The changed files known (named by dev's watcher, or found by their stamps) and the rest of the
  // listing as the last build left it: an item none of those files belonged to, nor belongs to now,
  // has the files it had, with the hashes they had, so its key is its record's when the build's
  // context and list pages are the last build's too (the key base). A file
  // known by its stamp but read all the same (through the parse cache, or as an unchanged translation
  // of an edited file) counts as changed when what was read is not what its record says: the parse
  // cache can know a text the store never learned (a build that failed after reading it).
  const touched = new Set<string>();
  // The last listing's files that the folders read again no longer hold (deleted, or moved away):
  // the items they were part of have changed too.
  const dropped: string[] = [];
  if (patched && store.listing && store.listing !== listing) {
    const now = listedPaths(listing);
    for (const task of store.listing.tasks) {
      const item = now.has(task.absolute) ? undefined : store.files.get(task.path)?.item;
      if (item !== undefined) dropped.push(item);
    }
  }
  const touch = () => {
    touched.clear();
    if (!carried) return;
    for (const item of dropped) touched.add(item);
    for (const i of lookedOrRead()) {
      const task = taskAt(i);
      const record = knownOf(i);
      const now = itemOfTask(i);
      if (
        record &&
        (!hashes.has(task.path) || (hashes.get(task.path) === record.hash && now === record.item))
      )
        continue;
      const before = record?.item ?? store.files.get(task.path)?.item;
      if (before !== undefined) touched.add(before);
      if (now !== undefined) touched.add(now);
    }
  };
  touch();
  const hashed = new Set<string>();
  const keyOf = (id: string, indexes: readonly number[]) => {
    const kept = carried && !touched.has(id) ? store.items.get(id)?.sources : undefined;
    if (kept !== undefined) return kept;
    hashed.add(id);
    return sourcesKey(indexes);
  };
  /**
   * The keys of the items that may have changed (every item's, unless the last build's walks are
   * patched: then an item no file touched keeps its record's, which the clock has not reached), and
   * the items whose record cannot be kept under its key.
   */
  const keyAll = () => {
    const keys = new Map<string, string>();
    const stale: string[] = [];
    for (const id of walk ? [...touched] : groups.keys()) {
      const indexes = groups.get(id);
      if (!indexes) continue;
      const key = keyOf(id, indexes);
      keys.set(id, key);
      if (!reusable(id, key)) stale.push(id);
    }
    return { keys, stale };
  };
  let { keys, stale } = keyAll();
  // The files of the items to assemble again that were not read (an unchanged translation of an edited file).
  const unread = stale.flatMap((id) =>
    (groups.get(id) ?? []).filter((i) => !sourceFiles.has(taskAt(i).path)),
  );
  if (readable && unread.length > 0) {
    readable = take(await readTasks(unread, unread.length > DIRECT_READS));
    touch();
    // Read through the parse cache, every file may say something new: the walk is not patched then,
    // and the items whose keys it left to their records are keyed again with the others.
    if (!(walk && readAll) && unread.every((i) => itemOfTask(i) === knownOf(i)?.item)) {
      // Each file read still belongs to the item its record says (the rule: they are known by their
      // stamps), so only the keys of the items they belong to can have changed: not every item's
      // grouped and keyed again (50 ms at 10,000 items).
      for (const id of stale) keys.set(id, keyOf(id, groups.get(id) ?? []));
      stale = stale.filter((id) => !reusable(id, keys.get(id) ?? ''));
    } else {
      grouped();
      ({ keys, stale } = keyAll());
    }
  }
  if (gone > 0) {
    const vanished = await vanishedContent(options, tasks.length, gone, groups.size);
    if (vanished) throw new ContentIndexError([vanished]);
  }
  // The files read that make the items to assemble, in the listing's order: found among the files read,
  // not by a look at every listed file (a dev save reads 3 of 25,900).
  const staleSet = new Set(stale);
  const files: SourceFile[] = [];
  for (const file of sourceFiles.values()) if (staleSet.has(itemOf(file))) files.push(file);
  files.sort((a, b) => (places.position.get(a.path) ?? 0) - (places.position.get(b.path) ?? 0));
  options.onAssemble?.();
  const assembled = readable
    ? assembleItems(files, options.config, {
        now: options.now,
        drafts: options.drafts,
        future: options.future,
        ...(options.hugo && { hugo: options.hugo }),
        ...(cascade && { cascade }),
        contentDir,
      })
    : undefined;
  if (!assembled || assembled.problems.length > 0) await fail(options, listing);
  const made = new Map((assembled as { items: AssembledItem[] }).items.map((item) => [item.id, item]));

  // Every item: its record kept, or made again; its fragments kept when its entry is its record's.
  const fresh: Items['fresh'] = [];
  const redone: string[] = [];
  // Patched: every item the last build had, in its order, the ones keyed again replaced below.
  const patchedRecords = walk !== undefined;
  const records = patchedRecords ? new Map(store.items) : new Map<string, ItemRecord>();
  const toRender: { id: string; entry: ContentEntry; record: ItemRecord }[] = [];
  for (const [id, key] of keys) {
    const item = made.get(id);
    if (!item) {
      records.set(id, store.items.get(id) as ItemRecord);
      continue;
    }
    const previous = store.items.get(id);
    // Closures made here would keep every file this function read alive: made by module functions.
    const json = item.entry ? once(constant(item.entry), entryWithoutBodies) : undefined;
    const record: ItemRecord = {
      sources: key,
      entryKey: json && item.entry ? once(json, keyWith(options.renderer, item.entry)) : constant(''),
      ...(json && { entryJson: json }),
      ...(item.changesAt !== undefined && { changesAt: Date.parse(item.changesAt) }),
      leftOut: item.leftOut,
      warnings: item.warnings,
    };
    if (item.entry) {
      const entry = item.entry;
      record.entry = constant(entry);
      if (previous?.fragments && previous.entryKey() === record.entryKey()) {
        record.fragments = previous.fragments;
      } else toRender.push({ id, entry, record });
    }
    records.set(id, record);
  }
  // The changed entries' bodies the parse cache kept without their text, read at once (an unchanged
  // entry's are never read: its key is made of its files' hashes).
  const fileOf = (t: Translation | undefined) => (t ? sourceFiles.get(t.file) : undefined);
  const { read: bodies, moved } = await readUnreadBodies(
    toRender.flatMap(({ entry }) => Object.values(entry.translations).flatMap((t) => fileOf(t) ?? [])),
    { ...options, ...(spooling && { spooling }) },
  );
  // A file edited since it was hashed: its entry is keyed by the body read, as a build after the edit
  // would key it (its own key then says what this build read, never the text of the hash it had).
  for (const { entry, record } of toRender) {
    let rekeyed = false;
    for (const t of Object.values(entry.translations)) {
      const file = fileOf(t);
      if (!t || !file || !moved.has(file)) continue;
      rekeyBody(t, file.bodyKey);
      rekeyed = true;
    }
    if (!rekeyed) continue;
    const json = once(constant(entry), entryWithoutBodies);
    record.entryJson = json;
    record.entryKey = once(json, keyWith(options.renderer, entry));
  }
  for (const { id, entry, record } of toRender) {
    const rendered = renderItem(entry, options.serializers);
    const files = Object.values(entry.translations).flatMap((t) => fileOf(t) ?? []);
    holdBodies(rendered.fragments, () => letBodiesGo(files));
    record.fragments = rendered.fragments;
    fresh.push(rendered);
    if (redone.length < NAMED) redone.push(id);
  }

  // The items whose record is not the store's: made again, or gone.
  const before = store.items;
  const changedIds = [...made.keys()];
  const added = changedIds.filter((id) => !before.has(id)).length;
  if (before.size - records.size + added > 0)
    for (const id of before.keys()) if (!records.has(id)) changedIds.push(id);
  // The last order (this process's, or the one the store kept) with the changed items moved in it.
  const last = store.order?.from === before ? store.order : orderFrom(before, store.storedOrder());
  const reordered = last && reorder(last, before, records, changedIds);
  const order = reordered ?? sortedOrder(records);
  // Two items that publish one address: the whole build's problem, told as a build from nothing tells it.
  if (!sameAddresses(records, before, changedIds) && !distinctAddresses(order.items))
    await fail(options, listing);

  // What every item says, unless only items that say none of it were made again (their records before
  // and now): then it is the last build's.
  const quiet = (says: (record: ItemRecord | undefined) => boolean) =>
    walk !== undefined && [...made.keys()].every((id) => !says(before.get(id)) && !says(records.get(id)));
  const warnings = quiet((r) => (r?.warnings.length ?? 0) > 0)
    ? (walk as Walk).warnings
    : [...records.values()]
        .flatMap((r) => r.warnings)
        .sort((a, b) => (places.position.get(a.file ?? '') ?? 0) - (places.position.get(b.file ?? '') ?? 0));
  const leftOut = quiet((r) => (r?.leftOut.length ?? 0) > 0)
    ? (walk as Walk).leftOut
    : [...records.values()].flatMap((r) => r.leftOut).sort(leftOutOrder);
  let changesAt: number | undefined;
  if (quiet((r) => r?.changesAt !== undefined)) changesAt = walk?.changesAt;
  else
    for (const record of records.values()) {
      if (record.changesAt !== undefined && (changesAt === undefined || record.changesAt < changesAt))
        changesAt = record.changesAt;
    }

  // The store learns this build's files and items. A build that fails after this point leaves them
  // learned (dev keeps its store), and the last build that wrote no longer taken for unchanged.
  // A file neither looked at nor read keeps its record: it was trusted, and is still (racy is a matter
  // of its age, which only grows).
  // Looked at partly (a save patched into the last build's walks): the records of the files looked at
  // or read, which the store writes over its own (a copy of every record was 10–20 ms of a save at
  // 10,000 items, 25,900 files); otherwise every file's (`undefined`: the file has none).
  const seen = new Map<string, FileRecord | undefined>();
  const unsure: number[] = [];
  const patchedFiles = partial ? [...lookedOrRead()] : undefined;
  for (const i of patchedFiles ?? tasks.keys()) {
    const task = taskAt(i);
    const id = itemOfTask(i);
    const hash = hashOf(i);
    const stamp = stampAt(i);
    if (id === undefined || hash === undefined || stamp === undefined) {
      if (partial) seen.set(task.path, undefined);
      unsure.push(i);
      continue;
    }
    const racy = Math.max(stamp.mtimeMs, stamp.ctimeMs) > at - racyMs;
    if (racy) unsure.push(i);
    const before = knownOf(i);
    // An unchanged file keeps its record (the store then knows its index need not be written again).
    if (before && before.racy === racy && before.hash === hash && before.item === id)
      seen.set(task.path, before);
    else seen.set(task.path, { stamp, racy, hash, item: id });
  }
  store.learn(
    listing,
    patchedFiles ? { patch: seen } : (seen as Map<string, FileRecord>),
    records,
    keyBase,
    { groups, unsure, warnings, leftOut, ...(changesAt !== undefined && { changesAt }) },
    {
      ...(patchedFiles && { files: patchedFiles }),
      ...(patchedRecords && { items: [...keys.keys()] }),
    },
    nowMs,
  );
  store.order = order;

  return {
    items: [...order.items],
    leftOut,
    warnings: [...listing.warnings, ...warnings],
    links: listing.links,
    fresh,
    counts: {
      files: tasks.length,
      // Each file once: a second read (of them all, through the parse cache) reads some again.
      read: sourceFiles.size,
      keyed: hashed.size,
      placed: reordered ? changedIds.length : order.items.length,
      assembled: made.size,
      redone: fresh.length,
      reused: order.items.length - fresh.length,
      bodies,
      spooled: spooling?.spooled ?? 0,
    },
    redone,
    ...(changesAt !== undefined && { changesAt }),
    branches,
    branchesKey: cascades,
    unrenderedLists: unrendered,
    model: modelOf(order.records, leftOut),
  };
}

function modelOf(records: readonly ItemRecord[], leftOut: LeftOut[]): () => ContentModel {
  return () => ({ entries: records.flatMap((r) => (r.entry ? [r.entry()] : [])), leftOut });
}

// Each file's place in the listing, by its absolute and its shown path, made once per listing (dev
// keeps its listing between saves: 25,900 files at 10,000 items), and each when first asked (a build
// in a process of its own asks by absolute path only when it reads many files).
class Places {
  #indexOf: Map<string, number> | undefined;
  #position: Map<string, number> | undefined;
  constructor(private readonly tasks: Listing['tasks']) {}
  get indexOf(): Map<string, number> {
    this.#indexOf ??= new Map(this.tasks.map((task, i) => [task.absolute, i]));
    return this.#indexOf;
  }
  get position(): Map<string, number> {
    this.#position ??= new Map(this.tasks.map((task, i) => [task.path, i]));
    return this.#position;
  }
}
const PLACES = new WeakMap<Listing['tasks'], Places>();
function placesOf(tasks: Listing['tasks']): Places {
  let places = PLACES.get(tasks);
  if (!places) {
    places = new Places(tasks);
    PLACES.set(tasks, places);
  }
  return places;
}

// An item's addresses as compared for collisions, made once per facts (dev keeps them between builds).
const ADDRESS_KEYS = new WeakMap<ItemFragments['facts'], string[]>();
/**
 * Whether the items publish the addresses the store's did: the same items, each with its addresses.
 * The store only ever learns items whose addresses are distinct (buildItems checks before it learns),
 * so an edit that moves no address needs no look at the 25,900 others (decoded, folded, and put in a
 * set: 40 ms at 10,000 items). Only the `changed` items are looked at: every other is the store's record.
 */
function sameAddresses(
  records: ReadonlyMap<string, ItemRecord>,
  before: ReadonlyMap<string, ItemRecord>,
  changed: readonly string[],
): boolean {
  if (records.size !== before.size) return false;
  for (const id of changed) {
    const record = records.get(id);
    const previous = before.get(id);
    if (!record || !previous) return false;
    if (record === previous || record.fragments === previous.fragments) continue;
    const [urls, then] = [record.fragments?.facts.urls, previous.fragments?.facts.urls];
    if (urls?.length !== then?.length || urls?.some((url, i) => url !== then?.[i])) return false;
  }
  return true;
}

/** Whether no two of the items' addresses are one (Hugo's: decoded, folded to lower case). */
function distinctAddresses(items: readonly ItemFragments[]): boolean {
  const addresses = new Set<string>();
  let translations = 0;
  for (const item of items) {
    for (const key of addressKeysOf(item.facts)) addresses.add(key);
    translations += item.facts.urls.length;
  }
  return addresses.size === translations;
}

function addressKeysOf(facts: ItemFragments['facts']): string[] {
  let keys = ADDRESS_KEYS.get(facts);
  if (!keys) {
    keys = facts.urls.map(addressKey);
    ADDRESS_KEYS.set(facts, keys);
  }
  return keys;
}

/**
 * The listing of the last build when dev's watcher says which files changed and none was added or
 * removed (`hinted`: the other files are taken as they were), or with the pages it names added; in a
 * process of its own, the last listing with only its changed folders read again (`patched`: the last
 * build's files, each looked at by its stamp); else a new one.
 */
async function listingOf(
  options: ItemsOptions,
): Promise<{ listing: Listing; hinted: boolean; patched?: true }> {
  const previous = options.store.listing;
  if (previous && options.changed && listingHolds(previous, options, options.changed))
    return { listing: previous, hinted: true };
  // New pages among the files named: put in their places, the others taken as they were.
  const patched = previous && options.changed && (await patchedListing(previous, options, options.changed));
  if (patched) return { listing: patched, hinted: true };
  // No folder changed since the last listing: no file was added, removed or renamed.
  if (previous && !options.changed && listingCurrent(previous, options, options.store.racyMs))
    return { listing: previous, hinted: false };
  // Only the folders that changed read again: every file's stamp is looked at below all the same.
  const relisted =
    previous && !options.changed ? await relistedFolders(previous, options, options.store.racyMs) : undefined;
  if (relisted) return { listing: relisted, hinted: false, patched: true };
  return { listing: await listSources(options), hinted: false };
}

/**
 * A build with problems reads and assembles everything, as a build from nothing does, so that it
 * reports every problem, in the same order and with the same lines.
 */
async function fail(options: ItemsOptions, listing: Listing): Promise<never> {
  const cache = options.parseCache?.(options.stat ?? statStamp, !options.stat);
  const read = await readSources(listing.tasks, {
    layout: options.layout,
    bodies: options.bodies ?? false,
    maxFileBytes: options.maxFileBytes,
    ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
    ...(cache && { cache }),
  });
  const branchProblems: Problem[] = [];
  const branches = await readBranches(listing.branches, options.layout, options.maxFileBytes, branchProblems);
  const cascade = await cascadeOf(branches);
  const assembled = assemble(read.files, options.config, {
    now: options.now,
    drafts: options.drafts,
    future: options.future,
    ...(options.hugo && { hugo: options.hugo }),
    ...(cascade && { cascade }),
    contentDir: contentFolder(options).shown,
    unreadable: read.unreadable,
  });
  throw new ContentIndexError([
    ...listing.problems,
    ...read.problems,
    ...branchProblems,
    ...(assembled.ok ? [] : assembled.problems),
  ]);
}

/** An entry's key from its JSON: what its fragments are made from, with the renderer (tool, serializers). */
function keyWith(renderer: string, entry: ContentEntry): (json: string) => string {
  return (json) => entryKey(renderer, json, entry);
}

/** `make` of what `from` gives, worked out when first asked (an entry's JSON, and its key from it). */
function once<T, U>(from: () => T, make: (value: T) => U): () => U {
  let source: (() => T) | undefined = from;
  let made: { value: U } | undefined;
  return () => {
    if (!made) {
      made = { value: make((source as () => T)()) };
      // An entry's key made, its JSON is let go with it (the store reads it back from its file).
      source = undefined;
    }
    return made.value;
  };
}

/**
 * Whether the content folder still holds exactly what the last build with this store read: the same
 * files, each with the stamp it had (and a racy one, the same text). Dev asks when it is idle
 * after a build that took its watcher's word for what changed; anything else means a full build.
 */
export async function sourcesUnchanged(options: LoadOptions & { store: FragmentStore }): Promise<boolean> {
  const { store } = options;
  const previous = store.listing;
  if (!previous) return false;
  const listing = await listSources(options);
  if (listing.key !== previous.key || listing.tasks.length !== previous.tasks.length) return false;
  if (listing.tasks.some((task, i) => task.absolute !== previous.tasks[i]?.absolute)) return false;
  return listing.tasks.every((task) => {
    const record = store.files.get(task.path);
    const stamp = statStamp(task.absolute);
    if (!record || !stamp || !sameStamp(record.stamp, stamp)) return false;
    return (
      !record.racy || fileHash(task.absolute, options.maxFileBytes, options.bodies ?? false) === record.hash
    );
  });
}

/** The items the store holds, in index order, with the model they make (a build that found nothing changed). */
export function storedItems(store: FragmentStore): { items: ItemFragments[]; model: () => ContentModel } {
  const records = [...store.items.values()];
  const published = records
    .flatMap((record) => (record.fragments ? [{ record, item: record.fragments }] : []))
    .sort((a, b) => entryOrder(a.item.facts, b.item.facts));
  const leftOut = records.flatMap((r) => r.leftOut).sort(leftOutOrder);
  return {
    items: published.map((p) => p.item),
    model: () => ({
      entries: published.flatMap(({ record }) => (record.entry ? [record.entry()] : [])),
      leftOut,
    }),
  };
}

/**
 * A build in a process of its own looks at the stamp of every file the store has a record of (and the
 * check for an unchanged build has not): on a large site, those are taken on a worker thread, started
 * here, while the main thread reads the store's records, which it does now (the build needs them below
 * in any case). By the file's place in the listing.
 */
function stampsOfKnown(
  store: FragmentStore,
  listing: Listing,
  early: ((i: number) => Stamp | undefined) | undefined,
  threshold = STAMPS_ASIDE_FROM,
): Promise<((i: number) => Stamp | undefined) | undefined> | undefined {
  const wanted: number[] = [];
  listing.tasks.forEach((task, i) => {
    if (store.files.has(task.path) && early?.(i) === undefined) wanted.push(i);
  });
  if (wanted.length === 0 || wanted.length < threshold) return undefined;
  const taken = stampsAside(wanted.map((i) => (listing.tasks[i] as Listing['tasks'][number]).absolute));
  void store.items;
  return taken.then((stampAt) => {
    if (!stampAt) return undefined;
    const slot = new Int32Array(listing.tasks.length).fill(-1);
    wanted.forEach((task, j) => {
      slot[task] = j;
    });
    return (i) => {
      const j = slot[i] ?? -1;
      return j < 0 ? undefined : stampAt(j);
    };
  });
}
