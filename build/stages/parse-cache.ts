import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../../package.json' with { type: 'json' };
import { BUNDLED } from '../core/bundled.ts';
import { bodyOfFile } from './parse/body-text.js';
import type { ParsedSource } from './parse/parse-source.js';
import { headHash, readHead, readWhole, sourceHash } from './parse/read-head.js';
import type { RowSpool } from './row-spool.ts';
import { type BytePiece, StoredBytes } from './stored-bytes.ts';

/** Relative to the project root: the tool's private folder (never published). */
export const CACHE_DIR = '.content-index/cache';
/** The parse cache's folder in CACHE_DIR: its files are shards, each holding the files whose path hashes to it. */
const PARSE_DIR = 'parse';
/**
 * An edit rewrites one shard, not the whole cache (at 10,000 items the cache is about 16 MiB of JSON).
 */
const SHARDS = 32;
/**
 * Bumped when the files' layout changes. 3: each entry's body text. 4: sealed shards. 5: a whole file hashed
 * by its bytes (read-head.js sourceHash). 6: whether a file has a body, not its text (see Entry.bodied).
 */
const CACHE_FORMAT = 6;

/**
 * How long after a file's last change its timestamps may still not tell a later change from it. A file
 * system stores times at some granularity (ext4 and APFS nanoseconds, HFS+ a second, FAT two): a file
 * written twice within one tick, at the same size, keeps the same stamp. Like git's "racily clean"
 * index entries, a file whose last change is this close to the moment it was read is checked by its
 * content at the next build, not by its stamp.
 */
export const RACY_MS = 3000;

/** What the file system says about a file, without reading it. */
export interface Stamp {
  size: number;
  mtimeMs: number;
  /** Changed by every write and by every change of the times themselves (`touch -r` cannot set it back). */
  ctimeMs: number;
  ino: number;
}

interface Entry extends Stamp {
  /** Its stamp cannot be trusted (see RACY_MS): the next build reads the file and compares its hash. */
  racy: boolean;
  /** Of the front matter's text (parse-chunk.js headHash), or of the whole file when bodies are read. */
  hash: string;
  outcome: ParsedSource;
  /**
   * Whether the file's body has words. Their text is not kept on disk: the item store keeps every body
   * in its D1 rows, and a build needs a body only for an item it makes again. Written here too, the
   * bodies made a build from nothing encode, seal and write 134 MB more at 10,000 items (1.3 s of its
   * 13); an outcome read back gets its body from the file when asked (`bodyOf`).
   */
  bodied: boolean;
}

/** One file as the cache file stores it: an array, which is a third of the size of an object. */
type StoredEntry = [
  path: string,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  racy: 0 | 1,
  hash: string,
  format: ParsedSource['format'],
  matter: string,
  data: unknown,
  bodied: 1 | null,
];

export interface ParseCacheOptions {
  /** Where its shards are kept (none: in memory only). */
  dir?: string;
  /** Everything the outcomes depend on besides the files: a cache of another identity is not read. */
  identity?: string;
  /**
   * Whether its outcomes hold the files' bodies (`mcp.bodies`; default false). A build of the other
   * kind empties it (useBodies): outcomes without bodies cannot serve a build that searches them, and
   * the hashes are not of the same texts.
   */
  bodies?: boolean;
  /** Tests give a file system whose times lie. */
  stat?: (path: string) => Stamp | undefined;
  /**
   * A file the cache has no entry for is not stat'ed by lookup: it is read whatever its stamp, and the
   * read stamps it as it opens it (parse-files.ts). Only with the real file system's stamps.
   */
  stampByRead?: boolean;
  now?: () => number;
  /** Default RACY_MS; tests set 0 to exercise the stamps alone. */
  racyMs?: number;
}

/**
 * The parsed front matter of every content file, kept between builds in `.content-index/cache/` (and
 * between CI runs, restored by `actions/cache`): an unchanged file is neither read nor parsed again.
 *
 * - A file whose size, modification time, change time and inode are those recorded is unchanged
 *   (unless its stamp was racy when recorded, see RACY_MS).
 * - Any other file is read, but when the hash of its front matter is one the cache holds (a checkout
 *   gives every file new times; a rename keeps the text), it is not parsed again.
 * - Only successful parses of plain JSON data are kept: a file with a problem is read every time, and
 *   so is one whose values JSON cannot hold (`.nan`, `!!binary`).
 */
export class ParseCache {
  private entries: Map<string, Entry>;
  private byHash = new Map<string, Entry>();
  /** Files not kept (their parse failed, or JSON cannot hold their values), with their stamp then. */
  private uncached = new Map<string, Stamp>();
  /** Shards whose files no longer say what the cache holds. */
  private dirty = new Set<number>();
  private readonly dir: string | undefined;
  private identity: string;
  private readonly identityBase: string;
  private bodies: boolean;
  private readonly statOf: (path: string) => Stamp | undefined;
  private readonly stampByRead: boolean;
  private readonly now: () => number;
  private readonly racyMs: number;

  constructor(entries: Map<string, Entry> = new Map(), options: ParseCacheOptions = {}) {
    this.entries = entries;
    this.dir = options.dir;
    this.bodies = options.bodies ?? false;
    this.identityBase = options.identity ?? '';
    this.identity = withBodies(this.identityBase, this.bodies);
    this.statOf = options.stat ?? statStamp;
    this.stampByRead = options.stampByRead ?? false;
    this.now = options.now ?? Date.now;
    this.racyMs = options.racyMs ?? RACY_MS;
    for (const entry of entries.values()) this.byHash.set(entry.hash, entry);
  }

  /**
   * The project's cache, or an empty one when there is none or it cannot be used (another version of
   * the tool wrote it, it is damaged): a cache is only ever a shortcut. A shard that cannot be read is
   * dropped alone.
   */
  static open(root: string, options: { maxFileBytes: number } & Omit<ParseCacheOptions, 'dir'>): ParseCache {
    const dir = join(root, CACHE_DIR, PARSE_DIR);
    const base = options.identity ?? cacheIdentity(options.maxFileBytes);
    const identity = withBodies(base, options.bodies ?? false);
    const entries = new Map<string, Entry>();
    const damaged: number[] = [];
    for (let shard = 0; shard < SHARDS; shard++) {
      const read = readShard(join(dir, shardFile(shard)), identity);
      if (read === undefined) {
        damaged.push(shard);
        continue;
      }
      const { rows, dropped } = read;
      if (dropped) damaged.push(shard);
      for (const [path, size, mtimeMs, ctimeMs, ino, racy, hash, format, matter, data, bodied] of rows) {
        const entry = {
          size,
          mtimeMs,
          ctimeMs,
          ino,
          racy: racy === 1,
          hash,
          outcome: { data, matter, format },
          bodied: bodied === 1,
        };
        entries.set(path, entry);
      }
    }
    const cache = new ParseCache(entries, { ...options, dir, identity: base });
    for (const shard of damaged) cache.dirty.add(shard);
    return cache;
  }

  /** Empties the cache when it holds the other kind of outcomes (with or without bodies) than a build wants. */
  useBodies(bodies: boolean): void {
    if (bodies === this.bodies) return;
    this.bodies = bodies;
    this.identity = withBodies(this.identityBase, bodies);
    for (const path of this.entries.keys()) this.dirty.add(shardOf(path));
    for (let shard = 0; shard < SHARDS; shard++) this.dirty.add(shard);
    this.entries.clear();
    this.byHash.clear();
    this.uncached.clear();
  }

  /** How many files it holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Hashes of every front-matter text it holds an outcome for. */
  hashes(): Set<string> {
    return new Set(this.byHash.keys());
  }

  /**
   * The stamp of each file (undefined when it cannot be read), and the outcome of each unchanged one.
   * With `only` (dev: the files its watcher saw change), the other files the cache holds are taken as
   * they were without a look at the file system.
   */
  lookup(
    tasks: readonly { path: string; absolute: string }[],
    only?: ReadonlySet<string>,
    maxFileBytes = Number.POSITIVE_INFINITY,
  ): {
    stamps: (Stamp | undefined)[];
    /** The entry of each unchanged file (its outcome and hash). */
    hits: ({ outcome: ParsedSource; hash: string } | undefined)[];
    at: number;
  } {
    // Before the first stamp: a change after this moment is one the recorded stamps may not show.
    const at = this.now();
    const stamps: (Stamp | undefined)[] = [];
    const hits = tasks.map((task) => {
      const entry = this.entries.get(task.path);
      if (only && entry && !entry.racy && !only.has(task.absolute)) {
        stamps.push(entry);
        return withBody(entry, task.absolute, maxFileBytes);
      }
      const stamp = entry || !this.stampByRead ? this.statOf(task.absolute) : undefined;
      stamps.push(stamp);
      return entry && stamp && !entry.racy && sameStamp(entry, stamp)
        ? withBody(entry, task.absolute, maxFileBytes)
        : undefined;
    });
    return { stamps, hits, at };
  }

  /**
   * Whether every file is as the cache last saw it: the same stamp as its entry (and for a racy entry,
   * the same front matter), or for a file whose parse failed, the stamp it had then.
   */
  unchanged(tasks: readonly { path: string; absolute: string }[], maxFileBytes: number): boolean {
    return tasks.every((task) => {
      const stamp = this.statOf(task.absolute);
      const entry = this.entries.get(task.path);
      const known = entry ?? this.uncached.get(task.path);
      if (!stamp || !known || !sameStamp(known, stamp)) return false;
      if (!entry?.racy) return true;
      // A stamp too recent to vouch for the file (RACY_MS): its front matter must still read the same.
      try {
        if (!this.bodies) return headHash(readHead(task.absolute, maxFileBytes).text) === entry.hash;
        const whole = readWhole(task.absolute, maxFileBytes);
        return sourceHash(whole) === entry.hash;
      } catch {
        return false;
      }
    });
  }

  /**
   * The outcome of a text the cache holds, for the file at `absolute` (read, its hash known): its body,
   * when the cache kept it without, is that file's, read again when asked.
   */
  outcomeOf(hash: string, absolute: string, maxFileBytes: number): ParsedSource | undefined {
    const entry = this.byHash.get(hash);
    if (!entry) return undefined;
    const { outcome } = entry;
    return entry.bodied && outcome.body === undefined
      ? bodyRead(outcome, absolute, maxFileBytes, hash)
      : outcome;
  }

  /**
   * Replaces the cache's files with this build's: each task's stamp (as taken by `lookup`), hash and
   * outcome. Files without a stamp, a hash or a successful outcome are left out, and so are files no
   * longer listed.
   */
  record(
    tasks: readonly { path: string }[],
    files: readonly {
      stamp?: Stamp | undefined;
      hash?: string | undefined;
      outcome: ParsedSource | undefined;
    }[],
    at: number,
  ): void {
    // In place: a rebuild after one save changes one entry, not 26,000.
    this.uncached.clear();
    let listed = 0;
    tasks.forEach((task, i) => {
      const { stamp, hash, outcome } = files[i] ?? { outcome: undefined };
      const previous = this.entries.get(task.path);
      if (!stamp || hash === undefined || !outcome || !isPlainJson(outcome.data)) {
        if (stamp) this.uncached.set(task.path, stamp);
        if (previous) this.forget(task.path);
        return;
      }
      listed++;
      if (previous && previous.hash === hash && !previous.racy && sameStamp(previous, stamp)) return;
      this.dirty.add(shardOf(task.path));
      const racy = Math.max(stamp.mtimeMs, stamp.ctimeMs) > at - this.racyMs;
      const entry = {
        size: stamp.size,
        mtimeMs: stamp.mtimeMs,
        ctimeMs: stamp.ctimeMs,
        ino: stamp.ino,
        racy,
        hash,
        outcome,
        bodied: Boolean(outcome.body || outcome.bodyOf),
      };
      this.entries.set(task.path, entry);
      this.byHash.set(hash, entry);
    });
    // Files no longer listed drop out of their shards (and their texts out of the hashes).
    if (listed !== this.entries.size) {
      const paths = new Set(tasks.map((t) => t.path));
      for (const path of [...this.entries.keys()]) if (!paths.has(path)) this.forget(path);
      this.byHash = new Map([...this.entries.values()].map((e) => [e.hash, e]));
    }
  }

  private forget(path: string): void {
    this.entries.delete(path);
    this.dirty.add(shardOf(path));
  }

  /**
   * Writes the shards that changed since they were read, each whole or not at all (a rename), so a
   * build killed meanwhile, or two builds at once, leave readable shards behind.
   */
  async save(): Promise<void> {
    if (!this.dir || this.dirty.size === 0) return;
    const shards = [...this.dirty];
    this.dirty.clear();
    const rows = new Map<number, StoredEntry[]>(shards.map((shard) => [shard, []]));
    for (const [path, e] of this.entries) {
      rows
        .get(shardOf(path))
        ?.push([
          path,
          e.size,
          e.mtimeMs,
          e.ctimeMs,
          e.ino,
          e.racy ? 1 : 0,
          e.hash,
          e.outcome.format,
          e.outcome.matter,
          e.outcome.data,
          e.bodied ? 1 : null,
        ]);
    }
    await mkdir(this.dir, { recursive: true });
    for (const [shard, stored] of rows) {
      const file = join(this.dir, shardFile(shard));
      const staging = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        const body = Buffer.from(JSON.stringify(stored));
        // Its two parts written one after the other: joined, a shard's 5 MB were copied once more.
        await writeFile(staging, [`${this.identity}\n${seal(body)}\n`, body]);
        await rename(staging, file);
      } catch (error) {
        this.dirty.add(shard);
        await rm(staging, { force: true });
        throw error;
      }
    }
  }
}

function shardFile(shard: number): string {
  return `${shard.toString(16).padStart(2, '0')}.json`;
}

/** FNV-1a of the path: which shard holds a file. */
function shardOf(path: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARDS;
}

/**
 * A shard's rows; none when it does not exist yet; undefined when it cannot be used (another identity,
 * damaged, or changed since it was written). A shard is its identity line, the seal of its rows (a hash
 * of their bytes) and the rows: an outcome is used only as the build that parsed it wrote it, tied to the
 * hash of the front matter it came from, so an edited or damaged shard is dropped, never trusted; and a
 * row that is not what the cache writes is dropped alone (`dropped`: the shard is written again).
 */
function readShard(file: string, identity: string): { rows: StoredEntry[]; dropped: boolean } | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { rows: [], dropped: false } : undefined;
  }
  // The identity is the first line: a shard of another identity is dropped without hashing or parsing it.
  const first = bytes.indexOf(0x0a);
  const second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1);
  if (second < 0 || bytes.toString('utf8', 0, first) !== identity) return undefined;
  const body = bytes.subarray(second + 1);
  if (bytes.toString('latin1', first + 1, second) !== seal(body)) return undefined;
  try {
    const rows = JSON.parse(body.toString('utf8')) as unknown;
    if (!Array.isArray(rows)) return undefined;
    const kept = rows.filter(isStoredEntry);
    return { rows: kept, dropped: kept.length !== rows.length };
  } catch {
    return undefined;
  }
}

/** A hash of a shard's rows, as bytes (hashing a Buffer is several times faster than a string). */
function seal(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}

function isStoredEntry(row: unknown): row is StoredEntry {
  if (!Array.isArray(row) || row.length !== 11) return false;
  const [path, size, mtimeMs, ctimeMs, ino, racy, hash, format, matter, data, bodied] = row as unknown[];
  return (
    typeof path === 'string' &&
    [size, mtimeMs, ctimeMs, ino].every((n) => typeof n === 'number') &&
    (racy === 0 || racy === 1) &&
    typeof hash === 'string' &&
    (format === 'yaml' || format === 'toml' || format === 'json') &&
    typeof matter === 'string' &&
    // A parse's data is always a mapping or a list (an empty front matter gives {}), never null.
    typeof data === 'object' &&
    data !== null &&
    (bodied === null || bodied === 1)
  );
}

/**
 * The entry's outcome as a hit gives it: its body, when the cache kept it without (read from disk), is
 * read from the file when first asked. Made once per entry, so that dev's unchanged files keep their
 * outcome (and the SourceFile made of it) from one save to the next.
 */
function withBody(entry: Entry, absolute: string, maxFileBytes: number): Entry {
  const { outcome } = entry;
  if (entry.bodied && outcome.body === undefined && !outcome.bodyOf)
    entry.outcome = bodyRead(outcome, absolute, maxFileBytes, entry.hash);
  return entry;
}

/**
 * The outcome with its body read from the file when asked. The file is the one the outcome was kept
 * for, unchanged by its stamp or its hash (`hash`). A body read from a file changed since (an edit while
 * the build runs) is not kept with the outcome, which stands for the text of that hash: the build that
 * reads bodies at once (load.ts readUnreadBodies) keys such an entry by what it read instead.
 */
function bodyRead(outcome: ParsedSource, absolute: string, maxFileBytes: number, hash: string): ParsedSource {
  const read: ParsedSource = { data: outcome.data, matter: outcome.matter, format: outcome.format };
  readWhenAsked(read, absolute, maxFileBytes, hash);
  return read;
}

/**
 * Lets go of the body an outcome holds: from now on it is read from its file when asked, as an outcome
 * the cache read back from disk is. In place, so that all that holds the outcome (the cache, the
 * SourceFile made of it, its translations) lets go of it too. A build lets go of an item's bodies once
 * its MCP backend's share is made (held-bodies.ts): at 10,000 items, the bodies were some 110 MB of
 * the heap kept to the end of a build from nothing, and through a whole dev session started from nothing.
 */
export function releaseBody(
  outcome: ParsedSource,
  absolute: string,
  maxFileBytes: number,
  hash: string,
): void {
  if (!outcome.body) return;
  delete outcome.body;
  readWhenAsked(outcome, absolute, maxFileBytes, hash);
}

/**
 * Puts the body an outcome holds in `spool` (row-spool.ts), from where it is read when asked: a build
 * that parses a large site holds none of its bodies from the parse to its items' MCP shares, where
 * they are read (a build from nothing at 10,000 items held some 130 MB of them in the heap through
 * assembly and rendering, and collected it again and again). Read from its file, by the hash it was
 * read with, once the spool is closed. False when there was no body to put there.
 */
export function spoolBody(
  outcome: ParsedSource,
  spool: RowSpool,
  absolute: string,
  maxFileBytes: number,
  hash: string,
): boolean {
  const { body } = outcome;
  if (!body) return false;
  const bytes = Buffer.from(body);
  // The bytes until they are written; their place in the file then (the bytes still, if it cannot be).
  const held: [BytePiece] = [bytes];
  spool.keep(held, 0, bytes);
  delete outcome.body;
  // Not to be read from its file again (readUnreadBodies) while the spool holds it.
  PENDING.delete(outcome);
  SPOOLED.set(outcome, { absolute, hash, held });
  outcome.bodyOf = () => {
    if (outcome.body !== undefined) return outcome.body;
    const [piece] = held;
    if (!inSpool(piece)) {
      SPOOLED.delete(outcome);
      readWhenAsked(outcome, absolute, maxFileBytes, hash);
      return (outcome.bodyOf as () => string)();
    }
    const read = spool.readBack(piece);
    return Buffer.from(read.buffer, read.byteOffset, read.byteLength).toString('utf8');
  };
  return true;
}

function readWhenAsked(outcome: ParsedSource, absolute: string, maxFileBytes: number, hash: string): void {
  outcome.bodyOf = () => {
    if (outcome.body !== undefined) return outcome.body;
    const found = bodyOfFile(absolute, maxFileBytes);
    if ('error' in found) return '';
    if (found.hash === hash) outcome.body = found.body;
    return found.body;
  };
  PENDING.set(outcome, { absolute, hash });
}

const PENDING = new WeakMap<ParsedSource, { absolute: string; hash: string }>();

/** The outcomes whose body a spool holds (spoolBody): their file, its hash then, and the body's place. */
const SPOOLED = new WeakMap<ParsedSource, { absolute: string; hash: string; held: [BytePiece] }>();

/** Whether a spooled body can be read where it was put: not once its spool is closed. */
function inSpool(piece: BytePiece): boolean {
  return !(piece instanceof StoredBytes) || piece.fd >= 0;
}

/**
 * The file an outcome's body is still to be read from (see bodyRead), and its hash then, if it is: a
 * body in a spool closed since (a store dropped or closed) is one, read again by its hash like the others.
 */
export function pendingBody(outcome: ParsedSource): { absolute: string; hash: string } | undefined {
  if (outcome.body !== undefined) return undefined;
  const spooled = SPOOLED.get(outcome);
  if (spooled)
    return inSpool(spooled.held[0]) ? undefined : { absolute: spooled.absolute, hash: spooled.hash };
  return PENDING.get(outcome);
}

function withBodies(identity: string, bodies: boolean): string {
  return `${identity}:${bodies ? 'bodies' : 'heads'}`;
}

export function statStamp(path: string): Stamp | undefined {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stats && { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

export function sameStamp(a: Stamp, b: Stamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Whether JSON gives the value back as it is: the cache file is JSON. */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  // smol-toml's tables have no prototype; JSON gives them Object's, which reads the same.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const child of Object.values(value)) if (!isPlainJson(child, depth + 1)) return false;
  return true;
}

let identity: string | undefined;

/**
 * The tool's version, the parser's own code and the versions of the parsers it calls, and the size
 * limit: an outcome depends on nothing else than these and the front matter's text.
 */
export function cacheIdentity(maxFileBytes: number): string {
  identity ??= parserFingerprint();
  return `${CACHE_FORMAT}:${packageJson.version}:${identity}:${maxFileBytes}`;
}

function parserFingerprint(): string {
  const hash = createHash('sha256');
  const module = fileURLToPath(
    new URL(BUNDLED ? './parse-worker.js' : './parse/parse-chunk.js', import.meta.url),
  );
  // In the package the parser is bundled into the chunk the worker entry imports; from the sources it is
  // the folder of plain JavaScript files.
  const files = BUNDLED ? bundledChunks(module) : parserSources(dirname(module));
  for (const file of files) hash.update(readFileSync(file));
  const require = createRequire(import.meta.url);
  for (const name of ['gray-matter', 'js-yaml', 'smol-toml', 'jsonc-parser']) {
    hash.update(`${name}@${packageVersion(require, name)}\n`);
  }
  return hash.digest('base64url').slice(0, 22);
}

function parserSources(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .sort()
    .map((name) => join(dir, name));
}

/** The worker entry and the chunks it imports (esbuild's `./chunk-….js`). */
function bundledChunks(entry: string): string[] {
  const text = readFileSync(entry, 'utf8');
  const chunks = [...text.matchAll(/from\s*["'](\.\/chunk-[\w-]+\.js)["']/g)].map((m) =>
    join(dirname(entry), m[1] as string),
  );
  return [entry, ...[...new Set(chunks)].sort()];
}

function packageVersion(require: NodeJS.Require, name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    // Packages whose exports hide package.json: found from their entry.
    try {
      for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
        try {
          const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
            name?: string;
            version?: string;
          };
          if (manifest.name === name) return manifest.version ?? '?';
        } catch {
          // not this folder
        }
      }
    } catch {
      // not installed where it can be resolved from here
    }
    return '?';
  }
}
