import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { ContentEntry, LeftOut } from '../core/content/model.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language } from '../core/edge/languages.ts';
import { type D1ItemRows, d1RowBody } from '../core/edge/mcp/d1-sql.ts';
import type { EmbeddedItem } from '../core/edge/mcp/embedded.ts';
import type { McpItem } from '../core/edge/mcp/mcp-data.ts';
import type { DocumentPostings } from '../core/edge/mcp/search-index.ts';
import type { Problem } from '../core/errors.ts';
import { type ItemFacts, type ItemFragments, reviveMcp, withMcp } from '../core/output/item-fragments.ts';
import { rowsDigest } from './d1-rows.ts';
import { bodyCount, withBodies } from './entry-form.ts';
import type { ItemOrder } from './item-order.ts';
import { fileHash, type Listing } from './load.ts';
import { CACHE_DIR, RACY_MS, type Stamp, sameStamp, statStamp } from './parse-cache.ts';
import { RowSpool } from './row-spool.ts';
import {
  asPiece,
  type BytePiece,
  bytesOf,
  pieceLength,
  readAll,
  StoredBytes,
  writeFilePieces,
} from './stored-bytes.ts';

/** How the store's files are written (writeFilePieces; tests: a full disk, a save held half-way). */
export type WritePieces = (path: string, pieces: readonly (string | BytePiece)[]) => Promise<void>;

export interface StoreOptions {
  racyMs?: number;
  writePieces?: WritePieces;
}

/** What the store knows of one content file: enough to tell, without reading it, which item it makes. */
export interface FileRecord {
  stamp: Stamp;
  /** Its stamp may not show a later change (parse-cache.ts RACY_MS): the next build reads it again. */
  racy: boolean;
  /** Of its front matter, or of the whole file when bodies are read (load.ts fileHash). */
  hash: string;
  /** The item it belongs to (core/content/assemble.ts itemOf). */
  item: string;
}

/** One item as the last build made it, and what it was made from. */
export interface ItemRecord {
  /** The digest of what it was assembled from: the build's context and its files (paths, places, hashes). */
  sources: string;
  /** The digest of its entry, which its fragments were made from; '' when it has none (worked out when asked). */
  entryKey: () => string;
  /**
   * Its entry's JSON without its bodies (entry-form.ts), when made by this build (worked out when asked,
   * once; let go once written).
   */
  entryJson?: () => string;
  /** When the clock alone may change it (a file dated ahead coming due), in ms. */
  changesAt?: number;
  leftOut: LeftOut[];
  warnings: Problem[];
  /** Its entry: kept as it was made, or read back from the store when asked. */
  entry?: () => ContentEntry;
  fragments?: ItemFragments;
}

/** The stamps of a listing's files, by their place in it, taken from `at` on (FragmentStore.filesAsKept). */
export interface StampsTaken {
  /** What was looked at: the index's listing as read, or a Listing. */
  of: object;
  at: number;
  stamps: (Stamp | undefined)[];
}

/** The last build that wrote, as the next one may find it unchanged (stages/unchanged.ts). */
export interface LastBuild {
  /** The digest of every input but the content files' stamps (which `files` holds). */
  inputs: string;
  /** Until when the clock leaves its output as it is (ms); none: for good. */
  validUntil?: number;
  /** What the build reported, for the report of a build that finds nothing changed. */
  summary: unknown;
  /** The site generator's pages it was checked against (stages/site-pages.ts sitePagesStamp), if any. */
  pages?: string;
  /** Its list pages' files as read (items.ts branchesKey), when it had any. */
  branches?: string;
  /** The outputs it wrote, as they were then, so that a change made to them is noticed. */
  outputs: [path: string, stamp: Stamp | null][];
}

/**
 * What the last build's walks of the whole site found (stages/items.ts), for the next build in this
 * process to patch rather than walk again: which files (by their place in the listing) make each item,
 * the files whose records could not be trusted yet (read again by the next build), and what the items
 * say as a whole.
 */
export interface Walk {
  groups: ReadonlyMap<string, readonly number[]>;
  unsure: readonly number[];
  warnings: Problem[];
  leftOut: LeftOut[];
  /** The earliest instant (ms) at which the clock alone changes an item. */
  changesAt?: number;
}

/** Relative to the project root: the store's folder. */
export const STORE_DIR = `${CACHE_DIR}/items`;
/**
 * Bumped when what the store's files hold changes form. 5: each item's D1 rows with their digest. 6: a
 * whole file's hash of its bytes (read-head.js sourceHash). 7: entries without the bodies their D1 rows
 * hold, and keys made of both (entry-form.ts). 8: a shard's texts apart from its D1 rows, measured in
 * UTF-16 units (decodeShard). 9: a shard's header names the key base its records were keyed under and
 * the save that wrote it, which the index names too. 10: the index and each shard's items and entries
 * sealed (sealOf); each shard's stamp as its save left it in the index, and the D1 rows of a shard not
 * so checked against their digest when read (StoreDamage).
 */
const STORE_FORMAT = 10;
const INDEX_FILE = 'index.bin';
/** The ids of the last build's published items, in index order, one a line (stages/item-order.ts orderFrom). */
const ORDER_FILE = 'order.txt';
/** Item records are spread over this many files, so that an edit rewrites one. */
const SHARDS = 32;
/** Replaced shard files kept open (see FragmentStore.shards). */
const RETIRED_FILES = 64;

/**
 * The build's memory of every item between builds: which files make which item, each item's entry and
 * its fragments (core/output/item-fragments.ts), each kept by a digest of what it was made from. The
 * build (stages/items.ts) asks it which items are unchanged, reuses their fragments, and hands back what
 * it made; nothing else in the build reads or writes item records. Dev keeps one in memory; a build
 * reads the project's from `.content-index/cache/items/` and writes it back once its D1 rows are made,
 * while its output is written (a build that fails after that leaves what it learned, as dev does).
 *
 * On disk: `index.bin` (the listing, every file's stamp, the last build's digest), the item records
 * in shards (each naming the key base its records were keyed under and the save that wrote it, as the
 * index does), read only when the build needs
 * them (not when it finds nothing changed), and the last order's ids (`order.txt`). The index is never
 * written ahead of the shards its files' items are in. A store that cannot be read is an empty one: it
 * is only ever a shortcut.
 */
export class FragmentStore {
  /** The last build that wrote. */
  get last(): LastBuild | undefined {
    return this.lastBuild;
  }

  set last(last: LastBuild | undefined) {
    this.lastBuild = last;
    this.learnedSinceLast = false;
  }

  /** The last build that wrote, unless a build learned since (learnedSinceLast): one to take as unchanged. */
  get lastWritten(): LastBuild | undefined {
    return this.learnedSinceLast ? undefined : this.lastBuild;
  }

  private lastBuild: LastBuild | undefined;
  /**
   * A build learned after the last build that wrote and did not write (it failed after its items: a
   * dead address, a body the schema refuses; dev keeps what it learned): the index is saved without
   * that last build, whose result its files no longer make, so that no build takes it for unchanged.
   */
  private learnedSinceLast = false;

  /**
   * The save that last wrote each shard (a token of its own, in the shard's header), as this process
   * knows: read from the index, and set as this process writes a shard. A shard on disk that another
   * save wrote since (another process's: dev and a build in another terminal save the same store) is
   * not the one the index's files go with, and no key is taken from the records then.
   */
  private writers: string[] = [];
  /** Each shard file's stamp as the save that wrote it left it: its rows are then taken as written. */
  private shardStamps: (Stamp | null)[] = [];
  /** A shard read whose writer is not the one the index names. */
  private strangers = false;
  /**
   * The items the last build in this process published, in index order: the next build moves its
   * changed items in it rather than sorting them all (item-order.ts). Its ids are saved (ORDER_FILE)
   * for a build in another process (storedOrder).
   */
  order: ItemOrder<ItemRecord> | undefined;
  private records: Map<string, ItemRecord> | undefined;
  /** Records whose shard must be written. */
  private dirty = new Set<number>();
  private indexDirty = false;
  /** The index as read: its listing and file records are made into objects when first asked. */
  private stored: StoredIndex | undefined;
  private madeListing: Listing | undefined;
  private madeFiles: Map<string, FileRecord> | undefined;

  /** How recent a file's change may be for its stamp to be trusted (parse-cache.ts RACY_MS; tests set 0). */
  readonly racyMs: number;
  private readonly writePieces: WritePieces;

  /**
   * The latest clock (ms) of a build that taught the store. A record holds from the instant it was made
   * until its item next changes by the clock alone (`changesAt`); before that instant an item it
   * published may be dated ahead. A build on a clock set back before this one (another machine's,
   * a corrected one) trusts no record, nor the last build's walks or result (clockBehind).
   */
  clock: number | undefined;

  /** Whether `nowMs` is before a build that taught the store. */
  clockBehind(nowMs: number): boolean {
    return this.clock !== undefined && nowMs < this.clock;
  }

  private constructor(
    private readonly root: string,
    private readonly dir: string | undefined,
    options: StoreOptions,
  ) {
    this.racyMs = options.racyMs ?? RACY_MS;
    this.writePieces = options.writePieces ?? writeFilePieces;
  }

  /** A store kept in memory only (tests). */
  static memory(options: StoreOptions = {}): FragmentStore {
    const store = new FragmentStore('', undefined, options);
    store.records = new Map();
    return store;
  }

  /** The project's store, or an empty one when there is none or it cannot be read. */
  static open(root: string, options: StoreOptions = {}): FragmentStore {
    const store = new FragmentStore(root, join(root, STORE_DIR), options);
    try {
      const sealed = unsealed(readFileSync(join(root, STORE_DIR, INDEX_FILE)));
      const index = sealed && decodeIndex(sealed);
      if (index?.format !== STORE_FORMAT || index.root !== root) return store;
      store.stored = index;
      store.last = index.last;
      store.clock = index.clock;
      store.writers = index.writers ?? [];
      store.shardStamps = index.shardStamps ?? [];
    } catch {
      // none, or unreadable: an empty store
    }
    return store;
  }

  /**
   * The listing without its files, read as it lies (a build that finds nothing changed looks at its
   * folders alone and at the files' stamps on the columns: no object per file).
   */
  get listingHead(): Omit<Listing, 'tasks'> | undefined {
    if (this.madeListing || !this.stored?.listing) return this.madeListing;
    const {
      paths: _p,
      types: _t,
      names: _n,
      dirs: _d,
      langs: _l,
      bundles: _b,
      ...head
    } = this.stored.listing;
    return head;
  }

  /** The content files the last build read (load.ts), with what they were listed with. */
  get listing(): Listing | undefined {
    if (!this.madeListing && this.stored?.listing) {
      this.madeFrom = this.stored.listing;
      const { paths, types, names, dirs, langs, bundles, ...listing } = this.stored.listing;
      const bundled = new Set(bundles);
      const under = underRoot(this.root);
      this.madeListing = {
        ...listing,
        tasks: paths.map((path, i) => {
          const lang = LANGUAGES[(langs[i] ?? 0) - 1];
          return {
            path,
            absolute: under(path),
            location: {
              type: CONTENT_TYPES[types[i] ?? 0] as ContentType,
              name: names[i] ?? '',
              dir: dirs[i] ?? '',
              ...(lang ? { lang } : {}),
              ...(bundled.has(i) && { bundle: true as const }),
            },
          };
        }),
      };
    }
    return this.madeListing;
  }

  set listing(listing: Listing | undefined) {
    // The file records are made from the index as read before it is let go.
    const files = this.files;
    this.madeListing = listing;
    this.madeFrom = undefined;
    this.madeFiles = files;
    this.stored = undefined;
  }

  /** What the store knows of each content file, by path. */
  get files(): Map<string, FileRecord> {
    if (!this.madeFiles) {
      this.madeFiles = new Map();
      const index = this.stored;
      const tasks = this.listing?.tasks ?? [];
      if (index?.listing) {
        const f = index.files;
        tasks.forEach((task, i) => {
          const hash = f.hash[i];
          if (!hash) return; // a file the last build could not read
          const item = f.item[i];
          this.madeFiles?.set(task.path, {
            stamp: {
              size: f.size[i] ?? 0,
              mtimeMs: f.mtime[i] ?? 0,
              ctimeMs: f.ctime[i] ?? 0,
              ino: f.ino[i] ?? 0,
            },
            racy: f.racy[i] === 1,
            hash,
            item: item || `${task.location.type}/${task.location.name}`,
          });
        });
      }
    }
    return this.madeFiles;
  }

  set files(files: Map<string, FileRecord>) {
    this.madeFiles = files;
  }

  /**
   * Whether every content file the listing holds is as the store knows it (its stamp, and for one
   * changed too recently to trust its stamp, its text): worked out on the index as read,
   * without making an object per file (a build that finds nothing changed looks at nothing else).
   * When one is not, the stamps it took up to it, for the build that follows (stampsOf).
   */
  filesAsKept(maxFileBytes: number, bodies: boolean): { kept: boolean; stamps?: StampsTaken } {
    const index = this.stored;
    if (!index?.listing) {
      const listing = this.listing;
      if (!listing) return { kept: false };
      const files = this.files;
      if (files.size !== listing.tasks.length) return { kept: false };
      const taken: StampsTaken = { of: listing, at: Date.now(), stamps: [] };
      const kept = listing.tasks.every((task, i) => {
        const record = files.get(task.path);
        const stamp = statStamp(task.absolute);
        taken.stamps[i] = stamp;
        if (!record || !stamp || !sameStamp(stamp, record.stamp)) return false;
        return !record.racy || fileHash(task.absolute, maxFileBytes, bodies) === record.hash;
      });
      return kept ? { kept } : { kept, stamps: taken };
    }
    const { paths } = index.listing;
    const f = index.files;
    const at = Date.now();
    const taken: StampsTaken = { of: index.listing, at, stamps: [] };
    const under = underRoot(this.root);
    for (let i = 0; i < paths.length; i++) {
      const absolute = under(paths[i] as string);
      const stamp = statStamp(absolute);
      taken.stamps[i] = stamp;
      if (
        !stamp ||
        !f.hash[i] ||
        stamp.size !== f.size[i] ||
        stamp.mtimeMs !== f.mtime[i] ||
        stamp.ctimeMs !== f.ctime[i] ||
        stamp.ino !== f.ino[i]
      )
        return { kept: false, stamps: taken };
      if (f.racy[i] !== 1) continue;
      if (fileHash(absolute, maxFileBytes, bodies) !== f.hash[i]) return { kept: false, stamps: taken };
      // Its content checked, and its stamp now old enough to vouch for it from here on.
      if (Math.max(stamp.mtimeMs, stamp.ctimeMs) <= at - this.racyMs) {
        f.racy[i] = 0;
        this.indexDirty = true;
      }
    }
    return { kept: true };
  }

  /**
   * The ids of the items the last build that saved published, in index order, as it wrote them: for a
   * build in another process to move its changed items in, rather than sort them all (item-order.ts
   * orderFrom checks that they are in order still). Undefined when there is none.
   */
  storedOrder(): string[] | undefined {
    if (!this.dir) return undefined;
    try {
      const text = readFileSync(join(this.dir, ORDER_FILE), 'utf8');
      return text === '' ? [] : text.split('\n');
    } catch {
      return undefined;
    }
  }

  /** The order last written to ORDER_FILE, by this process. */
  private savedOrder: ItemOrder<ItemRecord> | undefined;

  /**
   * Stamps filesAsKept took, by the place of each file in `listing`, when they were taken of it: the
   * build that follows a check that found a file changed looks at the others by these, not by taking
   * them again (an edit late in the listing had every file's stamp taken twice: some 100 ms at 10,000
   * items).
   */
  stampsOf(listing: Listing, taken: StampsTaken): ((i: number) => Stamp | undefined) | undefined {
    const looked = listing === this.madeListing ? (this.madeFrom ?? listing) : listing;
    return taken.of === looked ? (i) => taken.stamps[i] : undefined;
  }

  /** The index's listing as read, which `madeListing` was made from. */
  private madeFrom: object | undefined;

  /** Every item's record, by item id (read from disk when first asked). */
  get items(): Map<string, ItemRecord> {
    this.records ??= this.readRecords();
    return this.records;
  }

  /**
   * Reads from disk now what a build asks for first (the listing, the files, every item's record),
   * when the process has time to spare: dev's first save after a start otherwise decoded them all.
   */
  warm(): void {
    void this.listing;
    void this.files;
    void this.items;
  }

  /**
   * The digest of what every item's key was made with besides its files (the build's context and list
   * pages): a build with the same that knows which files changed (dev's watcher, or every stamp
   * looked at) takes the other items' keys from their records instead of hashing their files again.
   * The last build's that learned in this process; else the one every shard holding a record was
   * written under (each shard's header names it: a save cut short leaves shards of two builds, and
   * then none), when each of those shards is the one the index names (`writers`). Asked of a store read
   * from disk, it reads every record.
   */
  get keyBase(): string | undefined {
    if (this.learned) return this.learnedBase;
    void this.items;
    return this.shardBases.size === 1 && !this.strangers ? [...this.shardBases][0] : undefined;
  }

  private learned = false;
  private learnedBase: string | undefined;

  /**
   * What the builds since the last one that learned were told changed (they failed before learning):
   * their files, or 'all' when one of them was told nothing (it may have listed files the store has
   * never seen). None while the last build with the store learned.
   */
  private unlearned: ReadonlySet<string> | 'all' | undefined;

  /**
   * The files a build told that `changed` changed since the last build with this store may take for
   * the only ones changed since the store's records: those, and the ones named to the builds since the
   * last that learned. A build that fails before its items learns nothing, so a save after a save that
   * failed (a YAML mistake, a new file that clashes) must look at both; undefined (look at every file)
   * when a build since was told nothing. Each build asks once, before it reads anything.
   */
  changedSince(changed: ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
    const before = this.unlearned;
    const since =
      !changed || before === 'all' ? undefined : before ? new Set([...before, ...changed]) : changed;
    this.unlearned = since ?? 'all';
    return since;
  }

  /**
   * A build found every file as the records have it (nothing changed): what the builds before it were
   * told no longer counts.
   */
  upToDate(): void {
    this.unlearned = undefined;
  }
  /** The key bases the shards read were written under ('' for a shard that names none). */
  private shardBases = new Set<string>();

  /**
   * What a build read and made: its listing, its files and its items. Records that are not the ones
   * the store holds go to disk at the next save.
   */
  learn(
    listing: Listing,
    /**
     * Every listed file's record, or (`patch`, with `patched.files`) the records of the files at those
     * places, written over the store's own (`undefined`: the file has none now).
     */
    learned: Map<string, FileRecord> | { patch: ReadonlyMap<string, FileRecord | undefined> },
    records: Map<string, ItemRecord>,
    keyBase?: string,
    walk?: Walk,
    /**
     * What can differ from what the store holds, when the build knows (a save patched into the last
     * build's walks): the files at these places of the listing, the items of these ids; every other
     * record is the store's own.
     */
    patched?: { files?: readonly number[]; items?: readonly string[] },
    /** The build's clock (ms). */
    nowMs?: number,
  ): void {
    if (nowMs !== undefined && (this.clock === undefined || nowMs > this.clock)) {
      this.clock = nowMs;
      this.indexDirty = true;
    }
    this.learned = true;
    this.learnedBase = keyBase;
    this.learnedSinceLast = true;
    this.unlearned = undefined;
    const previous = this.items;
    if (patched?.items && records.size === previous.size) {
      for (const id of patched.items) if (previous.get(id) !== records.get(id)) this.dirty.add(shardOf(id));
    } else {
      for (const [id, record] of records) if (previous.get(id) !== record) this.dirty.add(shardOf(id));
      for (const id of previous.keys()) if (!records.has(id)) this.dirty.add(shardOf(id));
    }
    this.records = records;
    const tasks = listing.tasks;
    const places = listing === this.listing ? patched?.files : undefined;
    let files: Map<string, FileRecord>;
    if ('patch' in learned && places) {
      // Written over the store's own map, not a copy of it (25,900 records at 10,000 items, 10–20 ms of a
      // save), and only after the index's columns took the same records from it.
      const { patch } = learned;
      files = this.files;
      if (![...patch].every(([path, record]) => files.get(path) === record)) {
        this.indexDirty = true;
        if (!this.patchColumns(patch, places)) this.listing = listing;
      }
      writePatch(files, patch);
    } else {
      files = 'patch' in learned ? writePatch(new Map(this.files), learned.patch) : learned;
      const same = places
        ? files.size === this.files.size &&
          places.every((i) => files.get(tasks[i]?.path ?? '') === this.files.get(tasks[i]?.path ?? ''))
        : listing === this.listing && sameFiles(files, this.files);
      if (!same) {
        this.indexDirty = true;
        // The listing made from the index as read, and the same again: its columns are kept, and only
        // the files whose records changed are written into them (an edit at 10,000 items made all
        // 25,900 rows of every column again).
        if (listing !== this.listing || !this.patchColumns(files, places)) this.listing = listing;
      }
    }
    this.files = files;
    this.walked = walk && { walk, listing, files, records };
  }

  private walked:
    | { walk: Walk; listing: Listing; files: Map<string, FileRecord>; records: Map<string, ItemRecord> }
    | undefined;

  /**
   * The walks of the last build that learned, in this process, when it listed `listing` and the store
   * still holds the files and items it learned then (nothing replaced them since).
   */
  walk(listing: Listing): Walk | undefined {
    const walked = this.walked;
    if (!walked || walked.listing !== listing) return undefined;
    return walked.files === this.madeFiles && walked.records === this.records ? walked.walk : undefined;
  }

  /** Marks the index (files, listing, last build) as changed. */
  touch(): void {
    this.indexDirty = true;
  }

  /**
   * Writes what changed since the store was read: each file whole or not at all (a rename). One save at
   * a time (dev saves when idle, and a save may still be writing when the next is asked for): a save
   * that finished after a later one would leave a shard with the older records, which the later
   * one's now read their entries from.
   */
  save(): Promise<void> {
    const saved = this.saving.then(() => this.saveNow());
    this.saving = saved.catch(() => undefined);
    return saved;
  }

  private saving: Promise<void> = Promise.resolve();

  /**
   * Begins a save no one waits for here: a build from nothing saves its store while its output is
   * written, where it waited for it after (some 0.5 s of 8 at 10,000 items). A failed save is as a
   * failed `save()` after a build: the next build does the work again.
   */
  saveBehind(): void {
    void this.save().catch(() => undefined);
  }

  /** Resolves once every save begun has ended, however it ended. */
  settled(): Promise<void> {
    return this.saving;
  }

  private async saveNow(): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    const records = this.records;
    if (records && this.dirty.size > 0) {
      const byShard = new Map<number, [string, ItemRecord][]>([...this.dirty].map((shard) => [shard, []]));
      for (const [id, record] of records) byShard.get(shardOf(id))?.push([id, record]);
      // The key base these records were keyed under, and this save, named in each shard's header.
      const base = this.keyBase;
      const writer = randomBytes(6).toString('base64url');
      for (const [shard, kept] of byShard) {
        const items: string[] = [];
        const rows: (string | BytePiece)[] = [];
        const entries: string[] = [];
        for (const [id, record] of kept) {
          encodeRecord(id, record, items, rows);
          const entry = record.entry && this.entryText(record);
          if (entry) entries.push(`${JSON.stringify([id, record.entryKey()])}\t${entry}\n`);
        }
        const sections = [items, rows, entries].map((parts) => parts.reduce((n, p) => n + pieceLength(p), 0));
        // The rows are not sealed here: each item's are checked by their digest when read (KeptRows).
        const seals = [sealOf(items), sealOf(entries)];
        const header = `${[...sections, base || '-', writer, ...seals].join(' ')}\n`;
        const file = join(this.dir, shardFile(shard));
        // Read before the file they are in is replaced; then they are in the new one, at these places.
        const moved: [StoredBytes, number][] = [];
        let at = Buffer.byteLength(header) + (sections[0] ?? 0);
        for (const part of rows) {
          if (part instanceof StoredBytes) moved.push([part, at]);
          at += pieceLength(part);
        }
        await writeAtomically(this.writePieces, file, [header, ...items, ...rows, ...entries]);
        // Written: no longer to write, unless a build learned meanwhile (then its records may be newer
        // than the ones written, and the next save writes the shard again). A shard whose write failed
        // stays to write: the index is never written over records older than its own files.
        this.writers[shard] = writer;
        this.shardStamps[shard] = statStamp(file) ?? null;
        if (this.records === records) this.dirty.delete(shard);
        // Entries still read from the file just replaced are now in memory (entryText above): let it go,
        // and hold the new one for the D1 rows and the entries left in it.
        const open = this.shards.get(shard);
        this.shards.delete(shard);
        this.entries.delete(shard);
        if (moved.length > 0 || entries.length > 0) {
          const fd = openSync(file, 'r');
          for (const [bytes, position] of moved) {
            bytes.fd = fd;
            bytes.position = position;
          }
          this.shards.set(shard, { fd, at: at, bytes: sections[2] ?? 0, seal: seals[1] as string });
          // An entry's JSON made by this build is let go, read back from the file when asked again:
          // dev keeps its store for as long as it runs, and a build from nothing makes them all.
          for (const [id, record] of kept) {
            if (!record.entry) continue;
            const key = record.entryKey();
            this.raw.set(record, () => this.storedEntry(shard, id, key));
            delete record.entryJson;
          }
        }
        if (open) this.retire(open.fd);
      }
    }
    // Closed at once (its space given back): a row is read where its place says when it is read, and
    // every place it gave now names a shard.
    if (this.spool?.moved) {
      this.spool.close();
      this.spool = undefined;
    }
    const order = this.order;
    if (order && order !== this.savedOrder) {
      await writeAtomically(this.writePieces, join(this.dir, ORDER_FILE), [order.ids.join('\n')]);
      this.savedOrder = order;
    }
    // The index holds the files of the last build that learned: written only when the records of that
    // build are all in their shards (none learned since this save began), so that a store read back
    // never has files newer than their items' records, whose keys a build takes without hashing.
    if (this.indexDirty && this.records === records) {
      const index = this.stored ?? this.columns();
      this.indexDirty = false;
      await writeAtomically(
        this.writePieces,
        join(this.dir, INDEX_FILE),
        sealed(
          encodeIndex({
            ...index,
            last: this.lastWritten,
            clock: this.clock,
            writers: this.writers,
            shardStamps: this.shardStamps,
          }),
        ),
      ).catch((error: unknown) => {
        this.indexDirty = true;
        throw error;
      });
      // The index as JSON, before format 8 (4.3 MB at 10,000 items), would otherwise stay for good.
      await rm(join(this.dir, 'index.json'), { force: true });
    }
  }

  /**
   * Writes into the index as read the records of `files` that are not the ones it holds, when its
   * listing is the store's; false when there is no index as read to write into.
   */
  private patchColumns(
    files: ReadonlyMap<string, FileRecord | undefined>,
    places?: readonly number[],
  ): boolean {
    const index = this.stored;
    const tasks = this.madeListing?.tasks;
    if (!index?.listing || !tasks || tasks.length !== index.listing.paths.length) return false;
    const before = this.files;
    for (const i of places ?? tasks.keys()) {
      const task = tasks[i];
      if (!task) continue;
      const record = files.get(task.path);
      if (record !== before.get(task.path)) setColumns(index.files, i, task.location, record);
    }
    return true;
  }

  /** The index as it is written: the listing's tasks and the file records as columns. */
  private columns(): StoredIndex {
    const listing = this.listing;
    const tasks = listing?.tasks ?? [];
    const files = this.files;
    const f = emptyColumns(tasks.length);
    tasks.forEach(({ path, location }, i) => {
      setColumns(f, i, location, files.get(path));
    });
    return {
      format: STORE_FORMAT,
      root: this.root,
      ...(listing && {
        listing: {
          key: listing.key,
          problems: listing.problems,
          warnings: listing.warnings,
          links: listing.links,
          branches: listing.branches,
          folders: listing.folders,
          at: listing.at,
          paths: tasks.map((t) => t.path),
          types: Uint8Array.from(tasks, (t) => CONTENT_TYPES.indexOf(t.location.type)),
          names: tasks.map((t) => t.location.name),
          dirs: tasks.map((t) => t.location.dir),
          langs: Uint8Array.from(tasks, (t) => languageCode(t.location.lang)),
          bundles: tasks.flatMap((t, i) => (t.location.bundle ? [i] : [])),
        },
      }),
      files: f,
      last: this.last,
    };
  }

  private readRecords(): Map<string, ItemRecord> {
    this.assertOpen();
    const records = new Map<string, ItemRecord>();
    if (!this.dir || this.files.size === 0) return records;
    for (let shard = 0; shard < SHARDS; shard++) {
      let fd: number;
      try {
        fd = openSync(join(this.dir, shardFile(shard)), 'r');
      } catch {
        continue;
      }
      try {
        // `<items> <rows> <entries> <key base> <writer> <items seal> <entries seal>` (the sections' sizes
        // in bytes, the digest its records were keyed under or `-`, the save that wrote it, the seals of
        // two sections), then the items: each record's line and its texts, read and decoded whole; the
        // D1 rows, left in the file; the entries, when asked.
        const head = Buffer.alloc(256);
        const read = readSync(fd, head, 0, head.length, 0);
        const newline = head.subarray(0, read).indexOf(10);
        const fields = head.toString('latin1', 0, Math.max(newline, 0)).split(' ');
        const sizes = fields.slice(0, 3).map(Number);
        const [itemsBytes = Number.NaN, rowsBytes = Number.NaN, entriesBytes = Number.NaN] = sizes;
        if (newline < 0 || fields.length !== 7 || !sizes.every(Number.isSafeInteger))
          throw new Error('no header');
        // Its rows are read only when an import is written: a file cut short is found here, not then.
        const rowsAt = newline + 1 + itemsBytes;
        const stats = fstatSync(fd);
        if (stats.size !== rowsAt + rowsBytes + entriesBytes) throw new Error('truncated');
        // As the save that wrote it left it (its stamp, which the index recorded): its D1 rows are taken
        // as written. Otherwise each item's are checked by their digest before they are read (KeptRows).
        const recorded = this.shardStamps[shard];
        const vouched = recorded != null && sameStamp(stampOf(stats), recorded);
        const file = { fd, at: rowsAt + rowsBytes, bytes: entriesBytes, seal: fields[6] ?? '' };
        this.shards.set(shard, file);
        const bytes = Buffer.allocUnsafe(itemsBytes);
        readAll(fd, bytes, 0, itemsBytes, newline + 1);
        // A text changed in place would be published as it reads (an llms.txt line, an item's JSON).
        if (sealOf([bytes]) !== fields[5]) throw new Error('damaged');
        const items = new ShardReader(bytes.toString('utf8'), fd, rowsAt, rowsAt + rowsBytes, vouched);
        const decoded = decodeShard(items, records, (id, entryKey) => this.storedEntry(shard, id, entryKey));
        // A shard that holds no record keys nothing: its base (of whichever build emptied it) says nothing.
        if (decoded.length > 0) {
          this.shardBases.add(fields[3] === '-' ? '' : (fields[3] ?? ''));
          if (fields[4] !== this.writers[shard]) this.strangers = true;
        }
        for (const id of decoded) {
          const record = records.get(id);
          if (record?.entry) this.raw.set(record, () => this.storedEntry(shard, id, record.entryKey()));
        }
      } catch {
        // A damaged shard: its items are made again (and the shard written whole).
        for (const id of [...records.keys()]) if (shardOf(id) === shard) records.delete(id);
        this.shards.delete(shard);
        closeSync(fd);
        this.dirty.add(shard);
      }
    }
    return records;
  }

  /** Entries read back from a shard's file, by item id: [its entry key, its JSON]. */
  private entries = new Map<number, Map<string, [string, string]>>();
  /**
   * Shard files whose entries may still be read, and whose D1 rows are read where they are (kept
   * open: stored-bytes.ts). A file replaced by save() is closed only RETIRED_FILES replacements later:
   * the rows of an item replaced since may still be on their way into an import being written (dev
   * writes one build's /mcp data while the next is built), and a closed number can be another file's.
   */
  private shards = new Map<number, { fd: number; at: number; bytes: number; seal: string }>();
  private retired: number[] = [];
  /** This build's bodies' D1 rows, until a save has moved them all into the shards (row-spool.ts). */
  private spool: RowSpool | undefined;

  /**
   * Where a build's new D1 rows wait for the import and the save; none for a store kept in memory, or
   * when its file cannot be made.
   */
  rowSpool(): RowSpool | undefined {
    this.assertOpen();
    if (!this.dir) return undefined;
    this.spool ??= RowSpool.open(this.dir);
    return this.spool;
  }

  /** The bodies a large site's parse put aside until its items' MCP shares read them (parse-cache.ts spoolBody). */
  private bodies: RowSpool | undefined;

  /** Where a parse of many files puts their bodies; none for a store kept in memory, or when its file cannot be made. */
  bodySpool(): RowSpool | undefined {
    this.assertOpen();
    if (!this.dir) return undefined;
    this.bodies ??= RowSpool.open(this.dir, 'bodies');
    return this.bodies;
  }

  private closed = false;

  /**
   * Closes the shard files it holds open. Nothing may be read from it afterwards: what still points
   * into its files (a build's D1 import in pieces) must be let go first (leaseStore).
   */
  close(): void {
    this.closed = true;
    for (const { fd } of this.shards.values()) closeSync(fd);
    for (const fd of this.retired) closeSync(fd);
    this.spool?.close();
    this.spool = undefined;
    this.bodies?.close();
    this.bodies = undefined;
    this.shards.clear();
    this.retired = [];
    this.entries.clear();
  }

  /**
   * Forgets all it read from its files (StoreDamage: bytes of them are not what it wrote) and is again
   * a store that found no index: the next build makes every item, and its save writes every shard it
   * fills. `removeIndex`: the index file goes too, so that no build reads the damaged files again.
   */
  discard(removeIndex: boolean): void {
    this.close();
    if (removeIndex && this.dir) rmSync(join(this.dir, INDEX_FILE), { force: true });
    const fresh = new FragmentStore(this.root, this.dir, {
      racyMs: this.racyMs,
      writePieces: this.writePieces,
    });
    if (!this.dir) fresh.records = new Map();
    Object.assign(this, fresh);
  }

  private assertOpen(): void {
    if (this.closed)
      throw new Error('the item store was closed (a later build of the project opened its own)');
  }

  private retire(fd: number): void {
    this.retired.push(fd);
    while (this.retired.length > RETIRED_FILES) closeSync(this.retired.shift() as number);
  }
  /**
   * The JSON of each record's entry as the store holds it (entry-form.ts), for records read from disk or
   * written there.
   */
  private raw = new WeakMap<ItemRecord, () => string>();

  /**
   * A record's entry as JSON: from the store's file when it is there, else made now, without its bodies
   * when its D1 rows hold them.
   */
  private entryText(record: ItemRecord): string {
    const raw = this.raw.get(record);
    if (raw) return raw();
    const entry = record.entry?.();
    const rows = record.fragments?.d1;
    if (entry && rows && record.entryJson && rows.bodies.length === bodyCount(entry))
      return record.entryJson();
    return JSON.stringify(entry);
  }

  private storedEntry(shard: number, id: string, entryKey: string): string {
    this.assertOpen();
    let entries = this.entries.get(shard);
    if (!entries) {
      entries = new Map();
      const file = this.shards.get(shard);
      if (file) {
        const bytes = Buffer.allocUnsafe(file.bytes);
        readSync(file.fd, bytes, 0, bytes.length, file.at);
        // Read only when an entry is asked for (its records' outputs made again), long after the shard's
        // records were taken: the build cannot drop them any more, and is run again without the store.
        if (sealOf([bytes]) !== file.seal) throw new StoreDamage(`the entries of ${shardFile(shard)}`);
        for (const line of bytes.toString('utf8').split('\n')) {
          const tab = line.indexOf('\t');
          if (tab < 0) continue;
          const [key, kept] = JSON.parse(line.slice(0, tab)) as [string, string];
          entries.set(key, [kept, line.slice(tab + 1)]);
        }
      }
      this.entries.set(shard, entries);
    }
    const found = entries.get(id);
    // The shard is read from one open file: its entries are those of its items.
    if (!found || found[0] !== entryKey) throw new Error(`the item store has no entry for ${id}`);
    return found[1];
  }
}

/** File `i`'s row of the index's columns. */
function setColumns(
  f: StoredIndex['files'],
  i: number,
  location: Listing['tasks'][number]['location'],
  record: FileRecord | undefined,
): void {
  f.size[i] = record?.stamp.size ?? 0;
  f.mtime[i] = record?.stamp.mtimeMs ?? 0;
  f.ctime[i] = record?.stamp.ctimeMs ?? 0;
  f.ino[i] = record?.stamp.ino ?? 0;
  f.racy[i] = record?.racy ? 1 : 0;
  f.hash[i] = record?.hash ?? '';
  // Only an item other than its file's type and name (a translationKey) is written.
  f.item[i] = !record || record.item === `${location.type}/${location.name}` ? 0 : record.item;
}

/** `files` with `patch` written over them (a file whose record is `undefined` has none). */
function writePatch(
  files: Map<string, FileRecord>,
  patch: ReadonlyMap<string, FileRecord | undefined>,
): Map<string, FileRecord> {
  for (const [path, record] of patch) {
    if (record) files.set(path, record);
    else files.delete(path);
  }
  return files;
}

function sameFiles(a: ReadonlyMap<string, FileRecord>, b: ReadonlyMap<string, FileRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, record] of a) if (b.get(path) !== record) return false;
  return true;
}

/** The index's form: the listing's tasks and each one's file record as columns (fast to read back). */
interface StoredIndex {
  format: number;
  /** The project the paths are relative to: a store copied elsewhere is not read. */
  root: string;
  /** FragmentStore.clock. */
  clock?: number;
  /** The save that wrote each shard, as the save that wrote this index knows (FragmentStore.writers). */
  writers?: string[];
  /** Each shard file's stamp as that save left it (FragmentStore.shardStamps). */
  shardStamps?: (Stamp | null)[];
  listing?: Omit<Listing, 'tasks'> & {
    paths: string[];
    /** Each task's index in CONTENT_TYPES. */
    types: Uint8Array;
    names: string[];
    dirs: string[];
    /** Each task's language (languageCode), 0 for none. */
    langs: Uint8Array;
    /** The tasks that are a page bundle's page. */
    bundles: number[];
  };
  /** '' for a file with no record (its hash), 0 for an item its type and name make (its item). */
  files: {
    size: Float64Array;
    mtime: Float64Array;
    ctime: Float64Array;
    ino: Float64Array;
    racy: Uint8Array;
    hash: string[];
    item: (string | 0)[];
  };
  last: LastBuild | undefined;
}

function emptyColumns(n: number): StoredIndex['files'] {
  const numbers = new Float64Array(4 * n);
  return {
    size: numbers.subarray(0, n),
    mtime: numbers.subarray(n, 2 * n),
    ctime: numbers.subarray(2 * n, 3 * n),
    ino: numbers.subarray(3 * n, 4 * n),
    racy: new Uint8Array(n),
    hash: new Array<string>(n).fill(''),
    item: new Array<string | 0>(n).fill(0),
  };
}

function languageCode(lang: Language | undefined): number {
  return lang === undefined ? 0 : LANGUAGES.indexOf(lang) + 1;
}

/**
 * The index as written: a line of JSON (all but the columns of one value per file, the items apart),
 * then the stamps' four columns as 64-bit floats, the racy, type and language columns as bytes, and
 * the paths, names, folders and hashes as text, separated by NUL (which no path holds). At 10,000
 * items it was 4.3 MB of JSON, parsed at every build and written at every edit.
 */
interface IndexHead extends Omit<StoredIndex, 'listing' | 'files'> {
  listing?: Omit<NonNullable<StoredIndex['listing']>, 'paths' | 'types' | 'names' | 'dirs' | 'langs'>;
  item: (string | 0)[];
  /** Files, and the bytes of their texts. */
  n: number;
  text: number;
}

function encodeIndex(index: StoredIndex): (string | Uint8Array)[] {
  const f = index.files;
  const n = f.size.length;
  const head: IndexHead = {
    format: index.format,
    root: index.root,
    item: f.item,
    last: index.last,
    clock: index.clock,
    writers: index.writers,
    shardStamps: index.shardStamps,
    n,
    text: 0,
  };
  let texts: string[] = [];
  const bytes = new Uint8Array(3 * n);
  if (index.listing) {
    const { paths, types, names, dirs, langs, ...listing } = index.listing;
    head.listing = listing;
    texts = [...paths, ...names, ...dirs];
    bytes.set(types, n);
    bytes.set(langs, 2 * n);
  }
  const text = [...texts, ...f.hash].join('\0');
  head.text = Buffer.byteLength(text);
  const numbers = new Float64Array(4 * n);
  [f.size, f.mtime, f.ctime, f.ino].forEach((column, k) => {
    numbers.set(column, k * n);
  });
  bytes.set(f.racy, 0);
  return [`${JSON.stringify(head)}\n`, new Uint8Array(numbers.buffer), bytes, text];
}

function decodeIndex(file: Buffer): StoredIndex | undefined {
  const newline = file.indexOf(10);
  if (newline < 0) return undefined;
  const head = JSON.parse(file.toString('utf8', 0, newline)) as IndexHead;
  const { n, text, item, listing, ...rest } = head;
  const at = newline + 1;
  if (!Number.isSafeInteger(n) || item.length !== n || file.length !== at + 35 * n + text) return undefined;
  const f = emptyColumns(n);
  // Copied out: a Float64Array needs its bytes aligned, which the file's buffer does not promise.
  const numbers = new Float64Array(4 * n);
  new Uint8Array(numbers.buffer).set(file.subarray(at, at + 32 * n));
  f.size = numbers.subarray(0, n);
  f.mtime = numbers.subarray(n, 2 * n);
  f.ctime = numbers.subarray(2 * n, 3 * n);
  f.ino = numbers.subarray(3 * n, 4 * n);
  const bytes = file.subarray(at + 32 * n, at + 35 * n);
  f.racy = Uint8Array.from(bytes.subarray(0, n));
  f.item = item;
  const texts = n === 0 ? [] : file.toString('utf8', at + 35 * n).split('\0');
  if (texts.length !== 4 * n) return undefined;
  f.hash = texts.slice(3 * n);
  return {
    ...rest,
    ...(listing && {
      listing: {
        ...listing,
        paths: texts.slice(0, n),
        names: texts.slice(n, 2 * n),
        dirs: texts.slice(2 * n, 3 * n),
        types: Uint8Array.from(bytes.subarray(n, 2 * n)),
        langs: Uint8Array.from(bytes.subarray(2 * n, 3 * n)),
      },
    }),
    files: f,
  };
}

/**
 * What a record keeps besides its texts, as JSON. Its texts follow it in the items section, their
 * lengths in UTF-16 units in `n`; its D1 rows are in the rows section, their lengths in bytes in `r`.
 */
interface RecordMeta {
  id: string;
  s: string;
  e: string;
  c?: number;
  l?: LeftOut[];
  w?: Problem[];
  f?: StoredFacts;
  /** The versions whose item texts follow, then the languages whose llms.txt lines follow. */
  v?: string[];
  g?: Language[];
  /** With the embedded share: its type, languages and technologies (its line and postings follow). */
  m?: [type: number, languages: number, technologies: string[]];
  /**
   * With the D1 rows: how many translation, technology and body rows (item, search, those, the terms
   * follow), and the rows' digest (mcp-output.ts d1Generation; STORE_FORMAT goes up if it changes).
   */
  d?: [translations: number, technologies: number, bodies: number, digest?: string];
  z?: ItemFragments['size'];
  /** It has an entry (kept in the shard's entries section, its bodies in its D1 rows: entry-form.ts). */
  x?: 1;
  n: number[];
  r: number[];
}

function encodeRecord(
  id: string,
  record: ItemRecord,
  /** The shard's items section: the record's line, then its texts, each measured in UTF-16 units. */
  items: string[],
  /** The shard's rows section: its D1 rows, each measured in bytes. */
  rows: (string | BytePiece)[],
): void {
  const texts: string[] = [];
  const kept: (string | BytePiece)[] = [];
  const meta: RecordMeta = { id, s: record.sources, e: record.entryKey(), n: [], r: [] };
  if (record.changesAt !== undefined) meta.c = record.changesAt;
  if (record.leftOut.length > 0) meta.l = record.leftOut;
  if (record.warnings.length > 0) meta.w = record.warnings;
  if (record.entry) meta.x = 1;
  const f = record.fragments;
  if (f) {
    meta.f = storedFacts(f.facts);
    meta.v = Object.keys(f.versions);
    for (const version of meta.v) texts.push(f.versions[version] as string);
    meta.g = (Object.keys(f.llms) as Language[]).filter((lang) => f.llms[lang] !== undefined);
    for (const lang of meta.g) texts.push(f.llms[lang] as string);
    if (f.embedded) {
      meta.m = [f.embedded.type, f.embedded.languages, f.embedded.technologies];
      texts.push(f.embedded.line, JSON.stringify(f.embedded.postings), f.embedded.bodies);
    }
    if (f.d1) {
      meta.d = [f.d1.translations.length, f.d1.technologies.length, f.d1.bodies.length];
      if (f.d1.digest !== undefined) meta.d.push(f.d1.digest);
      kept.push(
        asPiece(f.d1.item),
        asPiece(f.d1.search),
        ...f.d1.translations.map(asPiece),
        ...f.d1.bodies.map(asPiece),
      );
      texts.push(...f.d1.technologies, f.d1.terms);
    }
    if (f.size) meta.z = f.size;
  }
  meta.n = texts.map((text) => text.length);
  meta.r = kept.map(pieceLength);
  items.push(`${JSON.stringify(meta)}\n`, ...texts);
  rows.push(...kept);
}

/**
 * The records of a shard. Its items section is decoded whole, as one string (large: V8 makes it where
 * its young generation never copies it), and each record's texts are slices of it: decoded one by one,
 * at 10,000 items they were 40,000 strings, nearly all of them kept by the build, that every
 * collection of the young generation copied while the records were read. The D1 rows (their bodies
 * alone nine tenths of the file) stay in the file all the way into the import (stored-bytes.ts).
 */
function decodeShard(
  shard: ShardReader,
  records: Map<string, ItemRecord>,
  /** Its entry's JSON, as the shard's entries section holds it. */
  entryText: (id: string, entryKey: string) => string,
): string[] {
  const read: string[] = [];
  while (!shard.done) {
    const meta = JSON.parse(shard.line()) as RecordMeta;
    const texts = new Texts(shard, meta.n, meta.r);
    const record: ItemRecord = {
      sources: meta.s,
      entryKey: constant(meta.e),
      ...(meta.c !== undefined && { changesAt: meta.c }),
      leftOut: meta.l ?? [],
      warnings: meta.w ?? [],
    };
    if (meta.x) {
      const entryOf = storedEntryOf(meta.id, meta.e, record, entryText);
      record.entry = entryOf;
      if (meta.f) record.fragments = decodeFragments(meta, texts, entryOf);
    }
    if (!texts.done) throw new Error('unread texts');
    records.set(meta.id, record);
    read.push(meta.id);
  }
  if (!shard.allRows) throw new Error('unread rows');
  return read;
}

/** A shard's items section as read, and where its rows section lies in its file. */
class ShardReader {
  private at = 0;
  private rowAt: number;

  constructor(
    private readonly items: string,
    private readonly fd: number,
    rowsFrom: number,
    private readonly rowsEnd: number,
    /** The file is as the save that wrote it left it (its stamp): its rows need no check. */
    private readonly vouched = false,
  ) {
    this.rowAt = rowsFrom;
  }

  get done(): boolean {
    return this.at >= this.items.length;
  }

  get allRows(): boolean {
    return this.rowAt === this.rowsEnd;
  }

  /** The text up to the next line break (which is passed). */
  line(): string {
    const end = this.items.indexOf('\n', this.at);
    if (end < 0) throw new Error('truncated');
    const line = this.items.slice(this.at, end);
    this.at = end + 1;
    return line;
  }

  /** The next `length` UTF-16 units: a slice of the section, not a copy. */
  text(length: number): string {
    if (this.at + length > this.items.length) throw new Error('truncated');
    const text = this.items.slice(this.at, this.at + length);
    this.at += length;
    return text;
  }

  /** The next rows of the rows section, of these lengths in bytes, left in the file. */
  rows(lengths: readonly number[]): RowsAt {
    const at = { fd: this.fd, position: this.rowAt, lengths, vouched: this.vouched };
    for (const length of lengths) this.rowAt += length;
    if (this.rowAt > this.rowsEnd) throw new Error('truncated');
    return at;
  }
}

/** Rows one after another in a file, by their lengths in bytes. */
interface RowsAt {
  fd: number;
  position: number;
  lengths: readonly number[];
  vouched: boolean;
}

/**
 * An item's D1 rows as its record keeps them: in the store's file like the bodies, for the import
 * alone, never decoded (some 14 MB of strings at 10,000 items, then encoded again), at the cost of
 * reading them when written. Each row's place (a StoredBytes) is made only when first asked: the
 * import's files of unchanged entries are not made again (mcp-output.ts), and these were 70,000
 * objects at 10,000 items, kept by the build for nothing.
 */
class KeptRows implements D1ItemRows {
  digest?: string;
  #checked: boolean;
  #spans: StoredBytes[] | undefined;
  #translations: StoredBytes[] | undefined;
  #bodies: StoredBytes[] | undefined;

  constructor(
    private readonly at: RowsAt,
    /** How many of the rows after the item's and the search row's are translations (the rest bodies). */
    private readonly translationCount: number,
    readonly technologies: string[],
    readonly terms: string,
  ) {
    this.#checked = at.vouched;
  }

  private get spans(): StoredBytes[] {
    if (!this.#spans) {
      const { fd, lengths } = this.at;
      let position = this.at.position;
      this.#spans = lengths.map((length) => {
        const span = new StoredBytes(fd, position, length);
        position += length;
        return span;
      });
    }
    return this.#spans;
  }

  get item(): StoredBytes {
    return this.spans[0] as StoredBytes;
  }

  get search(): StoredBytes {
    return this.spans[1] as StoredBytes;
  }

  get translations(): StoredBytes[] {
    this.#translations ??= this.spans.slice(2, 2 + this.translationCount);
    return this.#translations;
  }

  get bodies(): StoredBytes[] {
    this.#bodies ??= this.spans.slice(2 + this.translationCount);
    return this.#bodies;
  }

  /** Whether the rows are still to be checked against their digest (checkKeptRows). */
  get unchecked(): boolean {
    return !this.#checked && this.digest !== undefined;
  }

  /**
   * Where the rows lie, when one after another in one file (as a save writes them): read at once then.
   * Undefined when they are not.
   */
  get extent(): { fd: number; start: number; end: number } | undefined {
    const spans = this.spans;
    const first = spans[0];
    if (!first) return undefined;
    let end = first.position;
    for (const span of spans) {
      if (span.fd !== first.fd || span.position !== end) return undefined;
      end += span.length;
    }
    return { fd: first.fd, start: first.position, end };
  }

  /** Checks the rows (their bytes from `bytes`, which holds their extent, or read piece by piece). */
  check(bytes?: Uint8Array): void {
    if (!this.unchecked) return;
    let rows: D1ItemRows<string | Uint8Array | StoredBytes> = this;
    if (bytes) {
      let at = 0;
      const views = this.spans.map((span) => {
        at += span.length;
        return bytes.subarray(at - span.length, at);
      });
      rows = {
        item: views[0] as Uint8Array,
        search: views[1] as Uint8Array,
        translations: views.slice(2, 2 + this.translationCount),
        bodies: views.slice(2 + this.translationCount),
        technologies: this.technologies,
        terms: this.terms,
      };
    }
    if (rowsDigest(rows) !== this.digest) throw new StoreDamage("an item's D1 rows");
    this.#checked = true;
  }
}

/** Rows this close after one another in their file are read in one window, up to CHECK_WINDOW. */
const CHECK_NEAR = 4096;
const CHECK_WINDOW = 1 << 20;

/**
 * Before kept items' D1 rows are read into anything published (an import's file made again, a body
 * read back into its entry): the rows the store's files hold now are the ones it wrote, each item's by
 * the digest made with them, or StoreDamage. Rows made by this build are not read back from the store,
 * and are not checked; nor are those of a shard file its save left as it is (the stamp the index
 * recorded: a change by hand or by a tool gives it another), which spares reading and hashing 140 MB
 * when an item added at the front moves every file of the import at 10,000 items. Neighbours in a file
 * are read together (an item's own rows alone were 10,000 reads then).
 */
export function checkKeptRows(list: readonly D1ItemRows<unknown>[]): void {
  const placed: { rows: KeptRows; fd: number; start: number; end: number }[] = [];
  for (const rows of list) {
    if (!(rows instanceof KeptRows) || !rows.unchecked) continue;
    const extent = rows.extent;
    if (extent) placed.push({ rows, ...extent });
    else rows.check();
  }
  placed.sort((a, b) => a.fd - b.fd || a.start - b.start);
  for (let i = 0; i < placed.length; ) {
    const first = placed[i] as (typeof placed)[number];
    let end = first.end;
    let j = i + 1;
    for (; j < placed.length; j++) {
      const next = placed[j] as (typeof placed)[number];
      if (next.fd !== first.fd || next.start < end || next.start - end > CHECK_NEAR) break;
      if (next.end - first.start > CHECK_WINDOW) break;
      end = next.end;
    }
    if (checking.length < end - first.start)
      checking = Buffer.allocUnsafe(Math.max(end - first.start, CHECK_WINDOW));
    readAll(first.fd, checking, 0, end - first.start, first.start);
    for (const { rows, start, end: stop } of placed.slice(i, j))
      rows.check(checking.subarray(start - first.start, stop - first.start));
    i = j;
  }
}

/** Where kept rows are read to be checked: one buffer, reused (each item hashed and let go at once). */
let checking = Buffer.alloc(0);

/**
 * Bytes of the item store's files that are not what it wrote (a disk's fault, a hand's edit), found
 * after the build took its records: build() drops the store and runs again from the sources alone.
 * What is found as the records are read (a shard's items, the index) drops that much, and no more.
 */
export class StoreDamage extends Error {
  constructor(what: string) {
    super(`${what} in the item store (${STORE_DIR}) are not what it wrote`);
    this.name = 'StoreDamage';
  }
}

function stampOf(stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): Stamp {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/** A seal of what a file holds: a hash of its bytes (a string's as UTF-8, as it is written). */
function sealOf(pieces: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const piece of pieces) hash.update(piece);
  return hash.digest('base64url');
}

/** A file's pieces after a line of their seal. */
function sealed(pieces: readonly (string | Uint8Array)[]): (string | Uint8Array)[] {
  return [`${sealOf(pieces)}\n`, ...pieces];
}

/** What follows a file's seal line when it is what the seal says, else undefined. */
function unsealed(file: Buffer): Buffer | undefined {
  const newline = file.indexOf(10);
  if (newline < 0) return undefined;
  const rest = file.subarray(newline + 1);
  return file.toString('latin1', 0, newline) === sealOf([rest]) ? rest : undefined;
}

/**
 * A record's function that gives back one value. Records' closures are made by module functions: made
 * where a record is built (decodeShard's loop, buildItems), they would share that scope and keep all it
 * holds (the record's whole parsed line; every file a build read) for as long as the build runs.
 */
export function constant<T>(value: T): () => T {
  return () => value;
}

/** An entry read back when first asked, its bodies from the record's D1 rows. */
function storedEntryOf(
  id: string,
  key: string,
  record: ItemRecord,
  entryText: (id: string, entryKey: string) => string,
): () => ContentEntry {
  let entry: ContentEntry | undefined;
  return () => {
    // Its bodies left out or not, as the text the shard holds now says: a later record of the same
    // entry (whose fragments are this one's) may have written it since.
    entry ??= withBodies(entryText(id, key), bodyIn(record));
    return entry;
  };
}

const UTF8 = new TextDecoder();

/** An entry's body `index` (in LANGUAGES order), read back from the record's D1 rows. */
function bodyIn(record: ItemRecord): (index: number, lang: Language) => string {
  return (index, lang) => {
    const rows = record.fragments?.d1;
    if (rows) checkKeptRows([rows]);
    const row = rows?.bodies[index];
    if (row === undefined) throw new Error(`the item store has no body ${index} for an entry`);
    const text = typeof row === 'string' ? row : UTF8.decode(bytesOf(asPiece(row)));
    return d1RowBody(text, lang);
  };
}

/** A record's texts and rows, in the order its line lists their lengths. */
class Texts {
  private k = 0;
  private j = 0;
  constructor(
    private readonly shard: ShardReader,
    private readonly lengths: readonly number[],
    private readonly rowLengths: readonly number[],
  ) {}

  text(): string {
    const n = this.lengths[this.k++];
    if (n === undefined) throw new Error('truncated');
    return this.shard.text(n);
  }

  /** The next `count` rows, where they lie in the file. */
  rows(count: number): RowsAt {
    const lengths = this.rowLengths.slice(this.j, this.j + count);
    if (lengths.length < count) throw new Error('truncated');
    this.j += count;
    return this.shard.rows(lengths);
  }

  get done(): boolean {
    return this.k === this.lengths.length && this.j === this.rowLengths.length;
  }
}

function decodeFragments(meta: RecordMeta, texts: Texts, entryOf: () => ContentEntry): ItemFragments {
  const versions: Record<string, string> = {};
  for (const version of meta.v ?? []) versions[version] = texts.text();
  const llms: ItemFragments['llms'] = {};
  for (const lang of meta.g ?? []) llms[lang] = texts.text();
  const fragments = withMcp(
    { facts: factsOf(meta.f as StoredFacts), versions, llms },
    revivedMcp(entryOf, versions),
  );
  if (meta.m) {
    const [type, languages, technologies] = meta.m;
    const line = texts.text();
    const postings = texts.text();
    const bodies = texts.text();
    let parsed: DocumentPostings | undefined;
    fragments.embedded = {
      line,
      bodies,
      type,
      languages,
      technologies,
      get postings() {
        parsed ??= JSON.parse(postings) as DocumentPostings;
        return parsed;
      },
    } as EmbeddedItem;
  }
  if (meta.d) {
    const [translations, technologies, bodies, digest] = meta.d;
    const names: string[] = [];
    for (let i = 0; i < technologies; i++) names.push(texts.text());
    const d1 = new KeptRows(texts.rows(2 + translations + bodies), translations, names, texts.text());
    if (digest !== undefined) d1.digest = digest;
    fragments.d1 = d1;
  }
  if (meta.z) fragments.size = meta.z;
  return fragments;
}

function revivedMcp(entryOf: () => ContentEntry, versions: Record<string, string>): () => McpItem {
  return () => reviveMcp(entryOf(), versions);
}

/** An item's facts as an array (its keys would be a third of the text, and arrays parse faster). */
type StoredFacts = [
  id: string,
  type: number,
  languages: number,
  title: string,
  url: string,
  urls: string[],
  files: string[],
  file: string,
  date: string | 0,
  newest: string | 0,
  technologies?: string[],
];

function storedFacts(f: ItemFacts): StoredFacts {
  const row: StoredFacts = [
    f.id,
    CONTENT_TYPES.indexOf(f.type),
    LANGUAGES.reduce((bits, lang, i) => (f.languages.includes(lang) ? bits | (1 << i) : bits), 0),
    f.title,
    f.url,
    f.urls,
    f.files,
    f.file,
    f.date ?? 0,
    f.newest ?? 0,
  ];
  if (f.technologies !== undefined) row.push([...f.technologies]);
  return row;
}

function factsOf([
  id,
  type,
  bits,
  title,
  url,
  urls,
  files,
  file,
  date,
  newest,
  technologies,
]: StoredFacts): ItemFacts {
  return {
    id,
    type: CONTENT_TYPES[type] as ContentType,
    languages: LANGUAGES.filter((_, i) => (bits & (1 << i)) !== 0),
    ...(technologies !== undefined && { technologies }),
    ...(date !== 0 && { date }),
    title,
    url,
    urls,
    files,
    ...(newest !== 0 && { newest }),
    file,
  };
}

function shardFile(shard: number): string {
  return `${shard.toString(16).padStart(2, '0')}.items`;
}

/** FNV-1a of the item id: which shard holds it. */
export function shardOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARDS;
}

async function writeAtomically(
  writePieces: WritePieces,
  file: string,
  pieces: readonly (string | BytePiece)[],
): Promise<void> {
  const staging = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Stored bytes go from the file being replaced straight into the new one (stored-bytes.ts).
    await writePieces(staging, pieces);
    await rename(staging, file);
  } catch (error) {
    await rm(staging, { force: true });
    throw error;
  }
}

/**
 * A listed path made absolute by concatenation when it is plainly under the root (`join` normalizes
 * every path again: 19 ms of a 10,000-item build that found nothing changed); one with dot segments
 * (a content folder outside the root) or another separator, by `join` as before.
 */
function underRoot(root: string): (path: string) => string {
  // Listed paths are written with `/`; elsewhere `join` turns them into the platform's separator.
  if (sep !== '/') return (path) => join(root, path);
  const prefix = join(root, '.');
  const base = prefix.endsWith(sep) ? prefix : prefix + sep;
  return (path) =>
    path.startsWith('.') || path.startsWith('/') || path.includes('/.') || path.includes('\\')
      ? join(root, path)
      : base + path;
}

/**
 * The item stores build() opened itself, by project root, with what of its result reads from them. A
 * store keeps its shard files open (a result's D1 import is read from them, in pieces), so the one
 * before is closed when the next build of the same project opens its own: a process that builds in a
 * loop holds one store's files, not one more per build (EMFILE after a few dozen).
 */
const leases = new Map<string, StoreLease>();

export interface StoreLease {
  store?: FragmentStore;
  /** Its build has not returned yet: its store is left open (two builds of one project at once). */
  running: boolean;
  /** Its result's private files' contents, whose stored pieces read from the store. */
  pieces: (string | readonly (string | BytePiece)[])[];
}

/** The project's store for a build that owns it, the store of the project's build before closed. */
export function leaseStore(root: string, lease: StoreLease): FragmentStore {
  const before = leases.get(root);
  if (before?.store && !before.running) {
    // An earlier result's pieces read nothing from here on (a closed number may be reused).
    for (const content of before.pieces)
      if (typeof content !== 'string')
        for (const piece of content) if (piece instanceof StoredBytes) piece.fd = -1;
    before.store.close();
  }
  lease.store = FragmentStore.open(root);
  leases.set(root, lease);
  return lease.store;
}
