import { spawnSync } from 'node:child_process';
import { ContentIndexError } from '../core/errors.ts';
import { startSupervised, stripAnsi } from './wrangler.ts';

/**
 * `content-index dev --hugo`: Hugo's own watch mode (`hugo --watch`) beside the server, under the same
 * supervisor as wrangler (wrangler-supervisor.js), so it ends with dev however dev ends. Hugo writes its
 * pages through the output folder's link into the current generation, where wrangler serves them at
 * once; each content-index rebuild carries them into the next generation (they are the author's files
 * to it) and merges the `_headers` and `_redirects` Hugo copied from static/. Hugo's output lines say
 * when it builds: dev waits for the build that follows a save before it publishes the index of that
 * save, so a new page and its index entry are served together.
 */
export interface HugoWatch {
  /** Resolves once Hugo's first build is done; rejects with Hugo's own words when it failed (Hugo stops). */
  ready: Promise<void>;
  /**
   * Resolves once Hugo has finished a build that began at or after `since` (ms since the epoch: a
   * save's time, so that build has read it), or `waitMs` after `since` when no build has begun by then
   * (a change Hugo does not build). Never later than a minute.
   */
  settled(since: number, waitMs: number): Promise<void>;
  /** Called after each build Hugo finishes once ready, whoever caused it (a layout, static/, its config). */
  onBuilt(listener: () => void): void;
  /** Resolves with Hugo's exit code once it and everything it started are gone. */
  exited: Promise<number>;
  stop(): Promise<void>;
  kill(): void;
}

/** Hugo 0.111's lines: a rebuild begins, a build (first or later) ends, static files are copied. */
const BEGINS = /(detected, rebuilding site|^Start building sites)/;
const ENDS = /^Total in \d+ ms/;
const WATCHING = /^Watching for changes in /;
const SYNCING = /^Syncing /;
const ERROR = /^(Error:|ERROR )/;
/** A static-only change ends with its "Syncing …" line, and no "Total in": quiet this long after it, done. */
const SYNC_QUIET_MS = 150;
const SETTLE_CAP_MS = 60_000;

export function startHugoWatch(options: {
  root: string;
  env: NodeJS.ProcessEnv;
  /** The output folder (absolute): Hugo writes there, whatever its publishDir says. */
  outDir: string;
  /** Extra flags for hugo (`--hugo "--buildDrafts"`). */
  flags: readonly string[];
  printErr(line: string): void;
}): HugoWatch {
  const found = spawnSync('hugo', ['version'], { cwd: options.root, env: options.env, encoding: 'utf8' });
  if (found.error || found.status !== 0) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: 'package.json',
        field: 'scripts.dev',
        message: 'runs content-index dev --hugo, and hugo cannot be run here (it keeps the pages current)',
        hint: 'install Hugo (apt-get install hugo, brew install hugo, or npm i -D hugo-extended), or run content-index dev without --hugo',
      },
    ]);
  }
  const started = startSupervised(
    ['--exec', 'hugo', '--watch', '--destination', options.outDir, ...options.flags],
    { cwd: options.root, env: options.env },
  );
  const builds: { began: number; ended?: number }[] = [];
  const listeners: (() => void)[] = [];
  const waiters = new Set<() => void>();
  let first: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    first = { resolve, reject };
  });
  let isReady = false;
  let failure: string[] = [];
  let syncTimer: NodeJS.Timeout | undefined;

  const begin = () => {
    const open = builds.at(-1);
    if (!open || open.ended !== undefined) builds.push({ began: Date.now() });
    if (builds.length > 50) builds.splice(0, builds.length - 50);
  };
  const end = () => {
    clearTimeout(syncTimer);
    syncTimer = undefined;
    const open = builds.at(-1);
    if (open && open.ended === undefined) open.ended = Date.now();
    if (!isReady) return;
    for (const wake of [...waiters]) wake();
    for (const listener of listeners) listener();
  };
  const onLine = (raw: string) => {
    const line = stripAnsi(raw).trimEnd();
    if (line === '') return;
    // A static copy is done when Hugo has said nothing more for a moment (or ends a build it goes on to).
    if (syncTimer !== undefined) {
      clearTimeout(syncTimer);
      syncTimer = setTimeout(end, SYNC_QUIET_MS);
    }
    if (BEGINS.test(line)) {
      failure = [];
      begin();
    } else if (ENDS.test(line) && isReady) {
      end();
    } else if (SYNCING.test(line)) {
      begin();
      clearTimeout(syncTimer);
      syncTimer = setTimeout(end, SYNC_QUIET_MS);
    } else if (WATCHING.test(line) && !isReady) {
      isReady = true;
      end();
      first?.resolve();
    }
    if (ERROR.test(line)) {
      failure.push(line);
      if (isReady) options.printErr(`hugo: ${line}`);
    }
  };
  // Whole lines, each stream its own (Hugo writes its errors to stderr, the rest to stdout).
  const partial = { stdout: '', stderr: '' };
  for (const name of ['stdout', 'stderr'] as const) {
    started.process[name]?.on('data', (chunk: Buffer) => {
      const lines = (partial[name] + chunk.toString()).split('\n');
      partial[name] = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  void started.exited.then((code) => {
    for (const rest of Object.values(partial)) if (rest) onLine(rest);
    // Hugo stops after a first build that failed: its words are the error.
    const said =
      failure.length > 0 ? failure.join('\n') : `hugo --watch stopped (exit ${code}) before its first build`;
    first?.reject(
      new ContentIndexError([
        {
          code: 'source_unreadable',
          file: 'hugo',
          message: `could not build the pages: ${said}`,
          hint: 'fix what hugo says, then run dev again (hugo --watch stops when its first build fails)',
        },
      ]),
    );
    for (const wake of [...waiters]) wake();
  });

  return {
    ready,
    settled(since, waitMs) {
      const deadline = Date.now() + SETTLE_CAP_MS;
      return new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const check = () => {
          const after = builds.filter((b) => b.began >= since);
          const done = after.some((b) => b.ended !== undefined);
          const none = after.length === 0 && Date.now() >= since + waitMs;
          const gone = started.process.exitCode !== null || started.process.signalCode !== null;
          if (done || none || gone || Date.now() >= deadline) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
            return;
          }
          clearTimeout(timer);
          timer = setTimeout(check, after.length === 0 ? Math.max(since + waitMs - Date.now(), 1) : 250);
          timer.unref();
        };
        waiters.add(check);
        check();
      });
    },
    onBuilt(listener) {
      listeners.push(listener);
    },
    exited: started.exited,
    stop: started.stop,
    kill: started.kill,
  };
}
