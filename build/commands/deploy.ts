import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { ContentIndexError } from '../core/errors.ts';
import { deployLimits, formatSize, PLAN_NAME } from '../core/output/deploy-limits.ts';
import { printable } from '../core/printable.ts';
import { type BuildOptions, type BuildResult, build, type LiveSite } from '../index.ts';
import { count, sitePagesLines } from '../report.ts';
import {
  type D1Location,
  importGeneration,
  markPreview,
  readD1Manifest,
  switchGeneration,
} from '../runtime/d1-import.ts';
import { GENERATOR_COMMAND } from '../runtime/init-plan.ts';
import { detectGenerator } from '../runtime/site-generator.ts';
import { verifyOutput } from '../runtime/verify-output.ts';
import { compiledWorkerGzipBytes } from '../runtime/worker-size.ts';
import { spawnWrangler } from '../runtime/wrangler.ts';
import { readWranglerConfig, servedOutput } from '../stages/wrangler-config.ts';
import { holdPrivateFiles, privateFilesAre } from '../stages/write-private.ts';
import {
  configuredSite,
  livePassed,
  readLiveSite,
  removalLines,
  withAllowDroppedField,
} from './_live-check.ts';
import {
  type BuildFlags,
  buildOptions,
  reportFailure,
  withBuildFlags,
  withSiteGenerator,
} from './_shared.ts';

interface DeployFlags extends BuildFlags {
  projectName?: string;
  branch?: string;
  /** Where the live site is read; default: site in site.config.ts. */
  live?: string;
  skipLiveCheck?: boolean;
  allowDroppedField?: string[];
  allowRemovals?: boolean;
  allowUnpublishedInProduction?: boolean;
  apiOnly?: boolean;
}

export const DEPLOY_CREDENTIALS = ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID'] as const;

export function registerDeployCommand(program: Command, context: CliContext): void {
  const command = withBuildFlags(
    program
      .command('deploy')
      .description('build, verify the output and publish it with wrangler pages deploy'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--project-name <name>', 'Cloudflare Pages project (default: name in wrangler.toml)')
    .option('--branch <branch>', 'deploy as this branch (preview deployments)')
    .option('--live <url>', 'the live site the deploy is checked against (default: site in site.config.ts)')
    .option(
      '--skip-live-check',
      'deploy without comparing with the live site (for when it cannot be reached); says what was skipped',
    )
    .option(
      '--allow-unpublished-in-production',
      'let --drafts/--future reach the production site (without --branch they are refused)',
    )
    .option(
      '--api-only',
      "deploy an output folder that holds none of the site's pages (a Hugo or Astro project's are required otherwise)",
    );
  withAllowDroppedField(command).action(async (flags: DeployFlags) => {
    try {
      context.exit(await deploy(flags, context));
    } catch (error) {
      context.exit(
        reportFailure(error, context, {
          debug: flags.debug ?? false,
          wrote: false,
          outcome: 'nothing was deployed',
        }),
      );
    }
  });
}

async function deploy(flags: DeployFlags, context: CliContext): Promise<number> {
  unpublishedInProduction(flags, context);
  // Checked before anything else, so a missing secret costs no build and touches nothing.
  const missing = DEPLOY_CREDENTIALS.filter((name) => !context.env[name]);
  if (missing.length > 0) {
    throw new ContentIndexError(
      missing.map((name) => ({
        code: 'config_invalid' as const,
        file: `environment variable ${name}`,
        message: 'is not set; nothing was built or deployed',
        hint:
          name === 'CLOUDFLARE_API_TOKEN'
            ? 'create an API token with the "Cloudflare Pages: Edit" permission (dashboard → My Profile → API Tokens) and export CLOUDFLARE_API_TOKEN'
            : 'export CLOUDFLARE_ACCOUNT_ID (dashboard → Workers & Pages → Account ID)',
      })),
    );
  }
  const live = await liveCheck(flags, context);
  const root = process.cwd();
  const options = {
    ...(await withSiteGenerator(buildOptions(flags, context), root)),
    ...(live && { live }),
    ...(flags.allowDroppedField && { allowDroppedFields: flags.allowDroppedField }),
    ...(flags.allowRemovals && { allowRemovals: true }),
    // What is uploaded is this build's output with this build's /mcp data, whatever the folder.
    writeMcpData: true,
  };
  // The Function's data belongs to the served folder's build; another folder's is in its place only for
  // the upload, and the served build's goes back afterwards (even after a failure).
  const served = (await servedOutput(root)).path;
  const restore =
    resolve(root, options.out ?? 'public') === served ? undefined : await holdPrivateFiles(root);
  try {
    return await buildAndUpload(flags, context, options, root);
  } finally {
    if (restore) {
      await restore();
      context.print(
        `✓ /mcp data: .content-index/ holds the build of ${printable(relative(root, served) || '.')} again, the folder the Pages project serves`,
      );
    }
  }
}

async function buildAndUpload(
  flags: DeployFlags,
  context: CliContext,
  options: BuildOptions,
  root: string,
): Promise<number> {
  const result = await build(options);
  for (const line of removalLines(result)) context.print(line);
  if (options.live) context.print(livePassed(options.live));
  context.print(`✓ built ${count(result.summary.items.total, 'item')} into ${printable(result.outDir)}`);
  for (const line of sitePagesLines(result.sitePages, true)) context.print(line.trim());
  if (!flags.apiOnly) await requireSitePages(root, result);
  await verifyOutput(result.outDir, new Date());
  context.print('✓ output verified');
  const env = { ...process.env, ...context.env };

  // The Worker exactly as it will be uploaded: the build only estimated it.
  const limits = deployLimits(result.config.plan, options.limits);
  const workerBytes = await compiledWorkerGzipBytes(root, env);
  if (workerBytes !== undefined && workerBytes > limits.workerGzipBytes) {
    throw new ContentIndexError([
      {
        code: 'deploy_limit',
        file: 'functions',
        message: `the compiled Worker is ${formatSize(workerBytes)} compressed, over the ${PLAN_NAME[result.config.plan]}'s ${formatSize(limits.workerGzipBytes)} Worker limit; nothing was deployed`,
        hint:
          result.mcp?.backend === 'embedded'
            ? "set mcp: { backend: 'd1' } (or 'auto') in the site configuration, which takes the index out of the Worker"
            : 'your own Functions add to the Worker: make them smaller',
      },
    ]);
  }
  if (workerBytes !== undefined) {
    context.print(
      `✓ Worker ${formatSize(workerBytes)} compressed (${PLAN_NAME[result.config.plan]} limit ${formatSize(limits.workerGzipBytes)})`,
    );
  }

  // The D1 backend's step: the new generation's tables are imported before anything is published, and
  // the site switches to them only by being deployed (the Function names its generation).
  const manifest = result.mcp?.backend === 'd1' ? await readD1Manifest(root) : undefined;
  const where: D1Location = { remote: true, root, env };
  let imported: Awaited<ReturnType<typeof importGeneration>> | undefined;
  if (manifest) {
    await checkDatabaseId(root, manifest.binding);
    context.print(`… D1 import: ${manifest.generation} (${manifest.items} items) into ${manifest.database}`);
    imported = await importGeneration(manifest, where);
    context.print(
      imported.imported
        ? `✓ D1 import: ${manifest.generation} imported in ${(imported.ms / 1000).toFixed(1)} s`
        : `✓ D1 import: ${manifest.generation} was imported already (same content)`,
    );
  }

  const project = flags.projectName ?? (await projectName());
  // The module wrangler bundles now must be this build's: another build (a dev server, a build in
  // another terminal) may have written its own since.
  if (result.mcp && !(await privateFilesAre(root, result.mcp.files))) {
    throw new ContentIndexError([
      {
        code: 'output_failed',
        file: '.content-index/worker',
        message:
          'changed after this deploy built it (another build wrote its own /mcp data), so the upload would not match the output; nothing was deployed',
        hint: 'stop the other build (content-index dev, a build in another terminal) and deploy again',
      },
    ]);
  }
  const args = ['pages', 'deploy', result.outDir, '--project-name', project];
  if (flags.branch) args.push('--branch', flags.branch);
  const child = spawnWrangler(args, { cwd: root, env, stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => child.once('exit', (exit) => resolve(exit ?? 1)));
  if (!manifest) return code;
  if (code !== 0) {
    context.printErr(
      `✗ the deploy failed: D1 keeps serving the live generation; ${manifest.generation} stays imported for the next attempt`,
    );
    return code;
  }
  if (flags.branch) {
    // A preview shares the database with production: its tables are kept apart, never made live.
    await markPreview(manifest, where);
    context.print(`✓ D1: ${manifest.generation} serves the preview ${flags.branch}; production is unchanged`);
    return 0;
  }
  // The state read after the import: the switch holds whatever went live since (see switchGeneration).
  const dropped = await switchGeneration(manifest, where, imported?.state);
  context.print(
    `✓ D1: ${manifest.generation} is live${dropped.length ? `; dropped the tables of ${dropped.join(', ')}` : ''}`,
  );
  return 0;
}

/**
 * Drafts and future-dated items on the production site are a leak, not a preview: refused unless the
 * operator says so, before anything is built or read. A preview deployment (--branch) may show them.
 */
function unpublishedInProduction(flags: DeployFlags, context: CliContext): void {
  const asked = [flags.drafts && '--drafts', flags.future && '--future'].filter(
    (flag): flag is string => typeof flag === 'string',
  );
  if (asked.length === 0 || flags.branch) return;
  const what = asked.map((flag) => (flag === '--drafts' ? 'drafts' : 'future-dated items')).join(' and ');
  if (flags.allowUnpublishedInProduction) {
    context.printErr(
      `warning: ${asked.join(' ')} without --branch: this deploy publishes ${what} on the production site (--allow-unpublished-in-production)`,
    );
    return;
  }
  throw new ContentIndexError([
    {
      code: 'config_invalid',
      field: asked.join(' '),
      message: `would publish ${what} on the production site (no --branch); nothing was built or deployed`,
      hint: 'deploy a preview with --branch <name> (its own address, not the site), or pass --allow-unpublished-in-production if the production site is meant to show them',
    },
  ]);
}

/**
 * A project with a site generator deploys its pages with the API: an output folder where the build's
 * files are the only HTML (a fresh checkout, the generator not run: the folder is git-ignored) would
 * replace the live site with the API alone. Any page the build did not write counts, so a site without
 * a home page (Hugo's `disableKinds`) still passes.
 */
async function requireSitePages(root: string, result: BuildResult): Promise<void> {
  const { generator, evidence } = await detectGenerator(root);
  if (generator === 'none') return;
  const own = new Set(result.files.map((f) => f.path));
  const entries = await readdir(result.outDir, { recursive: true, withFileTypes: true });
  const page = entries.some((entry) => {
    if (!entry.isFile() || !/\.html?$/i.test(entry.name)) return false;
    const path = relative(result.outDir, join(entry.parentPath, entry.name)).split(sep).join('/');
    return !own.has(path);
  });
  if (page) return;
  const command = GENERATOR_COMMAND[generator] as string;
  const shown = relative(root, result.outDir) || result.outDir;
  throw new ContentIndexError([
    {
      code: 'output_refused',
      file: shown,
      message: `holds none of the site's pages (no HTML file content-index did not write), and this is ${generator === 'hugo' ? 'a Hugo' : 'an Astro'} site (${evidence}); nothing was deployed`,
      hint: `run ${command} first: \`${command} && content-index deploy${shown === 'public' ? '' : ` --out ${shown}`}\` (the deploy script init writes); to publish the API alone, pass --api-only`,
    },
  ]);
}

/** A remote import needs the database's id in wrangler.toml; a local one does not. */
async function checkDatabaseId(root: string, binding: string): Promise<void> {
  const { config } = await readWranglerConfig(root);
  const entry = config.d1Databases.find((d) => d.binding === binding);
  if (!entry?.database_id) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: config.file ?? 'wrangler.toml',
        field: 'd1_databases',
        message: `the database bound as ${binding} has no database_id; nothing was deployed`,
        hint: `run npx wrangler d1 create ${entry?.database_name ?? 'content-index'} (once) and copy the database_id it prints into the [[d1_databases]] entry`,
      },
    ]);
  }
}

/**
 * The live check step: before anything is built, read what the deployed site publishes so the build is
 * held to it. An unreachable site stops the deploy unless the operator says --skip-live-check.
 */
async function liveCheck(flags: DeployFlags, context: CliContext): Promise<LiveSite | undefined> {
  const address = flags.live ?? (await configuredSite(flags, context));
  if (flags.skipLiveCheck) {
    context.printErr(
      `warning: live check skipped (--skip-live-check): ${address} was not read, so nothing checked that this deploy keeps every live version and its publication date, never moves a live sunset earlier, keeps each deprecation 12 months from the day the live site first published it, and drops no field from live items; Deprecation dates are the configured ones`,
    );
    return undefined;
  }
  return readLiveSite(
    address,
    context.print,
    'check that the site is up and its address (site in site.config.ts, or --live); to deploy without this check, pass --skip-live-check',
  );
}

async function projectName(): Promise<string> {
  const toml = await readFile('wrangler.toml', 'utf8').catch(() => '');
  const name = /^name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!name) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: 'wrangler.toml',
        field: 'name',
        message: 'has no project name',
        hint: 'set name = "…" or pass --project-name',
      },
    ]);
  }
  return name;
}
