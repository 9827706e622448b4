import { homedir } from 'node:os';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { formatProblems, isContentIndexError, type Problem } from '../core/errors.ts';
import type { BuildOptions } from '../index.ts';
import { count } from '../report.ts';
import { formatAnnotation } from '../runtime/annotations.ts';
import { withDocsPaths } from '../runtime/docs-path.ts';
import { readHugoPublication } from '../runtime/hugo-rules.ts';
import { detectGenerator } from '../runtime/site-generator.ts';

export interface BuildFlags {
  content?: string;
  out?: string;
  config?: string;
  headers?: string;
  drafts?: boolean;
  future?: boolean;
  debug?: boolean;
  json?: boolean;
  verbose?: boolean;
  /** `--no-cache` sets it false. */
  cache?: boolean;
}

/** Flags every command that builds shares. */
export function withBuildFlags(command: Command): Command {
  return command
    .option('--content <dir>', 'content folder (default: content.dir of the configuration, or content)')
    .option('--config <file>', 'site configuration', 'site.config.ts')
    .option('--headers <file>', 'version lifecycle and header policy', 'headers.config.ts')
    .option('--drafts', 'include files marked draft: true')
    .option('--future', 'include files dated in the future')
    .option(
      '--no-cache',
      'build from nothing: read and parse every content file, redo every item (nothing in .content-index/cache is used or kept)',
    )
    .addOption(new Option('--debug', 'print stack traces of internal errors'));
}

export function buildOptions(flags: BuildFlags, context: CliContext): BuildOptions {
  const options: BuildOptions = {
    env: context.env,
    drafts: flags.drafts ?? false,
    future: flags.future ?? false,
  };
  if (flags.content) options.content = flags.content;
  if (flags.out) options.out = expandHome(flags.out);
  if (flags.config) options.config = flags.config;
  if (flags.headers) options.headers = flags.headers;
  if (flags.cache === false) options.cache = false;
  // Test-only: smaller Cloudflare limits, as JSON (`{"workerGzipBytes":1000}`), so the tests reach
  // them without giant fixtures. Never set it for a real deploy.
  const limits = context.env.CONTENT_INDEX_TEST_LIMITS;
  if (limits) options.limits = JSON.parse(limits) as BuildOptions['limits'];
  return options;
}

/**
 * The build options of a project with a site generator: a Hugo site's publication switches and
 * languages, read from its configuration in `root`, so the build publishes what Hugo does
 * (docs/authoring.md, Publication rules); and, for Hugo and Astro, the check of the index against the
 * pages the generator wrote into the output folder (`sitePages`: `warn` in dev).
 */
export async function withSiteGenerator(
  options: BuildOptions,
  root: string,
  sitePages: 'error' | 'warn' = 'error',
): Promise<BuildOptions> {
  const { generator } = await detectGenerator(root);
  if (generator === 'none') return options;
  const hugo = generator === 'hugo' ? await readHugoPublication(root) : undefined;
  return { ...options, sitePages, ...(hugo && { hugo }) };
}

/** `~` as a shell would read it, for a value that reached us unexpanded (quoted, or from an npm script). */
function expandHome(path: string): string {
  if (path === '~') return homedir();
  if (/^~[\\/]/.test(path)) return join(homedir(), path.slice(2));
  return path;
}

export function inGitHubActions(context: CliContext): boolean {
  return context.env.GITHUB_ACTIONS === 'true';
}

/** Prints warnings; under GitHub Actions also as annotations. */
export function printWarnings(warnings: readonly Problem[], context: CliContext): void {
  if (warnings.length === 0) return;
  context.printErr(`warning:\n${withDocsPaths(formatProblems(warnings))}`);
  if (inGitHubActions(context)) for (const w of warnings) context.print(formatAnnotation(w, 'warning'));
}

/**
 * A user error prints its problems (and annotations under GitHub Actions) and returns 1; anything else
 * is a bug in content-index: one line, the stack only with --debug, and 2.
 */
export function reportFailure(
  error: unknown,
  context: CliContext,
  options: { debug: boolean; wrote: boolean; outcome?: string; command?: string },
): number {
  if (isContentIndexError(error)) {
    context.printErr(withDocsPaths(formatProblems(error.problems)));
    if (inGitHubActions(context)) for (const p of error.problems) context.print(formatAnnotation(p, 'error'));
    context.printErr(
      `\n✗ ${count(error.problems.length, 'problem')}${options.wrote ? (error.outputChanged ? '; the output folder holds this build (see above)' : '; the output folder was not changed') : ''}${options.outcome ? `; ${options.outcome}` : ''}.`,
    );
    if (options.debug && error.stack) context.printErr(error.stack);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  const where = options.command ? ` in \`content-index ${options.command}\`` : '';
  context.printErr(`✗ internal error${where}: ${message}`);
  context.printErr(
    options.debug && error instanceof Error && error.stack
      ? error.stack
      : 'rerun with --debug for the stack trace',
  );
  return 2;
}
