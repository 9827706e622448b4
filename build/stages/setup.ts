import { relative, resolve } from 'node:path';
import { resolveSiteConfig } from '../core/config/resolve-site-config.ts';
import type { Env, SiteConfig } from '../core/config/site-config.ts';
import type { SourceDates } from '../core/content/generated.ts';
import type { HugoPublication } from '../core/content/publication.ts';
import type { Lifecycle } from '../core/edge/lifecycle.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { SERIALIZERS, type SerializerRegistry } from '../core/serializers/registry.ts';
import { announceFromLive, type LiveSite } from '../core/versions/live-check.ts';
import { aiPluginAssets } from './ai-plugin-assets.ts';
import { type AuthorFiles, loadAuthorFiles } from './load-author-files.ts';
import { importConfigModule } from './load-config.ts';
import { type LoadedLifecycle, loadLifecycle } from './load-lifecycle.ts';
import { existingFolderProblem, refusedOutput } from './output/guard.ts';
import { guardShapes } from './schema-snapshots.ts';
import { readSourceDates } from './source-dates.ts';
import { readWranglerConfig } from './wrangler-config.ts';

export interface SetupOptions {
  root?: string;
  content?: string;
  out?: string;
  config?: string;
  headers?: string;
  serializers?: SerializerRegistry;
  dryRun?: boolean;
  env?: Env;
  live?: LiveSite;
  /** A Hugo site's publication switches and languages (BuildOptions.hugo). */
  hugo?: HugoPublication;
  home: string;
}

/** What every later stage works from: the configuration, the lifecycle, and where things are. */
export interface Setup {
  root: string;
  config: SiteConfig;
  /** The author's `_headers` and `_redirects` (the project root's, then the generator's copies). */
  author: AuthorFiles;
  /** The configuration with ai-plugin.json's logo and contact held to what the site serves, and the warnings. */
  plugin: { config: SiteConfig; warnings: Problem[] };
  /** The site configuration file as given, and as messages name it (from the root). */
  configFile: string;
  configPath: string;
  headersFile: string;
  outDir: string;
  contentDir: string;
  staticDir: string | undefined;
  serializers: SerializerRegistry;
  headers: LoadedLifecycle;
  /** The versions' lifecycle, announced from the live site when given one. */
  lifecycle: Lifecycle;
  /** Read while the sources load: `SOURCE_DATE_EPOCH` and the last commit of the sources. */
  sourceDates: Promise<SourceDates>;
}

/**
 * The configuration stage: site.config.ts and headers.config.ts loaded and checked, the output folder
 * held to the guard's rules, the shape guard run, and the sources' dates asked of git meanwhile.
 */
export async function readSetup(options: SetupOptions, now: Date): Promise<Setup> {
  const root = resolve(options.root ?? '.');
  const configFile = options.config ?? 'site.config.ts';
  const configInput = await importConfigModule(root, configFile, 'site configuration');
  const { name: pagesProject } = (await readWranglerConfig(root)).config;
  const config = resolveSiteConfig(
    configInput,
    options.env ?? {},
    relative(root, resolve(root, configFile)),
    {
      ...(pagesProject !== undefined && { pagesProject }),
      ...(options.hugo && { hugo: options.hugo }),
    },
  );
  const outDir = resolve(root, options.out ?? 'public');
  const contentDir = resolve(root, options.content ?? config.content.dir);
  const staticDir = config.static === undefined ? undefined : resolve(root, config.static);
  const refused = refusedOutput(outDir, {
    root,
    home: options.home,
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
      relative(root, contentDir) || '.',
      relative(root, resolve(root, configFile)),
      relative(root, resolve(root, headersFile)),
    ],
    env: options.env ?? {},
  });
  // Awaited by the render stage; a rejection before then is not an unhandled one.
  sourceDates.catch(() => undefined);
  const configPath = relative(root, resolve(root, configFile)) || configFile;
  return {
    root,
    config,
    author: await loadAuthorFiles(root, config.generatorStatic),
    // The manifest's logo and contact, held to what the site serves (warnings; the logo found on the site).
    plugin: await aiPluginAssets(config, { root, outDir, configFile: configPath }),
    configFile,
    configPath,
    headersFile,
    outDir,
    contentDir,
    staticDir,
    serializers,
    headers,
    lifecycle,
    sourceDates,
  };
}
