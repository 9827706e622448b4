import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { assemble } from './core/assemble.ts';
import { ContentIndexError, type Problem } from './core/errors.ts';
import type { ContentModel } from './core/model.ts';
import { render } from './core/render.ts';
import { resolveSiteConfig } from './core/resolve-site-config.ts';
import type { Env, SiteConfig } from './core/site-config.ts';
import { validateIndex } from './core/validate-index.ts';
import { docsAssets } from './stages/docs-assets.ts';
import { DEFAULT_MAX_FILE_BYTES, loadSources } from './stages/load.ts';
import { importConfigModule } from './stages/load-config.ts';
import { type WriteResult, writeOutput } from './stages/write.ts';

export type { Problem } from './core/errors.ts';
export { ContentIndexError, formatProblem, formatProblems, isContentIndexError } from './core/errors.ts';
export { defineSite } from './core/site-config.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined };

export interface BuildOptions {
  /** Project root; other paths are relative to it. Default: the current directory. */
  root?: string;
  /** Default: `content`. */
  content?: string;
  /** Default: `public`. */
  out?: string;
  /** Default: `site.config.ts`. */
  config?: string;
  drafts?: boolean;
  future?: boolean;
  /** Validate and render, but write nothing. */
  dryRun?: boolean;
  /** Source of "now" for future-dated items and `generated`. Tests inject one. */
  clock?: () => Date;
  /** Environment for configuration overrides. Default: none (the CLI passes process.env). */
  env?: Env;
  logger?: Logger;
  maxFileBytes?: number;
}

export interface BuildResult {
  config: SiteConfig;
  model: ContentModel;
  outDir: string;
  /** Files written (empty on a dry run), with their sizes. */
  written: WriteResult['written'];
  warnings: Problem[];
  durationMs: number;
}

/**
 * load → validate → assemble → render → validate output → write. Throws ContentIndexError carrying every
 * problem found; nothing is written unless the whole build succeeded.
 */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const root = resolve(options.root ?? '.');
  const clock = options.clock ?? (() => new Date());
  const now = clock();
  const configFile = options.config ?? 'site.config.ts';
  const configInput = await importConfigModule(root, configFile, 'site configuration');
  const config = resolveSiteConfig(configInput, options.env ?? {}, relative(root, resolve(root, configFile)));

  const loaded = await loadSources({
    root,
    content: options.content ?? 'content',
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  });
  const assembled = assemble(loaded.files, config, {
    now,
    drafts: options.drafts ?? false,
    future: options.future ?? false,
  });
  const problems = [...loaded.problems, ...(assembled.ok ? [] : assembled.problems)];
  if (!assembled.ok || problems.length > 0) throw new ContentIndexError(problems);
  const { model } = assembled;

  const rendered = render(model, { config, generated: now });
  const invalid = Object.entries(rendered.bodies).flatMap(([version, body]) =>
    validateIndex(version, body, model),
  );
  if (invalid.length > 0) throw new ContentIndexError(invalid);

  const outDir = resolve(root, options.out ?? 'public');
  let written: WriteResult['written'] = [];
  if (!options.dryRun) {
    try {
      written = (await writeOutput(outDir, [...rendered.files, ...(await docsAssets())])).written;
    } catch (error) {
      throw new ContentIndexError([
        {
          code: 'output_failed',
          file: relative(root, outDir) || '.',
          message: `could not write the output: ${error instanceof Error ? error.message : String(error)}`,
          hint: 'check free disk space and permissions; the previous output was left as it was',
        },
      ]);
    }
  }
  return {
    config,
    model,
    outDir,
    written,
    warnings: assembled.warnings,
    durationMs: performance.now() - started,
  };
}

/** Validates everything a build would, writes nothing. */
export function check(options: Omit<BuildOptions, 'dryRun'> = {}): Promise<BuildResult> {
  return build({ ...options, dryRun: true });
}
