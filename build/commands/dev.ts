import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { resolveSiteConfig } from '../core/config/resolve-site-config.ts';
import { DEFAULT_LAYOUT, type SiteConfig } from '../core/config/site-config.ts';
import { ContentIndexError, formatProblems, isContentIndexError } from '../core/errors.ts';
import { printable } from '../core/printable.ts';
import { type BuildOptions, type BuildResult, type Published, publish } from '../index.ts';
import { count, incrementalLine } from '../report.ts';
import { importLocally as importIntoLocalD1, readD1Manifest } from '../runtime/d1-import.ts';
import { STOP_EVENT } from '../runtime/dev-process.ts';
import type { QuietInspector } from '../runtime/devtools-quiet.ts';
import { withDocsPaths } from '../runtime/docs-path.ts';
import { type HugoWatch, startHugoWatch } from '../runtime/hugo-watch.ts';
import { newLiteralRedirects, redirectsServed } from '../runtime/redirects-probe.ts';
// The watcher (a native module) loads only when dev runs: every other command starts without it.
import type { SourceEvent, WatchPlan } from '../runtime/watch-sources.ts';
import {
  compatibilityArgs,
  type SupervisedWrangler,
  startSupervisedWrangler,
  stripAnsi,
} from '../runtime/wrangler.ts';
import { FragmentStore } from '../stages/fragment-store.ts';
import { sourcesUnchanged } from '../stages/items.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../stages/load.ts';
import { importConfigModule } from '../stages/load-config.ts';
import type { McpOutput } from '../stages/mcp-output.ts';
import { existingFolderProblem, refusedOutput } from '../stages/output/guard.ts';
import { PRIVATE_DIR } from '../stages/output/place.ts';
import { ParseCache } from '../stages/parse-cache.ts';
import { loadParsers } from '../stages/parse-files.ts';
import {
  type BuildFlags,
  buildOptions,
  printWarnings,
  reportFailure,
  withBuildFlags,
  withSiteGenerator,
} from './_shared.ts';

interface DevFlags extends BuildFlags {
  port: string;
  ip: string;
  /** wrangler's inspector port; a free one when not given. */
  inspectorPort?: string;
  /** `--hugo`: true, or extra flags for hugo. */
  hugo?: boolean | string;
}

/**
 * Coalesces the burst of events one save makes (write, rename, chmod) into one rebuild: they come
 * within a millisecond of each other, and each new one puts the rebuild off again. Short: a save is
 * served as soon as it is built (at 1,000 items the whole rebuild takes some 50 ms), and a rebuild
 * that starts too early is followed by another (the identity check, RECHECK_MS).
 */
const COALESCE_MS = 5;
/**
 * A write that lands while its file is being read can leave no later event (a watcher coalesces events
 * of one file that come close together): a little after a rebuild, the files it read are looked at
 * again, so such a write is built too.
 */
const RECHECK_MS = 60;
/**
 * With --hugo, how long after a save dev waits for Hugo to begin building it before it publishes the
 * index alone: Hugo gathers file events and builds every 500 ms, so a save it builds begins by then.
 */
const PAGES_WAIT_MS = 1000;
/**
 * The same for a file in the content folder, which Hugo always builds: on a loaded machine Hugo can
 * begin well after a second, and publishing the index first would list a page not written yet.
 */
const CONTENT_PAGES_WAIT_MS = 8000;
/** With --hugo, how long a rebuild looks again for pages Hugo is about to write (BuildOptions.pagesPatienceMs). */
const PAGES_PATIENCE_MS = 2000;
/** How long after a rebuild a changed _headers or _redirects is rewritten for wrangler (see nudgeRoutingFiles). */
const ROUTING_NUDGE_MS = 300;
/** How long wrangler has to answer a changed _redirects before dev restarts it (see confirmRedirects). */
const CONFIRM_MS = 5000;
/** How long confirmRedirects waits for wrangler to say it is ready. */
const READY_MS = 60_000;
/** At most this many of a changed _redirects' new rules are asked for. */
const MAX_PROBED_RULES = 5;
/** The parse cache is written this long after the last rebuild. */
const CACHE_SAVE_MS = 2000;
/** A build that trusted the watcher is checked against the whole content folder this long after. */
const VERIFY_MS = 1000;
/**
 * The /mcp data is written once dev has built nothing for this long: wrangler rebuilds and reloads the
 * Function when it changes, holding every request for about a second, which a save in a series of saves
 * would otherwise wait for (BuildOptions.deferMcpData).
 */
const MCP_DATA_IDLE_MS = 1000;
/**
 * How long after a rebuild publishes its output its MCP stage waits (publish in build/index.ts), unless
 * the next rebuild or a stop comes first: at 10,000 items the stage's 80 ms on the main thread delayed
 * wrangler's answers to the edit's first readers, who wait for it more than /mcp's do.
 */
const FINISH_AFTER_MS = 200;
/** How long a stop waits for the rebuild under way (one waiting for Hugo's pages waits up to 8 s). */
const STOP_WAIT_MS = 10_000;

/** Whether `work` ended within `ms`. */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const ended = work.then(
    () => true,
    () => true,
  );
  return Promise.race([ended, late]).finally(() => clearTimeout(timer));
}

export function registerDevCommand(program: Command, context: CliContext): void {
  withBuildFlags(
    program.command('dev').description('build, serve through wrangler pages dev, rebuild on every change'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--port <port>', 'port to serve on', '8788')
    .option('--ip <address>', 'address to listen on', '127.0.0.1')
    .option(
      '--inspector-port <port>',
      "port of wrangler's inspector, which dev holds to keep wrangler from recording every response (default: a free one)",
    )
    .option(
      '--hugo [flags]',
      "run Hugo's watch mode beside the server (hugo --watch, with these flags): pages and index follow every save",
    )
    .action((flags: DevFlags) => runDev(flags, context));
}

async function runDev(flags: DevFlags, context: CliContext): Promise<void> {
  const root = process.cwd();
  // Unchanged items keep their entries and fragments between rebuilds, and unchanged files their parsed
  // front matter: a save reads one file and redoes one item's fragments. Both live in memory here and
  // are written to .content-index/cache when dev is idle, off the path from a save to the served edit.
  const cache =
    flags.cache === false
      ? false
      : // Bodies, as a site's configuration has them by default; a site without is emptied once.
        ParseCache.open(root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, bodies: true });
  const store = flags.cache === false ? FragmentStore.memory() : FragmentStore.open(root);
  // The output is served as soon as it is written; the MCP data follows it (see BuildOptions.publishFirst).
  // Hugo's switches are read once: a change to the Hugo configuration takes a restart of dev.
  const base = await withSiteGenerator(buildOptions(flags, context), root, 'warn').catch((error: unknown) => {
    if (!isContentIndexError(error)) throw error;
    context.printErr(
      `warning: the Hugo configuration could not be read, so Hugo's publication rules are not applied:\n${withDocsPaths(formatProblems(error.problems))}`,
    );
    return buildOptions(flags, context);
  });
  const options: BuildOptions & { store: FragmentStore } = { ...base, cache, store, publishFirst: true };
  let saveTimer: NodeJS.Timeout | undefined;
  let verifyTimer: NodeJS.Timeout | undefined;
  const saveCache = async () => {
    if (cache) await cache.save().catch(() => undefined);
    await store.save().catch(() => undefined);
  };
  const saveWhenIdle = () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => void saveCache(), CACHE_SAVE_MS).unref();
  };
  const outDir = resolve(root, options.out ?? 'public');
  const configFile = resolve(root, flags.config ?? 'site.config.ts');
  const planFrom = (config: SiteConfig | undefined): WatchPlan => ({
    contentDir: resolve(root, flags.content ?? (config?.content ?? DEFAULT_LAYOUT).dir),
    globs: Object.values((config?.content ?? DEFAULT_LAYOUT).types).flat(),
    ...(config?.static !== undefined && { staticDir: resolve(root, config.static) }),
    files: [
      configFile,
      resolve(root, flags.headers ?? 'headers.config.ts'),
      ...['', ...(config?.generatorStatic ?? [])].flatMap((dir) => [
        join(dir, '_headers'),
        join(dir, '_redirects'),
      ]),
    ].map((f) => resolve(root, f)),
  });

  /** The last rebuild that published, and its result once its MCP stage has run. */
  let published: Published | undefined;
  let last: BuildResult | undefined;
  let wrangler: SupervisedWrangler | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopping = false;
  /** Files changed since the last rebuild started, with what happened to them. */
  const changed = new Map<string, SourceEvent>();
  /** Each file's identity when a rebuild last started, to tell later writes from those it saw. */
  const seen = new Map<string, string>();
  /** When the oldest change waiting was seen, Hugo's own builds included (the fallback of `lastChange`). */
  let firstChange: number | undefined;
  /** When the watcher's newest event waiting was seen: what Hugo's build must begin after, with --hugo. */
  let lastChange: number | undefined;
  /** dev --hugo: Hugo's watch mode, started before the first build. */
  let pages: HugoWatch | undefined;
  /**
   * While a rebuild waits for Hugo's pages: whether a Hugo build ended meanwhile, and whether the rebuild
   * looked at the output after waiting (then it carries that build's pages).
   */
  let carrying: { pages: boolean; ended?: boolean } | undefined;
  /** Stands for "Hugo wrote the pages" among the changes: a rebuild carries them and re-merges static/'s files. */
  const PAGES = join(outDir, '.');
  /** Files only content-index reads: a change to them is built at once, Hugo or not. */
  const ownFiles = new Set(
    [configFile, flags.headers ?? 'headers.config.ts', '_headers', '_redirects'].map((f) => resolve(root, f)),
  );

  // The D1 backend serves from wrangler's local D1 (the same state `wrangler pages dev` uses): each build
  // whose content changed is imported there, and the local database switched to it. Imports run one at
  // a time beside the rebuilds (at 10,000 items one takes seconds): saves are served meanwhile, and only
  // the newest build waiting is imported next.
  let importing: Promise<void> | undefined;
  let waiting = false;
  // Stopping dev ends an import under way (minutes at 10,000 items with bodies) rather than waiting
  // for it; the next start imports that build again.
  const importStop = new AbortController();
  const importOne = async (): Promise<void> => {
    const manifest = await readD1Manifest(root);
    if (!manifest) return;
    const where = { remote: false, root, env: { ...process.env, ...context.env } };
    const imported = await importIntoLocalD1(manifest, where, {
      signal: importStop.signal,
      onWait: (holder) =>
        context.print(`… D1 (local): waiting for the import under way into it (process ${holder})`),
    });
    if (imported.imported) {
      context.print(
        `✓ D1 (local): ${manifest.generation} imported in ${(imported.ms / 1000).toFixed(1)} s and live`,
      );
    }
  };
  const importLocally = (result: BuildResult): void => {
    if (result.mcp?.backend !== 'd1' || !result.mcpData?.written) return;
    waiting = true;
    if (importing) return;
    importing = (async () => {
      while (waiting && !stopping) {
        waiting = false;
        try {
          await importOne();
        } catch (error) {
          if (stopping) break;
          const message = error instanceof Error ? error.message : String(error);
          context.printErr(`✗ D1 (local): ${message}; /mcp still serves the last imported build`);
        }
      }
      importing = undefined;
    })();
  };

  /** The _headers and _redirects wrangler was last made to read (see nudgeRoutingFiles). */
  const routing = new Map<string, string>();
  /** Set when Hugo built: it may have copied static/'s routing files over the build's (see below). */
  let generatorWrote = false;
  // wrangler re-reads these files on a change event of the file it watches (chokidar, one inode, events
  // within 5 ms of another dropped). A generation switch gives it one, but Hugo copies static/'s files
  // in place (truncate, then write): wrangler can read the file empty between the two, drop the second
  // event, and serve no rules until the next change. Replacing the file a moment after a rebuild (same
  // bytes, so the generation's record holds; renamed over, so never read half-written) is one event it
  // reads whole. A file counts as told only once replaced: when another writer came first, the next
  // rebuild tries again.
  const nudgeRoutingFiles = async (): Promise<void> => {
    const force = generatorWrote;
    generatorWrote = false;
    for (const name of ['_redirects', '_headers']) {
      const file = join(outDir, name);
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined || (routing.get(name) === text && !force)) continue;
      if (!routing.has(name)) {
        // wrangler read this one itself when it started.
        routing.set(name, text);
        continue;
      }
      await new Promise((r) => setTimeout(r, ROUTING_NUDGE_MS));
      if (stopping) return;
      // False when another writer came first (replaceWhole checks, next to its rename).
      if (await replaceWhole(file, text)) routing.set(name, text);
    }
    void confirmRedirects();
  };
  const probeHost =
    flags.ip === '0.0.0.0'
      ? '127.0.0.1'
      : flags.ip === '::'
        ? '[::1]'
        : flags.ip.includes(':')
          ? `[${flags.ip}]`
          : flags.ip;
  const probeOrigin = `http://${probeHost}:${flags.port}`;
  /** Whether the current wrangler said it is ready. */
  let wranglerReady = false;
  /** The _redirects text wrangler was seen answering (or read itself at its start). */
  let confirmed: string | undefined;
  let confirming = false;
  let confirmAgain = false;
  // A watch wrangler lost (two events on its file within its 5 ms throttle, the second the file's
  // deletion: Hugo's copy, then a switch, on a loaded machine) is not repaired by any write. The new
  // rules are asked for as a browser would; when wrangler keeps answering the old ones, it is restarted.
  const confirmRedirects = async (): Promise<void> => {
    if (confirming) {
      confirmAgain = true;
      return;
    }
    confirming = true;
    try {
      do {
        confirmAgain = false;
        await confirmOnce();
      } while (confirmAgain && !stopping);
    } finally {
      confirming = false;
    }
  };
  const confirmOnce = async (): Promise<void> => {
    const file = join(outDir, '_redirects');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined || confirmed === undefined || text === confirmed) {
      confirmed ??= text;
      return;
    }
    const rules = newLiteralRedirects(confirmed, text).slice(0, MAX_PROBED_RULES);
    const ready = Date.now() + READY_MS;
    while (!wranglerReady && !stopping && Date.now() < ready) await new Promise((r) => setTimeout(r, 200));
    if (!wranglerReady) return;
    const deadline = Date.now() + CONFIRM_MS;
    while (rules.length > 0 && !(await redirectsServed(probeOrigin, rules))) {
      // Changed again meanwhile: the rebuild that changed it asks again (confirmAgain).
      if (stopping || (await readFile(file, 'utf8').catch(() => undefined)) !== text) return;
      if (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      context.printErr(
        `! wrangler still answers the earlier ${printable(`${outDir}/_redirects`)}: restarting it`,
      );
      const old = wrangler;
      wrangler = undefined;
      wranglerReady = false;
      await old?.stop();
      if (stopping) return;
      wrangler = serve(true);
      break;
    }
    confirmed = text;
  };
  let toldMcp = false;
  // node:http loads when dev starts this server, not with every command (cli.ts imports this file).
  const { startMcpDataServer } = await import('../runtime/mcp-data-server.ts');
  const mcpServer = await startMcpDataServer(root);
  /** The /mcp data of the last build, not written yet (see MCP_DATA_IDLE_MS), and that build. */
  let pendingMcp: { write: () => Promise<void>; result: BuildResult } | undefined;
  let mcpTimer: NodeJS.Timeout | undefined;
  const writeMcpDataWhenIdle = (): void => {
    clearTimeout(mcpTimer);
    mcpTimer = setTimeout(() => void writeMcpData(), MCP_DATA_IDLE_MS);
    mcpTimer.unref();
  };
  const writeMcpData = async (atStop = false): Promise<void> => {
    if ((running || finishing) && !atStop) return writeMcpDataWhenIdle();
    clearTimeout(mcpTimer);
    // While dev serves the data itself, the module stays the pointer to it until dev stops.
    if (mcpServer.serving && !atStop) return;
    const pending = pendingMcp;
    pendingMcp = undefined;
    if (!pending) return;
    try {
      await pending.write();
      importLocally(pending.result);
    } catch (error) {
      const message = isContentIndexError(error)
        ? formatProblems(error.problems)
        : error instanceof Error
          ? error.message
          : String(error);
      context.printErr(`✗ the /mcp data could not be written: ${message}; /mcp serves the build before`);
    }
  };
  /**
   * The warnings as last printed: a save whose build has the same ones says so on its line instead of
   * printing them again (a configuration's warnings came back at every save, burying the rebuild lines).
   */
  let shownWarnings = '';
  /**
   * The rebuild under way, if any. A stop waits for it: ended after the stop, it would hand its data to
   * the server and put the pointer back in the module, where the stop had just written the data itself.
   */
  let underWay: Promise<boolean> | undefined;
  /** Whether the build published (false: it failed, and the last good build is still served). */
  const rebuild = (
    reason: string,
    changedFiles?: ReadonlySet<string>,
    pagesReady?: () => Promise<void>,
  ): Promise<boolean> => {
    underWay = rebuildNow(reason, changedFiles, pagesReady);
    return underWay;
  };
  /** The rest of the last rebuild (its MCP stage), not run yet (see FINISH_AFTER_MS). */
  let unfinished: (() => Promise<void>) | undefined;
  let finishTimer: NodeJS.Timeout | undefined;
  /** The rest of the last rebuild, under way. */
  let finishing: Promise<void> | undefined;
  /** Set once a stop has handled the last rebuild's /mcp data: a finish that ends later leaves it. */
  let closed = false;
  /** Runs the rest of the last rebuild, unless it has run; resolves once it has. */
  const finishNow = (): Promise<void> => {
    clearTimeout(finishTimer);
    const rest = unfinished;
    unfinished = undefined;
    if (rest) {
      const run = rest().finally(() => {
        if (finishing === run) finishing = undefined;
      });
      finishing = run;
    }
    return finishing ?? Promise.resolve();
  };
  /** The MCP stage's warnings as last printed (see shownWarnings). */
  let shownMcpWarnings = '';
  const rebuildNow = async (
    reason: string,
    changedFiles?: ReadonlySet<string>,
    pagesReady?: () => Promise<void>,
  ): Promise<boolean> => {
    clearTimeout(verifyTimer);
    try {
      // The store is the one the rebuild before recorded itself in.
      await finishNow();
      let deferred: { write: () => Promise<void>; mcp: McpOutput } | undefined;
      const { published: done, finish } = await publish({
        ...options,
        ...(changedFiles && { changed: changedFiles }),
        ...(pagesReady && { pagesReady }),
        ...(pages && { pagesPatienceMs: PAGES_PATIENCE_MS }),
        deferMcpData: (write, mcp) => {
          deferred = { write, mcp };
        },
      });
      published = done;
      const warned = formatProblems(done.warnings);
      const n = done.warnings.length;
      let standing = '';
      if (warned !== '' && warned === shownWarnings)
        standing = ` · the ${count(n, 'warning')} printed before still ${n === 1 ? 'stands' : 'stand'}`;
      else if (warned === '' && shownWarnings !== '') standing = ' · no warnings now';
      else printWarnings(done.warnings, context);
      shownWarnings = warned;
      context.print(
        `✓ ${reason}: ${count(done.items, 'item')} in ${Math.round(done.durationMs)} ms (${incrementalLine(done.incremental)})${standing}`,
      );
      unfinished = async () => {
        try {
          last = await finish();
          // Ended after a stop put the last data in the module (it outlived STOP_WAIT_MS): left out.
          if (closed) return;
          if (deferred) {
            pendingMcp = { write: deferred.write, result: last };
            // Embedded: the Function asks dev for the data, so its module (and wrangler's bundle) never
            // changes; the module gets the data itself when dev stops.
            if (deferred.mcp.data) await mcpServer.serve(deferred.mcp.data);
            else writeMcpDataWhenIdle();
          }
          const more = last.warnings.filter((w) => !done.warnings.includes(w));
          if (formatProblems(more) !== shownMcpWarnings) printWarnings(more, context);
          shownMcpWarnings = formatProblems(more);
          if (last.mcpData && !last.mcpData.written && !toldMcp) {
            toldMcp = true;
            context.print(
              `  /mcp serves the last build of ${printable(last.mcpData.served)} (the folder wrangler.toml's pages_build_output_dir names), not of ${printable(outDir)}: its data is bundled with every wrangler run of the project`,
            );
          }
        } catch (error) {
          shownMcpWarnings = '';
          failed(`${reason}, its /mcp data`, error, '/mcp serves the build before');
        } finally {
          // What it recorded in the store (or the store it built again) is saved too.
          saveWhenIdle();
        }
      };
      // A stop takes the rest at once (as the first build does, whose data wrangler bundles at its start).
      if (stopping) await finishNow();
      else finishTimer = setTimeout(() => void finishNow(), FINISH_AFTER_MS);
      if (changedFiles) verifyTimer = setTimeout(() => void verify(), VERIFY_MS).unref();
      void nudgeRoutingFiles();
      return true;
    } catch (error) {
      // The next good build prints its warnings again, below the problems printed now.
      shownWarnings = '';
      shownMcpWarnings = '';
      // A content folder moved away (a checkout, a sync tool): its return is a change.
      if (isContentIndexError(error)) watcher.awaitReturn(plan.contentDir);
      failed(reason, error, 'still serving the last good build');
      return false;
    } finally {
      saveWhenIdle();
    }
  };
  /** A rebuild's problems, or its internal error, then what is served meanwhile. */
  const failed = (what: string, error: unknown, serving: string): void => {
    if (isContentIndexError(error)) {
      context.printErr(withDocsPaths(formatProblems(error.problems)));
      context.printErr(`✗ ${what}: ${count(error.problems.length, 'problem')}; ${serving}`);
    } else {
      // Not the author's mistake, and no reason to stop serving either: the next save tries again.
      const message = error instanceof Error ? error.message : String(error);
      context.printErr(`✗ ${what}: internal error: ${message}; ${serving}`);
      if (flags.debug && error instanceof Error && error.stack) context.printErr(error.stack);
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    if (!stopping && !running) timer = setTimeout(() => void flush(), COALESCE_MS);
  };
  const flush = async (): Promise<void> => {
    if (running || stopping || changed.size === 0) return;
    running = true;
    // The last change's time: Hugo can split one save (a rename's two events) over two of its builds,
    // and only a build that began after the last event has read all of them.
    const since = lastChange ?? firstChange;
    const batch = new Map(changed);
    changed.clear();
    firstChange = undefined;
    lastChange = undefined;
    // With Hugo beside it, a save Hugo builds too is published once Hugo has written its pages: a new
    // page and its index entry are served together, and this build carries Hugo's fresh pages. The build
    // runs meanwhile and waits only before it looks at the output (BuildOptions.pagesReady).
    let pagesReady: (() => Promise<void>) | undefined;
    if (pages && since !== undefined && [...batch.keys()].some((p) => p !== PAGES && !ownFiles.has(p))) {
      const content = [...batch.keys()].some((path) => isInside(plan.contentDir, path));
      const settled = pages.settled(since, content ? CONTENT_PAGES_WAIT_MS : PAGES_WAIT_MS);
      // Content saves only: Hugo has written their pages when its build ends. A static/ change is synced
      // by Hugo with no such end (dev guesses it from a quiet moment), so the rebuild that follows every
      // Hugo build stays, and merges whatever copy Hugo wrote late.
      const contentOnly = [...batch.keys()].every(
        (path) => path === PAGES || isInside(plan.contentDir, path),
      );
      const carried = { pages: false };
      if (contentOnly) carrying = carried;
      pagesReady = async () => {
        await settled;
        carried.pages = true;
      };
    }
    const files = [...batch.keys()].filter((path) => path !== PAGES);
    try {
      for (const [path, identity] of identities(files)) seen.set(path, identity);
      // Content files saved in place: the build takes the watcher's word that nothing else changed.
      const edits = [...batch].every(
        ([path, event]) => path === PAGES || (event === 'change' && isInside(plan.contentDir, path)),
      );
      const built = await rebuild(
        batch.size === 1 && batch.has(PAGES)
          ? 'rebuilt after hugo wrote the pages'
          : `rebuilt after ${reasonFor(root, new Map([...batch].filter(([path]) => path !== PAGES)))}`,
        edits ? new Set(files) : undefined,
        pagesReady,
      );
      // A Hugo build that ended meanwhile is in this one, unless it published without looking (recalled).
      if (carrying?.ended && built && !carrying.pages) {
        changed.set(PAGES, 'change');
        firstChange ??= Date.now();
      }
      if (batch.has(configFile)) {
        plan = planFrom(published?.config ?? (await configOf(root, configFile, context)));
        watcher.update(plan);
      }
    } finally {
      carrying = undefined;
      running = false;
    }
    setTimeout(() => recheck(files), RECHECK_MS).unref();
    schedule();
  };
  const recheck = (paths: readonly string[]): void => {
    for (const [path, identity] of identities(paths)) {
      if (seen.get(path) !== identity && !changed.has(path))
        changed.set(path, identity === GONE ? 'unlink' : 'change');
    }
    if (changed.size > 0) schedule();
  };

  /**
   * After a build that took the watcher's word, the content folder is looked at in full once dev is
   * idle: a change the watcher missed still gets built, a little later.
   */
  const verify = async (): Promise<void> => {
    if (running || stopping || changed.size > 0 || !last) return;
    // The store is looked at as the last rebuild recorded itself in it.
    await finishNow();
    if (running || stopping) return;
    const unchanged = await sourcesUnchanged({
      root,
      layout: last.config.content,
      ...(options.content !== undefined && { content: options.content }),
      maxFileBytes: DEFAULT_MAX_FILE_BYTES,
      bodies: last.config.mcp.bodies,
      store,
      exclude: [outDir, resolve(root, PRIVATE_DIR)],
    }).catch(() => false);
    if (unchanged || running || stopping) return;
    changed.set(plan.contentDir, 'change');
    schedule();
  };

  const initial = planFrom(await configOf(root, configFile, context));
  let plan = initial;
  // Refused before anything runs: wrangler must never serve (nor the build link) the project or the home.
  const refused =
    refusedOutput(outDir, {
      root,
      home: homedir(),
      content: initial.contentDir,
      ...(initial.staticDir !== undefined && { staticDir: initial.staticDir }),
    }) ?? (await existingFolderProblem(outDir, root));
  if (refused) {
    context.exit(reportFailure(new ContentIndexError([refused]), context, { debug: false, wrote: false }));
    return;
  }
  // Loaded when dev starts, as the MCP data server is (cli.ts imports this file for every command).
  const { freeLoopbackPort, quietNetworkRecording } = await import('../runtime/devtools-quiet.ts');
  const inspectorPort = flags.inspectorPort ?? String(await freeLoopbackPort());
  /** dev as the DevTools client of the current wrangler (devtools-quiet.ts). */
  let quiet: Promise<QuietInspector | undefined> | undefined;
  // Watching starts before the first build, so nothing saved while it runs is missed.
  let watchSources: typeof import('../runtime/watch-sources.ts').watchSources;
  try {
    ({ watchSources } = await import('../runtime/watch-sources.ts'));
  } catch (error) {
    // The watcher is a native module, prebuilt per platform as an optional package.
    context.printErr(
      `✗ dev cannot watch the sources on ${process.platform}-${process.arch}: ${error instanceof Error ? error.message : String(error)}\n  hint: reinstall without omitting optional dependencies (@parcel/watcher's prebuilt ${process.platform}-${process.arch} package), or build it: npm rebuild @parcel/watcher --build-from-source; content-index build works without it`,
    );
    context.exit(2);
    return;
  }
  const watcher = watchSources(initial, {
    ignore: [outDir, resolve(root, PRIVATE_DIR)],
    ignorePrefixes: [join(dirname(outDir), `.${basename(outDir)}.content-index`)],
    onChange: (path, event) => {
      const at = Date.now();
      const identity = identities([path]).get(path);
      if (identity === seen.get(path)) return; // a rebuild already read the file as it is now
      // Named for what the file is now: events of one save can arrive late and out of order.
      changed.set(path, identity === GONE ? 'unlink' : event === 'unlink' ? 'change' : event);
      firstChange ??= at;
      lastChange = at;
      schedule();
    },
    onError: (error) => context.printErr(`warning: while watching: ${error.message}`),
  });
  await watcher.ready;
  // Defined before Hugo starts: Hugo may stop during the first build, and dev with it.
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Its rebuild's data is the newest, and what the module gets below; one that does not end (a
    // configuration that never finishes loading) is left behind, and the build before it stays.
    if (underWay && !(await within(underWay, STOP_WAIT_MS)))
      context.printErr(
        `! the rebuild under way did not end within ${STOP_WAIT_MS / 1000} s; stopping without it (the /mcp data module holds the build before)`,
      );
    else if (!(await within(finishNow(), STOP_WAIT_MS)))
      context.printErr(
        `! the /mcp data of the last rebuild was not worked out within ${STOP_WAIT_MS / 1000} s; stopping without it (the /mcp data module holds the build before)`,
      );
    closed = true;
    clearTimeout(timer);
    clearTimeout(saveTimer);
    clearTimeout(verifyTimer);
    importStop.abort();
    await importing;
    // What the next start (or a wrangler pages dev of its own) bundles: the last build's data itself.
    await writeMcpData(true);
    await mcpServer.close();
    await saveCache();
    await watcher.close().catch(() => undefined);
    void quiet?.then((q) => q?.close());
    await Promise.all([wrangler?.stop(), pages?.stop()]);
    if (code) context.exit(code);
    finish();
  };
  if (flags.hugo !== undefined && flags.hugo !== false) {
    try {
      pages = startHugoWatch({
        root,
        env: { ...process.env, ...context.env },
        outDir,
        flags: typeof flags.hugo === 'string' ? flags.hugo.split(/\s+/).filter(Boolean) : [],
        printErr: (line) => context.printErr(line),
      });
      await pages.ready;
    } catch (error) {
      await pages?.stop();
      await watcher.close().catch(() => undefined);
      context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      return;
    }
    context.print('✓ hugo: pages built; hugo --watch keeps them current');
    pages.onBuilt(() => {
      generatorWrote = true;
      // A build a rebuild waits for is carried by that rebuild (it looks at the output after); any other
      // (a layout, static/, Hugo's configuration) gets one of its own, which also merges static/'s
      // _headers and _redirects over Hugo's copies.
      if (carrying && !carrying.pages) {
        carrying.ended = true;
        return;
      }
      changed.set(PAGES, 'change');
      firstChange ??= Date.now();
      schedule();
    });
    void pages.exited.then((code) => {
      if (stopping) return;
      context.printErr(`✗ hugo stopped (exit ${code}); stopping`);
      void stop(code || 1);
    });
  }
  running = true;
  await rebuild('built');
  await finishNow();
  running = false;
  // Stopped meanwhile (Hugo went): nothing more is started.
  if (stopping) return finished;
  // wrangler bundles the data at its start: the first build's goes in at once.
  await writeMcpData();
  // A first build that found nothing changed since `content-index build` wrote no data, and so started
  // no import; the local D1 may still lack its generation (a new clone, .wrangler/ removed, an import
  // stopped by the last dev), and /mcp would answer 503 until a save. Imported unless it is there.
  if (!importing && last) importLocally(last);

  // wrangler watches _headers, _redirects and _routes.json by path and re-reads them on a change; after a
  // switch those paths lead into the new generation, and deleting the old one is the change it sees.
  const serve = (restarted = false): SupervisedWrangler => {
    const startedAt = Date.now();
    const url = `http://${flags.ip}:${flags.port}`;
    const args = [
      'pages',
      'dev',
      outDir,
      '--ip',
      flags.ip,
      '--port',
      flags.port,
      '--inspector-port',
      inspectorPort,
    ];
    const started = startSupervisedWrangler(
      [...args, '--show-interactive-dev-session=false', ...compatibilityArgs(root)],
      { cwd: root, env: { ...process.env, ...context.env } },
    );
    const forward = (chunk: Buffer) => {
      for (const line of stripAnsi(chunk.toString()).split('\n')) {
        // wrangler's offline look-up of Request.cf is harmless noise; real errors still come through.
        if (/✘|\[ERROR\]|Address already in use/i.test(line)) context.printErr(`wrangler: ${line.trim()}`);
        if (/Ready on/.test(line)) {
          wranglerReady = true;
          void quiet?.then((q) => q?.close());
          quiet = stopping
            ? undefined
            : quietNetworkRecording(Number(inspectorPort)).catch((error: unknown) => {
                // A DevTools window connected first keeps the inspector: wrangler records as it does alone.
                const why = error instanceof Error ? error.message : String(error);
                context.printErr(
                  `! wrangler keeps a copy of every response for DevTools (${why}); dev serves more slowly`,
                );
                return undefined;
              });
          // /mcp answers 503 (Retry-After) until its tables are in the local D1 (core/edge/mcp/function.ts).
          const pending = importing ? '; /mcp answers 503 until the local D1 import is done' : '';
          context.print(`✓ serving ${url} (watching for changes; Ctrl+C stops)${pending}`);
        }
      }
    };
    started.process.stdout?.on('data', forward);
    started.process.stderr?.on('data', forward);
    void started.exited.then((code) => {
      // A wrangler dev restarts on purpose (confirmRedirects) is no longer `wrangler`.
      if (stopping || wrangler !== started) return;
      // One that dev restarted and that ends at once (its port not free yet): once more, a moment later.
      if (restarted && Date.now() - startedAt < 10_000) {
        setTimeout(() => {
          if (!stopping && wrangler === started) wrangler = serve();
        }, 1000).unref();
        return;
      }
      context.printErr(`✗ wrangler stopped (exit ${code}); stopping`);
      void stop(code || 1);
    });
    return started;
  };
  wrangler = serve();
  void confirmRedirects();
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  // Asked by the bin that started dev in a Node of its own (runtime/dev-process.ts), or that bin gone.
  process.on(STOP_EVENT, () => void stop(0));
  // Whatever ends this process, wrangler goes with it (its supervisor also sees its stdin close).
  process.once('exit', () => {
    wrangler?.kill();
    pages?.kill();
  });
  schedule(); // what was saved during the first build
  // While wrangler starts (seconds), what the first save would otherwise load and decode on its way
  // to being served: the parsers, and the store's records when the first build found nothing changed
  // (some 150 ms and a full collection at 1,000 items). A rebuild under way reads what it needs itself.
  const warm = async () => {
    await loadParsers().catch(() => undefined);
    if (running || stopping) return;
    try {
      store.warm();
    } catch {
      // A store that cannot be read is the next build's to report (it builds without it).
    }
  };
  setImmediate(() => void warm());
  await finished;
}

/** The site configuration for deciding what to watch; when it cannot be read, the defaults. */
async function configOf(root: string, file: string, context: CliContext): Promise<SiteConfig | undefined> {
  try {
    const input = await importConfigModule(root, file, 'site configuration');
    return resolveSiteConfig(input, context.env, shownPath(root, file));
  } catch {
    return undefined; // the build reports what is wrong with it
  }
}

function reasonFor(root: string, batch: ReadonlyMap<string, SourceEvent>): string {
  const [first, ...rest] = [...batch].sort(([a], [b]) => (a < b ? -1 : 1));
  if (!first) return 'a change';
  const [path, event] = first;
  const what =
    event === 'unlink'
      ? `${printable(shownPath(root, path))} was deleted`
      : `a change to ${printable(shownPath(root, path))}`;
  return rest.length > 0 ? `${what} and ${count(rest.length, 'other file')}` : what;
}

const GONE = 'gone';

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** A path as messages show it: relative to the project root. */
function shownPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/') || '.';
}

/**
 * inode, size and time: what changes when a file is written or replaced. Synchronous: a save's event
 * waited twice for the thread pool before its rebuild began (a few files; a checkout's thousand are
 * some milliseconds of stats).
 */
function identities(paths: readonly string[]): Map<string, string> {
  return new Map(
    paths.map((path) => {
      const s = statSync(path, { throwIfNoEntry: false });
      return [path, s ? `${s.ino}:${s.size}:${s.mtimeMs}` : GONE] as const;
    }),
  );
}

/**
 * Puts `text` at `file` in one rename from a sibling of the folder it is in (a `trash-` name, which the
 * next build's recovery deletes if dev is killed in between). False when it could not.
 */
async function replaceWhole(file: string, text: string): Promise<boolean> {
  try {
    const target = await realpath(file);
    // Another writer (the next rebuild's switch, Hugo) came first: that one is read instead.
    if ((await readFile(target, 'utf8')) !== text) return false;
    const staged = join(
      dirname(dirname(target)),
      `trash-nudge-${basename(target)}-${process.pid}-${randomBytes(4).toString('hex')}`,
    );
    await writeFile(staged, text);
    await rename(staged, target);
    return true;
  } catch {
    return false;
  }
}
