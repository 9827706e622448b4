import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../../package.json' with { type: 'json' };
import { BUNDLED } from '../core/bundled.ts';
import type { ParsedSource } from './parse/parse-source.js';

/** Relative to the project root: the tool's private folder (never published). */
export const CACHE_DIR = '.content-index/cache';
const CACHE_FILE = 'parse.json';
/** Bumped when the file's layout changes. */
const CACHE_FORMAT = 1;

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
  /** Of the front matter's text (parse-chunk.js headHash). */
  hash: string;
  outcome: ParsedSource;
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
];

export interface ParseCacheOptions {
  /** Files are found by this in the cache: the path shown in messages (relative to the project root). */
  file?: string;
  /** Everything the outcomes depend on besides the files: a cache of another identity is not read. */
  identity?: string;
  /** Tests give a file system whose times lie. */
  stat?: (path: string) => Stamp | undefined;
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
  private byHash = new Map<string, ParsedSource>();
  private changed = false;
  private readonly file: string | undefined;
  private readonly identity: string;
  private readonly statOf: (path: string) => Stamp | undefined;
  private readonly now: () => number;
  private readonly racyMs: number;

  constructor(entries: Map<string, Entry> = new Map(), options: ParseCacheOptions = {}) {
    this.entries = entries;
    this.file = options.file;
    this.identity = options.identity ?? '';
    this.statOf = options.stat ?? statStamp;
    this.now = options.now ?? Date.now;
    this.racyMs = options.racyMs ?? RACY_MS;
    for (const entry of entries.values()) this.byHash.set(entry.hash, entry.outcome);
  }

  /**
   * The project's cache file, or an empty cache when there is none or it cannot be used (another
   * version of the tool wrote it, it is damaged): a cache is only ever a shortcut.
   */
  static open(root: string, options: { maxFileBytes: number } & Omit<ParseCacheOptions, 'file'>): ParseCache {
    const file = join(root, CACHE_DIR, CACHE_FILE);
    const identity = options.identity ?? cacheIdentity(options.maxFileBytes);
    const rest = { ...options, file, identity };
    let stored: StoredEntry[];
    try {
      // The identity is the first line: a cache of another identity is dropped without parsing it.
      const text = readFileSync(file, 'utf8');
      const newline = text.indexOf('\n');
      if (newline < 0 || text.slice(0, newline) !== identity) return new ParseCache(new Map(), rest);
      stored = JSON.parse(text.slice(newline + 1)) as StoredEntry[];
    } catch {
      return new ParseCache(new Map(), rest);
    }
    if (!Array.isArray(stored)) return new ParseCache(new Map(), rest);
    const entries = new Map<string, Entry>();
    for (const row of stored) {
      if (!isStoredEntry(row)) return new ParseCache(new Map(), rest);
      const [path, size, mtimeMs, ctimeMs, ino, racy, hash, format, matter, data] = row;
      entries.set(path, {
        size,
        mtimeMs,
        ctimeMs,
        ino,
        racy: racy === 1,
        hash,
        outcome: { data, matter, format },
      });
    }
    return new ParseCache(entries, rest);
  }

  /** How many files it holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Hashes of every front-matter text it holds an outcome for. */
  hashes(): Set<string> {
    return new Set(this.byHash.keys());
  }

  /** The stamp of each file (undefined when it cannot be read), and the outcome of each unchanged one. */
  lookup(tasks: readonly { path: string; absolute: string }[]): {
    stamps: (Stamp | undefined)[];
    hits: (ParsedSource | undefined)[];
    at: number;
  } {
    // Before the first stamp: a change after this moment is one the recorded stamps may not show.
    const at = this.now();
    const stamps = tasks.map((task) => this.statOf(task.absolute));
    const hits = tasks.map((task, i) => {
      const entry = this.entries.get(task.path);
      const stamp = stamps[i];
      return entry && stamp && !entry.racy && sameStamp(entry, stamp) ? entry.outcome : undefined;
    });
    return { stamps, hits, at };
  }

  /** The hash of a file's front matter, as recorded. */
  hashOf(path: string): string | undefined {
    return this.entries.get(path)?.hash;
  }

  /** The outcome of a front-matter text the cache holds. */
  outcomeOf(hash: string): ParsedSource | undefined {
    return this.byHash.get(hash);
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
    const next = new Map<string, Entry>();
    let changed = false;
    tasks.forEach((task, i) => {
      const { stamp, hash, outcome } = files[i] ?? { outcome: undefined };
      if (!stamp || hash === undefined || !outcome) return;
      const previous = this.entries.get(task.path);
      if (previous && previous.hash === hash && !previous.racy && sameStamp(previous, stamp)) {
        next.set(task.path, previous);
        return;
      }
      if (!isPlainJson(outcome.data)) return;
      changed = true;
      const racy = Math.max(stamp.mtimeMs, stamp.ctimeMs) > at - this.racyMs;
      next.set(task.path, { ...stamp, racy, hash, outcome });
    });
    // Nothing added or replaced: the same files unless some dropped out.
    if (next.size !== this.entries.size) changed = true;
    this.entries = next;
    this.byHash = new Map([...next.values()].map((e) => [e.hash, e.outcome]));
    this.changed ||= changed;
  }

  /**
   * Writes the cache file when anything changed since it was read: whole or not at all (a rename), so
   * a build killed meanwhile, or two builds at once, leave a readable file behind.
   */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return;
    const stored: StoredEntry[] = [...this.entries].map(
      ([path, e]): StoredEntry => [
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
      ],
    );
    const text = `${this.identity}\n${JSON.stringify(stored)}`;
    this.changed = false;
    await mkdir(dirname(this.file), { recursive: true });
    const staging = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(staging, text);
      await rename(staging, this.file);
    } catch (error) {
      this.changed = true;
      await rm(staging, { force: true });
      throw error;
    }
  }
}

function isStoredEntry(row: unknown): row is StoredEntry {
  if (!Array.isArray(row) || row.length !== 10) return false;
  const [path, size, mtimeMs, ctimeMs, ino, racy, hash, format, matter] = row as unknown[];
  return (
    typeof path === 'string' &&
    [size, mtimeMs, ctimeMs, ino].every((n) => typeof n === 'number') &&
    (racy === 0 || racy === 1) &&
    typeof hash === 'string' &&
    (format === 'yaml' || format === 'toml' || format === 'json') &&
    typeof matter === 'string'
  );
}

function statStamp(path: string): Stamp | undefined {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stats && { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

function sameStamp(a: Stamp, b: Stamp): boolean {
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
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
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
