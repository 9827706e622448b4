import { BUNDLED } from '../core/bundled.ts';
import { buildWorker } from './build-worker.ts';
import type { Parsed, ParseFailure, ParseOutcome, ParseTask } from './parse/parse-chunk.js';
import { type ParseCache, type Stamp, spoolBody } from './parse-cache.ts';
import type { RowSpool } from './row-spool.ts';
import { shareWithWorker } from './share-with-worker.ts';

/** From this many files parsed with their bodies, the bodies wait in a spool (BodySpooling). */
const SPOOL_FROM = 4000;

/**
 * Where a parse of many files puts their bodies as they are parsed (parse-cache.ts spoolBody), and how
 * many it put there. From `from` files parsed at once (default SPOOL_FROM); below that they are few.
 */
export interface BodySpooling {
  spool: () => RowSpool | undefined;
  from?: number;
  spooled: number;
}

export interface ParseFilesOptions {
  maxFileBytes: number;
  /** Below this many files a second thread costs more to start than it saves. */
  parallelThreshold?: number;
  /** Outcomes of earlier builds (parse-cache.ts): unchanged files are not read, known texts not parsed. */
  cache?: ParseCache;
  /** With a cache: the only files (absolute paths) that may have changed since its last build (dev). */
  only?: ReadonlySet<string>;
  /** Read whole files and reduce their bodies to words, for MCP search (`mcp.bodies`). */
  bodies?: boolean;
  /** With `bodies`: where the bodies of a parse of many files wait until they are asked for. */
  spooling?: BodySpooling;
}

/**
 * Loads the parsers (gray-matter, js-yaml, smol-toml, jsonc-parser) ahead of the first file that needs
 * them: dev, while wrangler starts, so that its first save does not load them.
 */
export async function loadParsers(): Promise<void> {
  await import('./parse/parse-chunk.js');
}

/** Reads and parses every file, in order, reusing the cache's outcomes of unchanged files when given one. */
export async function parseFiles(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
): Promise<ParseOutcome[]> {
  return (await parseFilesHashed(tasks, options)).map((p) => p.outcome);
}

/** The same, with the hash of each file's front matter (read-head.js headHash) when it could be read. */
export async function parseFilesHashed(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
): Promise<{ outcome: ParseOutcome; hash: string | undefined; stamp: Stamp | undefined }[]> {
  const { cache } = options;
  if (!cache)
    return (await parseUncached(tasks, options, new Set())).map((p) => ({
      outcome: p.outcome as ParseOutcome,
      hash: p.hash,
      stamp: p.stamp,
    }));
  // A cache of the other kind (with or without bodies) holds nothing this build can use.
  cache.useBodies(options.bodies ?? false);
  const { stamps, hits, at } = cache.lookup(tasks, options.only, options.maxFileBytes);
  const misses = tasks.flatMap((_, i) => (hits[i] ? [] : [i]));
  const fresh =
    misses.length === 0
      ? []
      : await parseUncached(
          misses.map((i) => tasks[i] as ParseTask),
          options,
          cache.hashes(),
        );
  // The misses' outcomes woven back between the hits, in task order.
  const files: { stamp: Stamp | undefined; hash: string | undefined; outcome: ParseOutcome }[] = [];
  let k = 0;
  tasks.forEach((_, i) => {
    const hit = hits[i];
    if (hit) {
      files.push({ stamp: stamps[i], hash: hit.hash, outcome: hit.outcome });
      return;
    }
    const parsed = fresh[k++] as Parsed;
    // A known hash is one the cache holds an outcome for: it still does until record() below.
    const outcome =
      parsed.outcome ??
      (cache.outcomeOf(
        parsed.hash ?? '',
        (tasks[i] as ParseTask).absolute,
        options.maxFileBytes,
      ) as ParseOutcome);
    // A file the cache did not stat (ParseCacheOptions.stampByRead) has the stamp its read took.
    files.push({ stamp: stamps[i] ?? parsed.stamp, hash: parsed.hash, outcome });
  });
  cache.record(
    tasks,
    files.map((f) => ({ ...f, outcome: 'code' in f.outcome ? undefined : f.outcome })),
    at,
  );
  return files;
}

/**
 * On large sites the work is split between the main thread and one worker thread: reading is mostly
 * system calls, which run in parallel on a second core.
 */
async function parseUncached(
  tasks: readonly ParseTask[],
  options: ParseFilesOptions,
  known?: ReadonlySet<string>,
): Promise<Parsed[]> {
  if (tasks.length === 0) return [];
  // The parsers load only when a file needs them: a build whose files all come from the cache
  // starts without gray-matter, js-yaml and smol-toml.
  const { parseChunk } = await import('./parse/parse-chunk.js');
  const bodies = options.bodies ?? false;
  const { spooling } = options;
  const spool = bodies ? spoolFor(spooling, tasks.length) : undefined;
  // Each body put aside as its batch comes in, whichever thread parsed it: never all held at once.
  const settle =
    spool && spooling
      ? (parsed: Parsed, i: number) => {
          const { outcome, hash } = parsed;
          const { absolute } = tasks[i] as ParseTask;
          if (outcome && !('code' in outcome) && hash !== undefined)
            if (spoolBody(outcome, spool, absolute, options.maxFileBytes, hash)) spooling.spooled++;
          return parsed;
        }
      : undefined;
  try {
    return await onTwoThreads(
      tasks,
      options,
      { bodies, ...(known && { known: [...known] }) },
      (mine) => parseChunk(mine, options.maxFileBytes, known, bodies),
      settle,
    );
  } finally {
    spool?.flush();
  }
}

/** The spool a read of `count` files' bodies puts them in, if they are that many. */
export function spoolFor(spooling: BodySpooling | undefined, count: number): RowSpool | undefined {
  return spooling && count >= (spooling.from ?? SPOOL_FROM) ? spooling.spool() : undefined;
}

/**
 * The bodies, reduced to their words, of files whose front matter is known (the parse cache keeps no
 * body text): read when the items they belong to are made again, on two threads when they are many.
 */
export async function readBodies(
  tasks: readonly ParseTask[],
  options: Pick<ParseFilesOptions, 'maxFileBytes' | 'parallelThreshold'>,
  /** Done with each body as it comes in; what it gives back is kept in its place. */
  settle?: Settle<FileBody>,
): Promise<FileBody[]> {
  if (tasks.length === 0) return [];
  const { bodiesOf } = await import('./parse/parse-chunk.js');
  return onTwoThreads(
    tasks,
    options,
    { onlyBodies: true },
    (mine) => bodiesOf(mine, options.maxFileBytes),
    settle,
  );
}

type FileBody = { body: string; hash: string } | ParseFailure;

/** Done with a result as it comes in, by its task's index: what it gives back is kept in its place. */
type Settle<T> = (result: T, index: number) => T;

/** Files in a batch, on either thread. */
const BATCH = 256;

/**
 * `run` over the tasks, on two threads when they are many, shared as they go (share-with-worker.ts):
 * with a fixed share, the worker (started later) ended later, then copied half the site's outcomes in
 * one message while the main thread waited, some 0.4 s of a build from nothing at 10,000 items.
 */
async function onTwoThreads<T>(
  tasks: readonly ParseTask[],
  options: Pick<ParseFilesOptions, 'maxFileBytes' | 'parallelThreshold'>,
  workerData: Record<string, unknown>,
  run: (tasks: readonly ParseTask[]) => T[],
  settle?: Settle<T>,
): Promise<T[]> {
  const threshold = options.parallelThreshold ?? 10_000;
  const settled = (from: number, results: T[]) =>
    settle ? results.map((result, i) => settle(result, from + i)) : results;
  if (tasks.length < threshold) {
    // In batches as the two threads would go, so that a batch's bodies are put aside before the next is read.
    if (!settle) return run(tasks);
    const done: T[] = [];
    for (let from = 0; from < tasks.length; from += BATCH)
      done.push(...settled(from, run(tasks.slice(from, from + BATCH))));
    return done;
  }
  // Only a large site's build starts a thread: the others never load node:worker_threads.
  const worker = buildWorker(new URL(BUNDLED ? './parse-worker.js' : './parse/worker.js', import.meta.url), {
    workerData: { ...workerData, maxFileBytes: options.maxFileBytes },
  });
  const done: T[] = new Array(tasks.length);
  const put = (from: number, results: T[]) => {
    settled(from, results).forEach((result, i) => {
      done[from + i] = result;
    });
  };
  await shareWithWorker<T[]>(worker, tasks.length, {
    name: 'parse worker',
    batch: BATCH,
    stretch: BATCH / 2,
    message: (from, to) => tasks.slice(from, to),
    take: put,
    mine: (from, to) => put(from, run(tasks.slice(from, to))),
  });
  return done;
}
