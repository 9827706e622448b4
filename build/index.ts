import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Env, SiteConfig } from './core/config/site-config.ts';
import { generatedFollowsClock, type SourceDates } from './core/content/generated.ts';
import type { ContentModel, FollowedLink } from './core/content/model.ts';
import type { HugoPublication } from './core/content/publication.ts';
import type { McpPrepared } from './core/edge/mcp/mcp-data.ts';
import type { Problem } from './core/errors.ts';
import { mcpInfo } from './core/mcp/prepare-mcp.ts';
import type { DeployLimits } from './core/output/cloudflare-limits.ts';
import { type Headroom, headroom } from './core/output/deploy-limits.ts';
import type { OutputFile } from './core/output/outputs.ts';
import { mcpPrepared } from './core/output/render.ts';
import type { SerializerRegistry } from './core/serializers/registry.ts';
import type { LiveSite } from './core/versions/live-check.ts';
import type { Removals } from './core/versions/removals.ts';
import { planDeployment } from './stages/deployment.ts';
import { digest, serializersFingerprint, toolFingerprint } from './stages/fingerprint.ts';
import { FragmentStore, leaseStore, StoreDamage, type StoreLease } from './stages/fragment-store.ts';
import { buildItems, type ItemCounts, type Items, storedItems } from './stages/items.ts';
import { DEFAULT_MAX_FILE_BYTES, type LoadOptions } from './stages/load.ts';
import type { McpOutput } from './stages/mcp-output.ts';
import { PRIVATE_DIR } from './stages/output/place.ts';
import { ParseCache } from './stages/parse-cache.ts';
import { publishOutput, publishPrivate, recordVersions } from './stages/publish.ts';
import { renderOutput } from './stages/render-output.ts';
import { readSetup, type Setup } from './stages/setup.ts';
import type { SitePagesCheck } from './stages/site-pages.ts';
import { type BuildSummary, fileSizes, summaryOf, writtenFiles } from './stages/summary.ts';
import { inputsDigest, leftBy, outputStamps, unchangedSince, validUntil } from './stages/unchanged.ts';
import type { OutputStep } from './stages/write.ts';

export type { CacheControlInput, HeadersConfigInput, VersionInput } from './core/config/lifecycle-config.ts';
export { defineHeaders } from './core/config/lifecycle-config.ts';
export type {
  ContentLayoutInput,
  LanguageRule,
  McpConfigInput,
  SectionInput,
  SiteConfig,
  SiteConfigInput,
} from './core/config/site-config.ts';
export { defineSite } from './core/config/site-config.ts';
export type { ContentEntry, ContentModel, Translation } from './core/content/model.ts';
// The package's public API (`import { … } from 'content-index'`): the configuration helpers and their
// types, the programmatic build, its errors, and the version registry a custom version extends.
export type { Problem, ProblemCode } from './core/errors.ts';
export { ContentIndexError, formatProblem, formatProblems, isContentIndexError } from './core/errors.ts';
export type {
  Joined,
  SerializerRegistry,
  VersionContext,
  VersionSerializer,
} from './core/serializers/registry.ts';
export { joinable, SERIALIZERS } from './core/serializers/registry.ts';
export type { LiveSite } from './core/versions/live-check.ts';
export { fetchLive } from './stages/fetch-live.ts';
export type { BuildSummary, FileSize } from './stages/summary.ts';
export type { OutputStep } from './stages/write.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface BuildOptions {
  /** Project root; other paths are relative to it. Default: the current directory. */
  root?: string;
  /** Overrides the configuration's `content.dir` (default `content`). */
  content?: string;
  /** Default: `public`. */
  out?: string;
  /** Default: `site.config.ts`. */
  config?: string;
  /** The versions' lifecycle and header policy. Default: `headers.config.ts`. */
  headers?: string;
  /** The versions this build can publish. Default: `SERIALIZERS` (v1); add a version with `{ ...SERIALIZERS, v2 }`. */
  serializers?: SerializerRegistry;
  drafts?: boolean;
  future?: boolean;
  /**
   * A Hugo site's publication switches and languages (`buildDrafts`, `buildFuture`, `buildExpired`,
   * `disableLanguages`): Hugo's page rules then decide what is published, as Hugo does (docs/authoring.md).
   * The CLI reads them from the site's Hugo configuration; without them, `draft` and `date` only.
   */
  hugo?: HugoPublication;
  /**
   * The output as a witness: check the index against the site generator's pages in the output folder
   * (stages/site-pages.ts). `error`: an address that is no page stops the build; `warn` (dev, where the
   * generator's own watch may lag a save): a warning. Default: not checked; the CLI asks for it in a
   * Hugo or Astro project.
   */
  sitePages?: 'error' | 'warn';
  /**
   * dev --hugo: resolves once the site generator has written the pages of the save being built. The
   * build reads and renders meanwhile, and waits for it only before it looks at the output folder (the
   * site-pages check, the write): a page and its index entry are published together, and the build's
   * own time is no longer added to the generator's.
   */
  pagesReady?: () => Promise<void>;
  /**
   * dev --hugo: how long the site-pages check looks again while it finds dead addresses (a page Hugo is
   * about to write, for a file the build read before its event arrived), before it warns.
   */
  pagesPatienceMs?: number;
  /** Validate and render, but write nothing. */
  dryRun?: boolean;
  /**
   * Source of "now": which future-dated items and API versions are published. Tests inject one.
   * `generated` is derived from the content and never later than it (build/core/content/generated.ts).
   */
  clock?: () => Date;
  /** Environment for configuration overrides and `SOURCE_DATE_EPOCH`. Default: none (the CLI passes process.env). */
  env?: Env;
  maxFileBytes?: number;
  /**
   * From this many files on, parsing is shared with a worker thread (default 10,000: below it the worker
   * costs more to start than it saves); from this many items whose D1 rows are made, so is making them
   * (default 2,000); from this many files whose stamps a build looks at, so is taking them (default
   * 5,000); from this many files parsed with their bodies, the bodies wait in the item store's spool
   * rather than the heap (default 4,000).
   */
  parallelThreshold?: number;
  /**
   * Parsed front matter of unchanged files, kept between builds. Default: the project's cache in
   * `.content-index/cache/`, read and (unless a dry run) written by this build; `false`: none, every
   * file is read and parsed. A given cache is used and not written: its owner saves it (dev, when idle).
   */
  cache?: ParseCache | false;
  /**
   * Every item's entry and fragments, kept between builds (stages/fragment-store.ts). Default: the
   * project's, in `.content-index/cache/items/`, read and (unless a dry run) written by this build. A
   * given store is used and not written: its owner saves it (dev keeps one in memory).
   */
  store?: FragmentStore;
  /**
   * Dev, with a given `store`: the only content files (absolute paths) changed since the last build
   * with that store, as its watcher saw them; none added or removed. The other files are taken from the
   * cache without listing the folders or looking at each file (dev checks them when idle, see
   * sourcesUnchanged). A path the last build did not read makes this build look at everything. The
   * files named to builds that failed before they learned the files are looked at too, and after such a
   * build that was named none, every file (FragmentStore.changedSince).
   */
  changed?: ReadonlySet<string>;
  /**
   * What the deployed site publishes (`fetchLive`): the build then announces deprecations from the day
   * the live site first published them and refuses a configuration that breaks a live promise.
   */
  live?: LiveSite;
  /** With `live`: field paths (`content[].image`) the operator accepts losing from a live version. */
  allowDroppedFields?: readonly string[];
  /**
   * With `live`: accept taking a whole section, or more than a tenth of the live items, off the live
   * API (core/versions/removals.ts). The items that go are listed in the result either way.
   */
  allowRemovals?: boolean;
  /** Cloudflare's limits for the configured plan, some replaced: tests inject small ones. */
  limits?: Partial<DeployLimits>;
  /**
   * Work out the MCP backend's output and check the deployment against Cloudflare's limits. Default
   * true; `content-index mcp --sources` serves from memory and needs neither.
   */
  deployment?: boolean;
  /**
   * Write the output folder before working out the MCP data and checking the deployment against
   * Cloudflare's limits (dev: an edit is served as soon as it is built). A problem found then is still
   * thrown, but the output has been replaced: never for an output that is deployed.
   */
  publishFirst?: boolean;
  /**
   * dev: the /mcp data of a build served first (`publishFirst`) is handed over instead of written, for
   * dev to write once saves pause: wrangler rebuilds and reloads the Function when it changes, and holds
   * every request meanwhile (about a second), which would delay the save after it.
   */
  deferMcpData?: (write: () => Promise<void>, mcp: McpOutput) => void;
  /** Work out each file's compressed size for the report (on the thread pool, while the build writes). */
  sizes?: boolean;
  /** Called with every output file as soon as they are rendered and valid. */
  onRendered?: (files: readonly OutputFile[]) => void;
  /** Called as each stage starts; the CLI draws progress from it on a terminal. */
  onStage?: (stage: BuildStage, detail?: string) => void;
  /** Called after each step of the publication that changes the disk (tests stop the build at each). */
  onOutputStep?: (step: OutputStep) => void;
  /** The home folder the output may not be (tests give their own). Default: the user's. */
  home?: string;
  /**
   * Write the `/mcp` Function's data (`.content-index/worker/`, `d1/`). Default: only when the output
   * folder is the one the Pages project serves (`pages_build_output_dir`, `public`), whose build the
   * data belongs to: wrangler bundles it with every deployment of the project, so a build into another
   * folder (`--out preview --drafts`) must not replace it. `deploy` of another folder sets it, and puts
   * the served build's data back after the upload.
   */
  writeMcpData?: boolean;
}

export type BuildStage = 'config' | 'load' | 'assemble' | 'render' | 'mcp' | 'write';

export interface BuildResult {
  config: SiteConfig;
  model: ContentModel;
  outDir: string;
  /** Every file the build produced (written unless this was a dry run). */
  files: OutputFile[];
  /** The content folder it read, absolute. */
  contentDir: string;
  warnings: Problem[];
  /** Symbolic links among the content that the build read through (inside the project). */
  links: FollowedLink[];
  /**
   * Versions published for the first time by this build, added to `versions.lock.json` (a dry run
   * names them without writing).
   */
  recorded: string[];
  durationMs: number;
  /** Milliseconds per stage, for the report and the benchmarks. */
  timings: Record<BuildStage, number>;
  /** What the build did again and what it kept (stages/items.ts): the report tells it. */
  incremental: Incremental;
  /** What the report says: counts, left-out files, sizes (kept for a build that finds nothing changed). */
  summary: BuildSummary;
  /** What the MCP server serves, before a backend's form is chosen for it. */
  mcpPrepared: McpPrepared;
  /**
   * The MCP backend chosen and what it writes into `.content-index/` (absent with `deployment: false`).
   * Its D1 import's pieces may be read from the project's item store: until the next build() of the
   * same project without a `store` of its own, which closes it (fragment-store.ts leaseStore).
   */
  mcp?: McpOutput;
  /**
   * Whether this build wrote the MCP data into `.content-index/` (not in a dry run, nor by default for
   * an output folder other than `served`, the one the Pages project serves).
   */
  mcpData?: { written: boolean; served: string };
  /** The deployment against the plan's limits: largest file, file count, Worker size. */
  headroom?: Headroom;
  /** Whether the index was checked against the site generator's pages, and what that found. */
  sitePages: SitePagesCheck;
  /** With `live`: the live items this build's index no longer holds. */
  removals?: Removals;
}

/** What a build did again, and what it kept from the build before. */
export interface Incremental extends ItemCounts {
  /** Nothing changed since the last build (stages/unchanged.ts): nothing was run, nothing written. */
  unchanged: boolean;
  /** The ids of the items whose fragments were made (the first 200). */
  redoneItems: string[];
}

/**
 * config → (unchanged? the last build's result) → load (the items: files read, assembled, fragments
 * made where anything changed) → render (the outputs joined, held to their schemas) → mcp (the
 * backend's data, the plan's limits) → write. Throws ContentIndexError carrying every problem found;
 * nothing is written unless the whole build succeeded.
 */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const own: StoreLease = { running: true, pieces: [] };
  try {
    return await recovering(options, own, async (attempt) => (await runBuild(attempt, own)).finish());
  } finally {
    await own.store?.settled();
    own.running = false;
  }
}

/** What a build has published, told before the rest of it is run (publish). */
export interface Published {
  config: SiteConfig;
  /** Items in the index. */
  items: number;
  incremental: Incremental;
  /** Those found until the output was published: the MCP stage's come with the result. */
  warnings: Problem[];
  /** From the start to the output published. */
  durationMs: number;
}

/**
 * dev: the output built and published (`publishFirst`), and the rest of the build (the MCP stage, the
 * private files, the record of the build in the store) handed back as `finish`, for the caller to run
 * once the edit's readers have been answered: at 10,000 items the MCP stage's 80 ms on the main thread
 * competed with wrangler reading the new index for each GET. `finish` must have run (or failed) before
 * the next build with the same store; what it throws is what build() would have thrown.
 */
export async function publish(
  options: BuildOptions & { store: FragmentStore },
): Promise<{ published: Published; finish: () => Promise<BuildResult> }> {
  const own: StoreLease = { running: true, pieces: [] };
  const first = await recovering(options, own, (attempt) =>
    runBuild({ ...attempt, publishFirst: true }, own),
  );
  return {
    published: first.published,
    // A store found damaged by the MCP stage is dropped and the build run again whole, as build() does.
    finish: () =>
      recovering(
        options,
        own,
        () => first.finish(),
        (attempt) => build({ ...attempt, publishFirst: true }),
      ),
  };
}

/**
 * Runs `work`, and when the item store turns out damaged (what it kept is not what it wrote), drops it
 * and runs `again` from the sources, as a first build is (a dry run removes nothing: it runs without the
 * store).
 */
async function recovering<T>(
  options: BuildOptions,
  own: StoreLease,
  work: (attempt: BuildOptions) => Promise<T>,
  again: (attempt: BuildOptions) => Promise<T> = work,
): Promise<T> {
  try {
    return await work(options);
  } catch (error) {
    // A save begun by the build that failed ends before its store is dropped or built from again.
    await own.store?.settled();
    if (!(error instanceof StoreDamage)) throw error;
    if (options.store) options.store.discard(!options.dryRun);
    else if (options.dryRun) return await again({ ...options, store: FragmentStore.memory() });
    else own.store?.discard(true);
    return await again(options);
  }
}

/** A build run until its output is published (or, without `publishFirst`, until it is ready to be), and the rest of it. */
interface Run {
  published: Published;
  finish: () => Promise<BuildResult>;
}

async function runBuild(options: BuildOptions, own: StoreLease): Promise<Run> {
  const run = stages(options);
  const { now } = run;
  // Named by dev's watcher since the last build with the store: with the files named to the builds
  // since its last that learned, which failed (FragmentStore.changedSince).
  const changed = options.store ? options.store.changedSince(options.changed) : options.changed;
  const setup = await run.stage('config', () =>
    readSetup({ ...options, home: options.home ?? homedir() }, now),
  );
  const { root, config } = setup;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // `cache: false` (--no-cache): a build from nothing, which keeps nothing either.
  const store = options.store ?? (options.cache === false ? FragmentStore.memory() : leaseStore(root, own));
  const keys = contexts(setup, options, maxFileBytes);
  const load: LoadOptions = {
    root,
    layout: setup.config.content,
    ...(options.content !== undefined && { content: options.content }),
    maxFileBytes,
    bodies: config.mcp.bodies,
    ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
    exclude: [setup.outDir, resolve(root, PRIVATE_DIR)],
  };

  // A build that writes what the last one wrote is not run at all (stages/unchanged.ts).
  // Not when dev's watcher reported a change: the build is wanted, and it looks at that file alone.
  const recallable = !options.dryRun && !options.live && options.writeMcpData === undefined && !changed;
  const inputs = await run.stage('load', () => inputsDigest(setup, keys.context, buildFlags(options)));
  const checked = recallable
    ? await run.stage('load', () =>
        unchangedSince(store, inputs.inputs, now, load, options.sitePages && setup.outDir),
      )
    : undefined;
  const last = checked?.last;
  if (last) {
    store.upToDate();
    if (!options.store) await store.save().catch(() => undefined);
    const result = recalled(setup, store, last.summary as BuildSummary, run);
    return { published: publishedOf(result), finish: async () => result };
  }

  let parseCache = options.cache === undefined ? undefined : options.cache || undefined;
  const items = await run.stage('load', () =>
    buildItems({
      ...load,
      ...(changed && { changed }),
      config,
      now,
      drafts: options.drafts ?? false,
      future: options.future ?? false,
      ...(options.hugo && { hugo: options.hugo }),
      serializers: setup.serializers,
      store,
      ...(!options.dryRun && { bodySpool: () => store.bodySpool() }),
      ...(checked?.stamps && { stamps: checked.stamps }),
      ...keys,
      parseCache: (stat, stampByRead) => {
        if (options.cache === false) return undefined;
        parseCache ??= ParseCache.open(root, { maxFileBytes, bodies: config.mcp.bodies, stat, stampByRead });
        return parseCache;
      },
      onAssemble: () => run.next('assemble'),
    }),
  );
  // Kept whatever the build's outcome: what was parsed is still what the files say. A cache that cannot
  // be written costs the next build its time, nothing else.
  if (options.cache === undefined && !options.dryRun) await parseCache?.save().catch(() => undefined);
  parseCache = undefined;

  const rendered = await run.stage('render', () => renderOutput(setup, items, { ...options, now }));
  options.onRendered?.(rendered.files);
  const sizes = options.sizes
    ? fileSizes(rendered.files, store.last?.summary as BuildSummary | undefined)
    : undefined;
  const deployment = options.deployment ?? true;
  const plan = () =>
    run.stage('mcp', () =>
      planDeployment(setup, rendered, {
        ...(options.limits && { limits: options.limits }),
        ...(options.dryRun && { dryRun: true }),
        ...(options.writeMcpData !== undefined && { writeMcpData: options.writeMcpData }),
        // --no-cache: the D1 import's files are made whole, as the first build made them.
        ...(options.cache === false && { fromNothing: true }),
        ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
        // A dry run (check) writes nothing, not even this.
        ...(!options.dryRun && { spool: () => store.rowSpool() }),
        // The D1 import's files the last build wrote, still as it left them (their stamps).
        asLeft: leftBy(store.last),
      }),
    );
  // Dev: the output is served before the MCP data is worked out (it is never deployed from here).
  let planned = deployment && !options.publishFirst ? await plan() : undefined;
  // The store knows everything it keeps from here on (the D1 rows included): it is saved while the
  // output is written. Not dev's store, which dev saves when idle.
  if (planned && !options.dryRun && !options.store) store.saveBehind();
  const warnings = [
    ...setup.headers.warnings,
    ...items.warnings,
    ...setup.plugin.warnings,
    ...rendered.warnings,
  ];
  const published = await run.stage('write', async () => {
    if (options.dryRun) return undefined;
    await options.pagesReady?.();
    const mcp = planned?.mcpData.written ? planned.mcp : undefined;
    return publishOutput(setup, rendered.files, { ...options, ...(mcp && { mcp }) });
  });
  warnings.push(...(published?.warnings ?? []));
  const incremental: Incremental = { unchanged: false, ...items.counts, redoneItems: items.redone };
  const publishedMs = performance.now() - run.started;
  const finish = async (): Promise<BuildResult> => {
    // Its own time, not the time its caller let pass before running it (publish).
    const finishing = performance.now();
    if (deployment && options.publishFirst) planned = await plan();
    warnings.push(...(planned?.warnings ?? []));
    const recorded = await run.stage('write', async () => {
      if (!options.dryRun) {
        const privateFiles = published?.staged ?? (planned?.mcpData.written ? planned.mcp : undefined);
        if (options.deferMcpData && privateFiles && !('commit' in privateFiles))
          options.deferMcpData(() => publishPrivate(setup, privateFiles), privateFiles);
        else await publishPrivate(setup, privateFiles);
      }
      return recordVersions(setup, !options.dryRun);
    });
    const summary = summaryOf(items, rendered, planned, warnings, {
      ...(published && { written: published }),
      ...(sizes && { sizes: await sizes }),
      ...(store.last && { previous: store.last.summary as BuildSummary }),
    });
    if (!options.dryRun) {
      store.last = {
        inputs: inputs.inputs,
        ...untilOf(now, items, setup, inputs.sources),
        summary,
        ...(rendered.pagesStamp !== undefined && { pages: rendered.pagesStamp }),
        ...(items.branchesKey !== '' && { branches: items.branchesKey }),
        outputs: outputStamps(
          setup,
          rendered.files.map((f) => f.path),
        ),
      };
      store.touch();
      if (!options.store) await store.save().catch(() => undefined);
    }
    if (planned) own.pieces.push(...planned.mcp.files.map((file) => file.content));
    let model: ContentModel | undefined;
    let prepared: McpPrepared | undefined;
    return {
      config,
      get model() {
        model ??= items.model();
        return model;
      },
      outDir: setup.outDir,
      contentDir: setup.contentDir,
      files: rendered.files,
      warnings,
      links: items.links,
      recorded,
      durationMs: publishedMs + performance.now() - finishing,
      timings: run.timings,
      incremental,
      summary,
      get mcpPrepared() {
        prepared ??= mcpPrepared(rendered.mcp);
        return prepared;
      },
      ...(planned && {
        mcp: planned.mcp,
        mcpData: planned.mcpData,
        headroom: headroom(planned.figures),
      }),
      sitePages: rendered.sitePages,
      ...(rendered.removals && { removals: rendered.removals }),
    };
  };
  return {
    published: {
      config,
      items: items.items.length,
      incremental,
      warnings: [...warnings],
      durationMs: publishedMs,
    },
    finish,
  };
}

/** What a build's result tells of its publication. */
function publishedOf(result: BuildResult): Published {
  const { config, incremental, warnings, durationMs } = result;
  return { config, items: result.summary.items.total, incremental, warnings, durationMs };
}

/** Validates everything a build would, writes nothing. */
export function check(options: Omit<BuildOptions, 'dryRun'> = {}): Promise<BuildResult> {
  return build({ ...options, dryRun: true });
}

/** The options that change what a build writes, besides those the setup resolved. */
function buildFlags(options: BuildOptions): Record<string, unknown> {
  return {
    drafts: options.drafts ?? false,
    future: options.future ?? false,
    deployment: options.deployment ?? true,
    limits: options.limits ?? null,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    sitePages: options.sitePages ?? null,
  };
}

/** Until when the clock leaves this build's output as it is (stages/unchanged.ts). */
function untilOf(now: Date, items: Items, setup: Setup, sources: SourceDates): { validUntil?: number } {
  const follows = generatedFollowsClock(
    items.items.map((item) => item.facts.newest),
    sources,
    now,
  );
  const until = validUntil(now, items.changesAt, setup.lifecycle, follows);
  return until === undefined ? {} : { validUntil: until };
}

/** The last build's result, for a build that found nothing changed since: nothing was run again. */
function recalled(
  setup: Setup,
  store: FragmentStore,
  summary: BuildSummary,
  run: ReturnType<typeof stages>,
): BuildResult {
  let kept: ReturnType<typeof storedItems> | undefined;
  const stored = () => {
    kept ??= storedItems(store);
    return kept;
  };
  let files: OutputFile[] | undefined;
  return {
    config: setup.config,
    get model() {
      return stored().model();
    },
    outDir: setup.outDir,
    contentDir: setup.contentDir,
    get files() {
      files ??= writtenFiles(setup.outDir, summary);
      return files;
    },
    warnings: summary.warnings,
    links: summary.links,
    recorded: [],
    durationMs: performance.now() - run.started,
    timings: run.timings,
    incremental: {
      unchanged: true,
      files: store.files.size,
      read: 0,
      keyed: 0,
      placed: 0,
      assembled: 0,
      redone: 0,
      reused: summary.items.total,
      bodies: 0,
      spooled: 0,
      redoneItems: [],
    },
    summary,
    get mcpPrepared() {
      const { items } = stored();
      return mcpPrepared({
        info: mcpInfo(
          items.map((item) => item.facts),
          { config: setup.config, generated: new Date(summary.generated) },
        ),
        items,
      });
    },
    ...(summary.mcp && { mcp: { ...summary.mcp, files: [] } }),
    ...(summary.mcpData && { mcpData: summary.mcpData }),
    ...(summary.headroom && { headroom: summary.headroom }),
    sitePages: summary.sitePages,
  };
}

/** The build's clock and its stages' timings (each stage's time accumulates when it runs twice). */
function stages(options: BuildOptions) {
  const started = performance.now();
  const timings: BuildResult['timings'] = { config: 0, load: 0, assemble: 0, render: 0, mcp: 0, write: 0 };
  let current: BuildStage | undefined;
  let mark = started;
  const next = (name: BuildStage, detail?: string) => {
    const at = performance.now();
    if (current) timings[current] += at - mark;
    mark = at;
    current = name;
    options.onStage?.(name, detail);
  };
  return {
    started,
    now: (options.clock ?? (() => new Date()))(),
    timings,
    next,
    async stage<T>(name: BuildStage, work: () => T | Promise<T>): Promise<T> {
      next(name);
      try {
        return await work();
      } finally {
        const at = performance.now();
        if (current) timings[current] += at - mark;
        mark = at;
        current = undefined;
      }
    },
  };
}

/**
 * The digests items are kept by (stages/items.ts): `context`, all an item's assembly depends on besides
 * its files; `renderer`, all its fragments depend on besides its entry.
 */
function contexts(setup: Setup, options: BuildOptions, maxFileBytes: number) {
  const tool = toolFingerprint();
  const renderer = digest(tool, serializersFingerprint(setup.serializers));
  const context = digest(
    renderer,
    JSON.stringify(setup.config),
    String(options.drafts ?? false),
    String(options.future ?? false),
    JSON.stringify(options.hugo ?? null),
    String(maxFileBytes),
  );
  return { context, renderer };
}
