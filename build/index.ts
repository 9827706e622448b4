import { homedir } from 'node:os';
import { relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveSiteConfig } from './core/config/resolve-site-config.ts';
import type { Env, SiteConfig } from './core/config/site-config.ts';
import { assemble } from './core/content/assemble.ts';
import type { ContentModel, FollowedLink } from './core/content/model.ts';
import type { HugoPublication } from './core/content/publication.ts';
import { publishedSections } from './core/content/section-items.ts';
import type { McpPrepared } from './core/edge/mcp/mcp-data.ts';
import { ContentIndexError, isContentIndexError, type Problem } from './core/errors.ts';
import type { DeployLimits } from './core/output/cloudflare-limits.ts';
import {
  type DeploymentFigures,
  deployLimits,
  deploymentProblems,
  type Headroom,
  headroom,
} from './core/output/deploy-limits.ts';
import type { OutputFile } from './core/output/outputs.ts';
import { render } from './core/output/render.ts';
import { validateIndex } from './core/output/validate-index.ts';
import { SERIALIZERS, type SerializerRegistry } from './core/serializers/registry.ts';
import { announceFromLive, compareWithLive, type LiveSite } from './core/versions/live-check.ts';
import {
  PUBLISHED_RECORD_FILE,
  recordPublished,
  renderPublishedRecord,
} from './core/versions/published-record.ts';
import { liveRemovals, type Removals } from './core/versions/removals.ts';
import { aiPluginAssets } from './stages/ai-plugin-assets.ts';
import { docsAssets } from './stages/docs-assets.ts';
import { DEFAULT_MAX_FILE_BYTES, loadSources } from './stages/load.ts';
import { loadAuthorFiles } from './stages/load-author-files.ts';
import { importConfigModule } from './stages/load-config.ts';
import { loadLifecycle } from './stages/load-lifecycle.ts';
import { type McpOutput, mcpOutput } from './stages/mcp-output.ts';
import { existingFolderProblem, refusedOutput } from './stages/output/guard.ts';
import { PRIVATE_DIR } from './stages/output/place.ts';
import { ParseCache } from './stages/parse-cache.ts';
import { writePublishedRecord } from './stages/published-record.ts';
import { guardShapes } from './stages/schema-snapshots.ts';
import { checkSitePages, type SitePagesCheck } from './stages/site-pages.ts';
import { readSourceDates } from './stages/source-dates.ts';
import { readWranglerConfig, servedOutput } from './stages/wrangler-config.ts';
import { type OutputStep, writeOutput } from './stages/write.ts';
import {
  countOtherFiles,
  hasMcpModule,
  recoverHeldPrivateFiles,
  type StagedPrivateFiles,
  stagePrivateFiles,
  writePrivateFiles,
} from './stages/write-private.ts';

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
export type { SerializerRegistry, VersionContext, VersionSerializer } from './core/serializers/registry.ts';
export { SERIALIZERS } from './core/serializers/registry.ts';
export type { LiveSite } from './core/versions/live-check.ts';
export { fetchLive } from './stages/fetch-live.ts';
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
  /** From this many files on, parsing is shared with a worker thread (default 10,000: below it the worker costs more to start than it saves). */
  parallelThreshold?: number;
  /**
   * Parsed front matter of unchanged files, kept between builds. Default: the project's cache in
   * `.content-index/cache/`, read and (unless a dry run) written by this build; `false`: none, every
   * file is read and parsed. A given cache is used and not written: its owner saves it (dev, when idle).
   */
  cache?: ParseCache | false;
  /**
   * Dev, with a given `cache`: the only content files (absolute paths) changed since the last build
   * with that cache, as its watcher saw them; none added or removed. The other files are taken from the
   * cache without listing the folders or looking at each file (dev checks them when idle, see
   * sourcesUnchanged). A path the last build did not read makes this build look at everything.
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
  /** Called with every output file as soon as they are rendered and valid (the CLI starts compressing them for the report). */
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

export type BuildStage = 'config' | 'load' | 'assemble' | 'render' | 'write';

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
  /** What the MCP server serves, before a backend's form is chosen for it. */
  mcpPrepared: McpPrepared;
  /** The MCP backend chosen and what it writes into `.content-index/` (absent with `deployment: false`). */
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

/**
 * load → validate → assemble → render → validate output → write. Throws ContentIndexError carrying every
 * problem found; nothing is written unless the whole build succeeded.
 */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const timings: BuildResult['timings'] = { config: 0, load: 0, assemble: 0, render: 0, write: 0 };
  let mark = started;
  const stage = (name: BuildStage, detail?: string) => {
    options.onStage?.(name, detail);
    return () => {
      const now = performance.now();
      timings[name] = now - mark;
      mark = now;
    };
  };
  const root = resolve(options.root ?? '.');
  const clock = options.clock ?? (() => new Date());
  const now = clock();

  let done = stage('config');
  const configFile = options.config ?? 'site.config.ts';
  const configInput = await importConfigModule(root, configFile, 'site configuration');
  const configShown = relative(root, resolve(root, configFile));
  const { name: pagesProject } = (await readWranglerConfig(root)).config;
  const config = resolveSiteConfig(configInput, options.env ?? {}, configShown, {
    ...(pagesProject !== undefined && { pagesProject }),
    ...(options.hugo && { hugo: options.hugo }),
  });
  const outDir = resolve(root, options.out ?? 'public');
  const contentDir = resolve(root, options.content ?? config.content.dir);
  const staticDir = config.static === undefined ? undefined : resolve(root, config.static);
  const refused = refusedOutput(outDir, {
    root,
    home: options.home ?? homedir(),
    content: contentDir,
    ...(staticDir !== undefined && { staticDir }),
  });
  if (refused) throw new ContentIndexError([refused]);
  // Only a build that writes turns the folder into a link; a dry run (check, mcp --sources) asks nothing.
  const occupied = options.dryRun ? undefined : await existingFolderProblem(outDir, root);
  if (occupied) throw new ContentIndexError([occupied]);
  const serializers = options.serializers ?? SERIALIZERS;
  const headersFile = options.headers ?? 'headers.config.ts';
  const headers = await loadLifecycle({ root, file: headersFile, now, serializers, config });
  await guardShapes(serializers, headers.lifecycle, now);
  const lifecycle = options.live ? announceFromLive(headers.lifecycle, options.live, now) : headers.lifecycle;
  // Read while the sources load: the last commit that touched the content or the configuration.
  const sourceDates = readSourceDates({
    root,
    paths: [
      relative(root, resolve(root, options.content ?? config.content.dir)) || '.',
      relative(root, resolve(root, configFile)),
      relative(root, resolve(root, headersFile)),
    ],
    env: options.env ?? {},
  });
  done();

  done = stage('load');
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const cache =
    options.cache === undefined
      ? ParseCache.open(root, { maxFileBytes, bodies: config.mcp.bodies })
      : options.cache || undefined;
  const loaded = await loadSources({
    root,
    layout: config.content,
    ...(options.content !== undefined && { content: options.content }),
    maxFileBytes,
    bodies: config.mcp.bodies,
    ...(options.parallelThreshold !== undefined && { parallelThreshold: options.parallelThreshold }),
    ...(cache && { cache }),
    ...(cache && options.changed && { changed: options.changed }),
    exclude: [outDir, resolve(root, PRIVATE_DIR)],
  });
  // Kept whatever the content's problems: what was parsed is still what the files say. A cache that
  // cannot be written costs the next build its time, nothing else.
  if (options.cache === undefined && !options.dryRun) await cache?.save().catch(() => undefined);
  done();

  done = stage('assemble', `${loaded.files.length} files`);
  const assembled = assemble(loaded.files, config, {
    now,
    drafts: options.drafts ?? false,
    future: options.future ?? false,
    ...(options.hugo && { hugo: options.hugo }),
    branches: loaded.branches,
    contentDir: relative(root, contentDir).split(sep).join('/'),
    unreadable: loaded.unreadable,
  });
  const problems = [...loaded.problems, ...(assembled.ok ? [] : assembled.problems)];
  if (!assembled.ok || problems.length > 0) throw new ContentIndexError(problems);
  const { model } = assembled;
  // A Hugo section with no published item has no page: left out of the published sections, said.
  const sectionCheck = options.hugo
    ? publishedSections(config.sections, model, {
        site: config.site,
        layout: config.content,
        contentDir: relative(root, contentDir).split(sep).join('/') || '.',
        configFile: configShown,
      })
    : undefined;
  // Every file left out (all drafts, say): an empty index is published only with a word about it.
  const emptyWarnings: Problem[] =
    model.entries.length === 0 && model.leftOut.length > 0
      ? [
          {
            code: 'content_missing',
            file: relative(root, contentDir).split(sep).join('/') || '.',
            message: `publishes no item: each of its ${model.leftOut.length} content file${model.leftOut.length === 1 ? ' is' : 's are'} left out (${[...new Set(model.leftOut.map((l) => l.reason))].join(', ')}), so the index is empty`,
            hint: 'the report lists each file and why; publish one (draft: false, a date that has come) to fill the index',
          },
        ]
      : [];
  const publishedConfig: SiteConfig = sectionCheck
    ? { ...config, sections: sectionCheck.kept.map((k) => k.section) }
    : config;
  done();

  done = stage('render', `${model.entries.length} items`);
  const configPath = relative(root, resolve(root, configFile)) || configFile;
  const authorFiles = await loadAuthorFiles(root, config.generatorStatic);
  // The manifest's logo and contact, held to what the site serves (warnings; the logo found on the site).
  const assets = await aiPluginAssets(publishedConfig, { root, outDir, configFile: configPath });
  const rendered = render(model, {
    config: assets.config,
    now,
    sources: await sourceDates,
    lifecycle,
    serializers,
    author: authorFiles,
    // The API reference's renderer comes from node_modules: read here, published by the pure render().
    assets: await docsAssets(config.apiReference.path),
  });
  const invalid = Object.entries(rendered.bodies).flatMap(([version, body]) =>
    validateIndex(version, body, model, serializers[version]?.schema),
  );
  invalid.push(...rendered.manifestProblems);
  let removals: Removals | undefined;
  if (options.live) {
    removals = liveRemovals(options.live, rendered.bodies, {
      allow: options.allowRemovals ?? false,
      contentDir: relative(root, contentDir) || '.',
    });
    invalid.push(...removals.problems);
    invalid.push(
      ...compareWithLive(
        options.live,
        { lifecycle, bodies: rendered.bodies },
        {
          now,
          file: relative(root, resolve(root, headersFile)),
          ...(options.allowDroppedFields && { allowDroppedFields: options.allowDroppedFields }),
        },
      ),
    );
  }
  if (invalid.length > 0) throw new ContentIndexError(invalid);
  options.onRendered?.(rendered.files);
  const pageWarnings: Problem[] = [];
  const sitePages: SitePagesCheck = options.sitePages
    ? await checkSitePages({
        root,
        outDir,
        config: publishedConfig,
        ...(sectionCheck && { sectionFields: sectionCheck.kept.map((k) => `sections.${k.index}.url`) }),
        configFile: configShown,
        model,
        branches: loaded.branches,
        ownPaths: new Set(rendered.files.map((file) => file.path)),
        mode: options.sitePages,
        warn: (problems) => pageWarnings.push(...problems),
      })
    : {
        ran: false,
        why: 'no site generator (Hugo, Astro) in this project: there are no pages of its own to check the index against',
      };

  // The MCP backend, and every limit Cloudflare would otherwise enforce at upload or at the first request.
  let mcp: McpOutput | undefined;
  let mcpData: BuildResult['mcpData'];
  const mcpWarnings: Problem[] = [];
  let figures: DeploymentFigures | undefined;
  const checkDeployment = async () => {
    if (!(options.deployment ?? true)) return;
    const limits = deployLimits(config.plan, options.limits);
    mcp = await mcpOutput(rendered.mcp, {
      config,
      configFile: configPath,
      root,
      limits,
      fileOf: (pos) => model.entries[pos]?.canonical.file ?? `item ${pos}`,
    });
    figures = {
      plan: config.plan,
      limits,
      files: rendered.files.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content) })),
      otherFiles: await countOtherFiles(root, outDir, staticDir),
      workerGzipBytes: mcp.workerGzipBytes,
      items: model.entries.length,
      outDir: relative(root, outDir) || '.',
    };
    const overLimits = [...mcp.problems, ...deploymentProblems(figures, configPath)];
    if (overLimits.length > 0) throw new ContentIndexError(overLimits);
    const served = await servedOutput(root);
    mcpData = {
      // With no data yet (a fresh clone), this build's is the only one the Function can bundle.
      written:
        !options.dryRun && (options.writeMcpData ?? (outDir === served.path || !(await hasMcpModule(root)))),
      served: served.path,
    };
    if (!options.dryRun && !mcpData.written && !served.declared) {
      // Likely the folder this site deploys, undeclared: say how to make /mcp follow it.
      const shown = relative(root, outDir) || '.';
      mcpWarnings.push({
        code: 'config_invalid',
        file: served.file,
        field: 'pages_build_output_dir',
        message: `is not set, so the /mcp data in ${PRIVATE_DIR}/ belongs to the build of ${relative(root, served.path) || '.'}; this build into ${shown} left it as it was`,
        hint: `if ${shown} is the folder you deploy, set pages_build_output_dir = "${shown}" in ${served.file} (Cloudflare Pages reads it too)`,
      });
    }
  };
  if (!options.publishFirst) await checkDeployment();
  done();

  done = stage('write', `${rendered.files.length} files`);
  const record = recordPublished(headers.record.record, lifecycle);
  const warnings = [
    ...headers.warnings,
    ...loaded.warnings,
    ...assembled.warnings,
    ...emptyWarnings,
    ...(sectionCheck?.warnings ?? []),
    ...assets.warnings,
    ...pageWarnings,
  ];
  let staged: StagedPrivateFiles | undefined;
  if (!options.dryRun) {
    try {
      // A deploy of another folder killed before it put the served build's data back: put it back now.
      await recoverHeldPrivateFiles(root);
      // The /mcp data is written in full before the output switches and put in place after it: a
      // failure to write it leaves both as they were.
      if (mcp && mcpData?.written) staged = await stagePrivateFiles(root, mcp.files);
      const written = await writeOutput(outDir, rendered.files, {
        root,
        ...(staticDir !== undefined && { staticDir }),
        apiReference: config.apiReference.path,
        generatorCopies: authorFiles.generatorCopies,
        ...(options.onOutputStep && { onStep: options.onOutputStep }),
        ...(options.cache === false && { reuseStatic: false }),
      });
      warnings.push(...written.warnings);
    } catch (error) {
      await staged?.discard();
      throw outputFailed(error, root, outDir);
    }
  }
  // Dev: the output is served before the MCP data is worked out (it is never deployed from here).
  if (options.publishFirst) await checkDeployment();
  warnings.push(...mcpWarnings);
  if (!options.dryRun) {
    try {
      if (staged) await staged.commit();
      else if (options.publishFirst && mcp && mcpData?.written) await writePrivateFiles(root, mcp.files);
    } catch (error) {
      throw mcpDataFailed(error, root, outDir);
    }
    // After the output, so the record never lists a version this build failed to write.
    if (renderPublishedRecord(record.record) !== headers.record.text) {
      await writePublishedRecord(root, record.record).catch((error: unknown) => {
        throw new ContentIndexError(
          [
            {
              code: 'output_failed',
              file: PUBLISHED_RECORD_FILE,
              message: `could not be written: ${error instanceof Error ? error.message : String(error)}`,
              hint: `the output was written; fix the permissions and build again so ${PUBLISHED_RECORD_FILE} records ${record.added.join(', ') || 'the published versions'}`,
            },
          ],
          { outputChanged: true },
        );
      });
    }
  }
  done();
  return {
    config,
    model,
    outDir,
    contentDir,
    files: rendered.files,
    warnings,
    links: loaded.links,
    recorded: record.added,
    durationMs: performance.now() - started,
    timings,
    mcpPrepared: rendered.mcp,
    ...(mcp && { mcp }),
    ...(mcpData && { mcpData }),
    ...(figures && { headroom: headroom(figures) }),
    sitePages,
    ...(removals && { removals }),
  };
}

/** Validates everything a build would, writes nothing. */
export function check(options: Omit<BuildOptions, 'dryRun'> = {}): Promise<BuildResult> {
  return build({ ...options, dryRun: true });
}

/** The output folder switched, then the /mcp data could not be put in place: said as it is. */
function mcpDataFailed(error: unknown, root: string, outDir: string): Error {
  const shown = relative(root, outDir) || '.';
  return new ContentIndexError(
    [
      {
        code: 'output_failed',
        file: PRIVATE_DIR,
        message: `could not take this build's /mcp data: ${error instanceof Error ? error.message : String(error)}; ${shown} holds this build, /mcp still serves the previous one`,
        hint: 'check free disk space and permissions, then build again to bring /mcp in step',
      },
    ],
    { outputChanged: true },
  );
}

function outputFailed(error: unknown, root: string, outDir: string): Error {
  if (isContentIndexError(error)) return error;
  return new ContentIndexError([
    {
      code: 'output_failed',
      file: relative(root, outDir) || '.',
      message: `could not write the output: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'check free disk space and permissions; the previous output was left as it was',
    },
  ]);
}
