import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  d1Tables,
  GENERATION_PATTERN,
  GENERATION_PLACEHOLDER,
  GENERATIONS_TABLE,
} from '../core/edge/mcp/d1-sql.ts';
import { ContentIndexError } from '../core/errors.ts';
import { D1_DIR, D1_MANIFEST_PATH, type D1Manifest } from '../stages/mcp-output.ts';
import { PRIVATE_DIR } from '../stages/output/place.ts';
import { readWranglerConfig } from '../stages/wrangler-config.ts';
import { killGroup, stripAnsi, wranglerCommand } from './wrangler.ts';

/** Where the SQL goes: wrangler's local D1 (for `wrangler pages dev`) or the account's database. */
export interface D1Location {
  remote: boolean;
  /** Local state folder, as `wrangler pages dev --persist-to` takes it. Default: wrangler's (.wrangler/state). */
  persistTo?: string;
  /** Project root: wrangler reads wrangler.toml from here. */
  root: string;
  env: NodeJS.ProcessEnv;
}

/** The D1 import the last build wrote, or undefined when that build serves /mcp embedded. */
export async function readD1Manifest(root: string): Promise<D1Manifest | undefined> {
  const text = await readFile(join(root, D1_MANIFEST_PATH), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let manifest: D1Manifest | undefined;
  try {
    manifest = JSON.parse(text) as D1Manifest;
  } catch {}
  if (!manifest || !GENERATION_PATTERN.test(manifest.generation) || !wellFormed(manifest.parts)) {
    throw new ContentIndexError([
      {
        code: 'source_unreadable',
        file: D1_MANIFEST_PATH,
        message: 'is damaged, or was written by an older content-index',
        hint: 'run content-index build again',
      },
    ]);
  }
  return manifest;
}

/** The names the build gives the import's files (mcp-output.ts): nothing else is ever opened. */
const PART_NAME = /^(?:schema|order|entries|terms|done)-[0-9a-f]{16}\.sql$/;

function wellFormed(parts: unknown): parts is D1Manifest['parts'] {
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return (
    Array.isArray(parts) &&
    parts.length > 0 &&
    parts.every(
      (part: Partial<D1Manifest['parts'][number]> | null) =>
        typeof part?.path === 'string' &&
        part.path.startsWith(`${D1_DIR}/`) &&
        PART_NAME.test(part.path.slice(D1_DIR.length + 1)) &&
        count(part.bytes) &&
        Array.isArray(part.marks) &&
        part.marks.every((at) => count(at) && at + GENERATION_PLACEHOLDER.length <= (part.bytes as number)),
    )
  );
}

/** The import's files, opened, ready to be joined into one SQL file. */
export interface OpenedImport {
  /** Writes the joined SQL to `file` (made new: an existing file is an error), the generation put in. */
  write(file: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens every file of the import before any is read: a build that replaces them meanwhile (dev saving
 * again while an import waits for wrangler) removes files this one still reads whole. A file missing,
 * or not as the manifest describes it, is an error: the build that wrote the manifest is gone, or the
 * folder was changed by hand.
 */
export async function openImport(root: string, manifest: D1Manifest): Promise<OpenedImport> {
  const handles: FileHandle[] = [];
  const close = () => Promise.all(handles.splice(0).map((handle) => handle.close())).then(() => undefined);
  try {
    for (const part of manifest.parts) {
      const handle = await open(join(root, part.path), 'r').catch((error: NodeJS.ErrnoException) => {
        throw damaged(
          part.path,
          error.code === 'ENOENT'
            ? `is missing: the D1 import of ${manifest.generation} is not whole (a build since replaced it?)`
            : `cannot be opened (${error.code ?? error.message})`,
          error.code === 'ENOENT' ? 'run content-index build again' : undefined,
        );
      });
      handles.push(handle);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    close,
    async write(file) {
      const generation = Buffer.from(manifest.generation);
      const placeholder = Buffer.from(GENERATION_PLACEHOLDER);
      const out = await open(file, 'wx');
      try {
        for (const [i, part] of manifest.parts.entries()) {
          const bytes = await (handles[i] as FileHandle).readFile();
          if (bytes.length !== part.bytes) throw damaged(part.path, 'is not the size import.json gives it');
          for (const at of part.marks) {
            if (!bytes.subarray(at, at + placeholder.length).equals(placeholder))
              throw damaged(part.path, 'does not hold the generation placeholder where import.json says');
            generation.copy(bytes, at);
          }
          await out.write(bytes);
        }
      } finally {
        await out.close();
      }
    },
  };
}

/** The joined SQL of an import written to `file` (see openImport). */
export async function writeJoinedImport(root: string, manifest: D1Manifest, file: string): Promise<void> {
  const opened = await openImport(root, manifest);
  try {
    await opened.write(file);
  } finally {
    await opened.close();
  }
}

function damaged(path: string, message: string, hint?: string): ContentIndexError {
  return new ContentIndexError([
    {
      code: 'source_unreadable',
      file: path,
      message,
      // The build keeps a file of the right name and size as it is: only a folder made anew is whole.
      hint: hint ?? `remove ${D1_DIR}/ and run content-index build again (it writes the D1 import whole)`,
    },
  ]);
}

/** The import's SQL as one text, with its generation (tests, and a look at what an import runs). */
export async function readJoinedImport(root: string, manifest: D1Manifest): Promise<string> {
  const file = importCopy(root, 'read');
  try {
    await writeJoinedImport(root, manifest, file);
    return await readFile(file, 'utf8');
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * Where an import joins its files: beside the MCP data's folder, not in it (a rebuild that writes the
 * data while the import runs removes what it does not own from that folder), named by its process, its
 * time and random bytes (two imports of one process in one millisecond), so that a copy a killed
 * process left is recognised and removed (removeLeftImports).
 */
function importCopy(root: string, kind?: 'read'): string {
  const name = `${LOCAL_IMPORT_PREFIX}${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`;
  return join(root, PRIVATE_DIR, `${name}${kind ? `-${kind}` : ''}.sql`);
}

interface Generation {
  id: string;
  state: string;
}

export interface ImportResult {
  /** False when the database already held this generation (same content): nothing was written. */
  imported: boolean;
  ms: number;
}

/**
 * Imports the build's generation into D1, unless it is there already. Its tables carry the generation
 * in their names, so the import never touches what the live site reads; the generation's row, written
 * by the import's last statement, is checked afterwards: without it the import did not finish, and the
 * caller must not switch to it.
 */
export async function importGeneration(
  manifest: D1Manifest,
  where: D1Location,
): Promise<ImportResult & { state: D1State }> {
  const started = performance.now();
  await removeLeftImports(join(where.root, PRIVATE_DIR));
  const opened = await openImport(where.root, manifest);
  const file = importCopy(where.root);
  try {
    const before = await d1State(manifest, where);
    if (before.generations.some((g) => g.id === manifest.generation)) {
      return { imported: false, ms: performance.now() - started, state: before };
    }
    await opened.write(file);
    await opened.close();
    await execute(manifest, where, ['--file', file]);
  } finally {
    await opened.close();
    await rm(file, { force: true });
  }
  const ms = performance.now() - started;
  const after = await d1State(manifest, where);
  if (!after.generations.some((g) => g.id === manifest.generation)) throw unfinished(manifest);
  return { imported: true, ms, state: after };
}

/**
 * After a successful deploy (or a local import): this generation becomes `live`, the one live before it
 * `previous` (kept: isolates of the deployment being replaced may still be answering, and it allows a
 * one-step rollback), and every other generation's tables are dropped, including those of preview
 * deployments and of imports that never finished. Returns the generations dropped. `state` may be one
 * read before a publish: the switch names no generation but this one, so it holds whatever went live
 * since, and what `state` did not know of is dropped next time.
 */
export async function switchGeneration(
  manifest: D1Manifest,
  where: D1Location,
  state?: D1State,
): Promise<string[]> {
  const drop = droppable(state ?? (await d1State(manifest, where)), manifest.generation);
  await execute(manifest, where, [
    '--command',
    `${[...dropStatements(drop), ...liveStatements(manifest.generation)].join('; ')};`,
  ]);
  return drop;
}

/**
 * A local import (dev, `d1 import`) in as few runs as it can (each starts a workerd): the state, then
 * the import with its switch, then the drops; one at a time into one local D1 (lockLocalD1). The
 * switch is conditional on the completion row, the import's last statement: an import cut short
 * switches nothing, and the state read in the same run says so.
 */
export async function importLocally(
  manifest: D1Manifest,
  where: D1Location,
  options: { signal?: AbortSignal; onWait?: (holder: number) => void } = {},
): Promise<ImportResult & { dropped: string[] }> {
  const unlock = await lockLocalD1(where, options);
  try {
    return await importLocked(manifest, where, options.signal);
  } finally {
    await unlock();
  }
}

async function importLocked(
  manifest: D1Manifest,
  where: D1Location,
  signal: AbortSignal | undefined,
): Promise<ImportResult & { dropped: string[] }> {
  const started = performance.now();
  const current = manifest.generation;
  await removeLeftImports(join(where.root, PRIVATE_DIR));
  // Opened now: the state is read first, which takes wrangler seconds, and a save meanwhile replaces them.
  const opened = await openImport(where.root, manifest);
  let before: D1State;
  let state: D1State;
  let imported = false;
  try {
    before = await d1State(manifest, where, signal);
    state = before;
    if (!state.generations.some((g) => g.id === current)) {
      const file = importCopy(where.root);
      try {
        signal?.throwIfAborted();
        await opened.write(file);
        await opened.close();
        signal?.throwIfAborted();
        // The switch and the state after the file, in one transaction of their own (the file is run in
        // several): never a live generation marked previous without the new one made live.
        const then = `${[...liveStatements(current), STATE_QUERY].join('; ')};`;
        state = stateFrom(
          await execute(manifest, where, ['--file', file, '--command', then, '--json'], signal),
        );
      } finally {
        await rm(file, { force: true });
      }
      if (!state.generations.some((g) => g.id === current)) throw unfinished(manifest);
      imported = true;
    }
  } finally {
    await opened.close();
  }
  const ms = performance.now() - started;
  // From the state before the switch: the generation live then is the one kept as `previous`.
  const drop = droppable(before, current);
  const live = state.generations.some((g) => g.id === current && g.state === 'live');
  if (drop.length > 0 || !live) {
    await execute(
      manifest,
      where,
      ['--command', `${[...dropStatements(drop), ...(live ? [] : liveStatements(current))].join('; ')};`],
      signal,
    );
  }
  return { imported, ms, dropped: drop };
}

/**
 * One local import at a time into a local D1 (dev's and a `d1 import` by hand, say): an import runs in
 * several transactions, and two of the same build interleaved would leave its completion row over
 * tables the other had dropped and begun again. The lock is a file beside wrangler's state, holding the
 * process's number; one whose process is gone (killed during an import) is taken over. Waits, calling
 * `onWait` once with the holder's number, until it is free or `signal` aborts.
 */
async function lockLocalD1(
  where: D1Location,
  options: { signal?: AbortSignal; onWait?: (holder: number) => void },
): Promise<() => Promise<void>> {
  const folder = localState(where);
  await mkdir(folder, { recursive: true });
  const file = join(folder, LOCAL_LOCK);
  let told = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released meanwhile
    const holder = Number(text.trim());
    const written = await stat(file).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    // Imports of one process are one at a time: a lock in its own number is a process before it's.
    const gone =
      Number.isSafeInteger(holder) && holder > 0
        ? holder === process.pid || !alive(holder)
        : Date.now() - written > LOCK_UNWRITTEN_MS;
    if (gone) {
      await rm(file, { force: true });
      continue;
    }
    if (!told && Number.isSafeInteger(holder) && holder > 0) {
      told = true;
      options.onWait?.(holder);
    }
    await sleep(LOCK_POLL_MS, undefined, options.signal ? { signal: options.signal } : {});
  }
}

/** wrangler's local state: `--persist-to`, or `.wrangler/state` in the project, as wrangler resolves it. */
function localState(where: D1Location): string {
  return resolve(where.root, where.persistTo ?? join('.wrangler', 'state'));
}

const LOCAL_LOCK = 'content-index-d1-import.lock';
const LOCK_POLL_MS = 200;
/** A lock file still empty after this long was left by a process that died as it made it. */
const LOCK_UNWRITTEN_MS = 10_000;

/** An import's own joined copy of the SQL (145 MiB at 10,000 items with bodies), by its process and time. */
const LOCAL_IMPORT_PREFIX = 'd1-import-';
const LOCAL_IMPORT_FILE = /^d1-import-(\d+)-(\d+)(?:-[0-9a-f]{8})?(?:-read)?\.sql$/;
/**
 * A copy this recent is never taken for a leftover: its process may be one this one cannot see (another
 * container on the same folder) that has not read it yet.
 */
const LEFT_IMPORT_AGE_MS = 10 * 60_000;

/**
 * The copies of imports whose process is gone (killed before it could remove its own): each is as
 * large as the import, and nothing else would ever remove them. This process's own number is gone too
 * for a copy made before it started (a container's dev gets the same number each time). Best effort:
 * a copy that cannot be removed is left, and the import goes on.
 */
async function removeLeftImports(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const now = Date.now();
  const startedAt = now - process.uptime() * 1000;
  const left = names.filter((name) => {
    const found = LOCAL_IMPORT_FILE.exec(name);
    const pid = Number(found?.[1]);
    const at = Number(found?.[2]);
    if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(at) || now - at < LEFT_IMPORT_AGE_MS)
      return false;
    return pid === process.pid ? at < startedAt : !alive(pid);
  });
  await Promise.all(left.map((name) => rm(join(folder, name), { force: true }).catch(() => undefined)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that number; its file is not ours to judge.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every generation but this one and the one live (tables of unfinished imports included). */
function droppable(state: D1State, current: string): string[] {
  const live = state.generations.find((g) => g.state === 'live' && g.id !== current)?.id;
  const ids = new Set([
    ...state.generations.map((g) => g.id),
    ...state.tables.flatMap((name) => /^ci_(g[0-9a-f]{12})_/.exec(name)?.[1] ?? []),
  ]);
  return [...ids].filter((id) => id !== current && id !== live && GENERATION_PATTERN.test(id)).sort();
}

function dropStatements(ids: readonly string[]): string[] {
  return ids.flatMap((id) => [
    ...Object.values(d1Tables(id)).map((table) => `DROP TABLE IF EXISTS ${table}`),
    `DELETE FROM ${GENERATIONS_TABLE} WHERE id = '${id}'`,
  ]);
}

/** `current` live and the one live before it `previous`, only once `current`'s completion row exists. */
function liveStatements(current: string): string[] {
  return [
    `UPDATE ${GENERATIONS_TABLE} SET state = 'previous' WHERE state = 'live' AND id <> '${current}' AND EXISTS (SELECT 1 FROM ${GENERATIONS_TABLE} WHERE id = '${current}')`,
    `UPDATE ${GENERATIONS_TABLE} SET state = 'live' WHERE id = '${current}'`,
  ];
}

function unfinished(manifest: D1Manifest): ContentIndexError {
  return new ContentIndexError([
    {
      code: 'output_failed',
      file: `D1 database ${manifest.database}`,
      message: `the import of ${manifest.generation} did not finish (its completion row is missing); nothing was switched`,
      hint: 'run the deploy again: an unfinished generation is imported again from the start',
    },
  ]);
}

/** A preview deployment's generation is imported but never made live: production keeps its tables. */
export async function markPreview(manifest: D1Manifest, where: D1Location): Promise<void> {
  await execute(manifest, where, [
    '--command',
    `UPDATE ${GENERATIONS_TABLE} SET state = 'preview' WHERE id = '${manifest.generation}' AND state = 'ready';`,
  ]);
}

/** The generations a database holds, and its content-index tables (those of unfinished imports too). */
export interface D1State {
  generations: Generation[];
  tables: string[];
}

/** The generations and the tables, in one query (each wrangler run costs seconds of start-up). */
const STATE_QUERY = `CREATE TABLE IF NOT EXISTS ${GENERATIONS_TABLE} (id TEXT PRIMARY KEY, items INTEGER NOT NULL, state TEXT NOT NULL); SELECT id, state FROM ${GENERATIONS_TABLE}; SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ci\\_g%' ESCAPE '\\'`;

async function d1State(manifest: D1Manifest, where: D1Location, signal?: AbortSignal): Promise<D1State> {
  return stateFrom(await execute(manifest, where, ['--command', STATE_QUERY, '--json'], signal));
}

/** The state from `--json` output whose last two results are STATE_QUERY's selects. */
function stateFrom(output: string): D1State {
  const results = (JSON.parse(output.slice(output.indexOf('['))) as { results?: unknown[] }[]).map(
    (r) => r.results ?? [],
  );
  return {
    generations: (results.at(-2) ?? []) as Generation[],
    tables: ((results.at(-1) ?? []) as { name: string }[]).map((t) => t.name),
  };
}

/**
 * Runs `args` (`--command`/`--file`, `--json`) against the database: the account's through `wrangler d1
 * execute --remote`, the local one through d1-local.js (see there why not wrangler). Stops the process,
 * and the workerd it started, when `signal` aborts (dev stopping): the promise then rejects with the
 * signal's reason.
 */
async function execute(
  manifest: D1Manifest,
  where: D1Location,
  args: string[],
  signal?: AbortSignal,
): Promise<string> {
  const file = `D1 database ${manifest.database}${where.remote ? '' : ' (local)'}`;
  const run = where.remote
    ? wranglerCommand(['d1', 'execute', manifest.database, '--remote', '--yes', ...args], where.env)
    : await localRunner(manifest, where, args, file);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    // With a signal, in a group of its own: an abort ends its workerd too (miniflare ends it only from
    // its own signal handlers, which a SIGKILL skips).
    const child = spawn(run.command, run.args, {
      cwd: where.root,
      env: { ...where.env, WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal && process.platform !== 'win32' && { detached: true }),
    });
    let stdout = '';
    let stderr = '';
    let hard: NodeJS.Timeout | undefined;
    const abort = () => {
      killGroup(child, 'SIGTERM');
      // A process busy reading a large import may not answer SIGTERM (wrangler did not, within 20 s at
      // 10,000 items): it is killed after a grace. SQLite keeps the database whole; the generation it
      // was writing is unfinished, never switched to, and dropped by the next import.
      hard = setTimeout(() => killGroup(child, 'SIGKILL'), ABORT_GRACE_MS);
      hard.unref();
    };
    const settle = () => {
      signal?.removeEventListener('abort', abort);
      clearTimeout(hard);
    };
    signal?.addEventListener('abort', abort, { once: true });
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.stderr?.on('data', (chunk) => (stderr += chunk));
    child.once('error', (error) => {
      settle();
      reject(error);
    });
    child.once('exit', (code) => {
      settle();
      if (signal?.aborted) return reject(signal.reason);
      if (code === 0) return resolve(stdout);
      const said =
        jsonError(stdout) ??
        stripAnsi(`${stderr}\n${stdout}`)
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => /ERROR|error|✘/.test(line))
          .slice(0, 3)
          .join(' ');
      reject(
        new ContentIndexError([
          {
            code: 'output_failed',
            file,
            message: `${where.remote ? 'wrangler d1 execute' : 'the local D1 import'} failed (exit ${code}): ${said || 'no message'}`,
            hint: where.remote
              ? 'check CLOUDFLARE_API_TOKEN has the "D1: Edit" permission and that wrangler.toml has the database_id wrangler d1 create printed'
              : 'check wrangler.toml binds this database ([[d1_databases]])',
          },
        ]),
      );
    });
  });
}

/**
 * d1-local.js for the project's local D1: the folder and database id `wrangler pages dev` uses for the
 * binding (`--persist-to`, or .wrangler/state; `preview_database_id`, else `database_id`, else the
 * binding's name). `CONTENT_INDEX_D1_LOCAL` (a JavaScript file) runs another one instead, as
 * CONTENT_INDEX_WRANGLER does for wrangler: tests stand in for it to watch or hold its runs.
 */
async function localRunner(
  manifest: D1Manifest,
  where: D1Location,
  args: string[],
  file: string,
): Promise<{ command: string; args: string[] }> {
  const { config } = await readWranglerConfig(where.root);
  // The binding the Function reads is the one `wrangler pages dev` serves; the name only if none is.
  const database =
    config.d1Databases.find((d) => d.binding === manifest.binding) ??
    config.d1Databases.find((d) => d.database_name === manifest.database);
  const id = database?.preview_database_id ?? database?.database_id ?? database?.binding;
  if (!id) {
    throw new ContentIndexError([
      {
        code: 'output_failed',
        file,
        message: `${config.file ?? 'wrangler.toml'} binds no D1 database named ${manifest.database} or bound as ${manifest.binding}`,
        hint: 'check wrangler.toml binds this database ([[d1_databases]])',
      },
    ]);
  }
  // The runner takes miniflare from the site's wrangler: missing, it is said as for every other command.
  if (!where.env.CONTENT_INDEX_D1_LOCAL) wranglerCommand([], where.env);
  const persist = join(localState(where), 'v3', 'd1');
  // Beside this file in the sources, and beside the bundle in dist/: the same name in both layouts.
  const runner = where.env.CONTENT_INDEX_D1_LOCAL ?? fileURLToPath(new URL('./d1-local.js', import.meta.url));
  return { command: process.execPath, args: [runner, '--persist', persist, '--id', id, ...args] };
}

const ABORT_GRACE_MS = 3000;

/** What wrangler says went wrong when it answers with `--json`: `{ "error": { "text", "notes": [{ "text" }] } }`. */
function jsonError(stdout: string): string | undefined {
  const start = stdout.indexOf('{');
  if (start < 0) return undefined;
  try {
    const { error } = JSON.parse(stdout.slice(start)) as {
      error?: { text?: string; notes?: { text?: string }[] };
    };
    const said = [error?.text, ...(error?.notes ?? []).map((n) => n.text)].filter(Boolean).join(' ');
    return said || undefined;
  } catch {
    return undefined;
  }
}
