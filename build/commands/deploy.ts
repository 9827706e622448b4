import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CliContext } from '../cli.ts';
import { ContentIndexError } from '../core/errors.ts';
import { build } from '../index.ts';
import { count } from '../report.ts';
import { verifyOutput } from '../stages/verify-output.ts';
import { spawnWrangler } from '../stages/wrangler.ts';
import { type BuildFlags, buildOptions, reportFailure, withBuildFlags } from './_shared.ts';

interface DeployFlags extends BuildFlags {
  projectName?: string;
  branch?: string;
}

export const DEPLOY_CREDENTIALS = ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID'] as const;

export function registerDeployCommand(program: Command, context: CliContext): void {
  withBuildFlags(
    program
      .command('deploy')
      .description('build, verify the output and publish it with wrangler pages deploy'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--project-name <name>', 'Cloudflare Pages project (default: name in wrangler.toml)')
    .option('--branch <branch>', 'deploy as this branch (preview deployments)')
    .action(async (flags: DeployFlags) => {
      try {
        context.exit(await deploy(flags, context));
      } catch (error) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      }
    });
}

async function deploy(flags: DeployFlags, context: CliContext): Promise<number> {
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
  const result = await build({ ...buildOptions(flags, context) });
  context.print(`✓ built ${count(result.model.entries.length, 'item')} into ${result.outDir}`);
  await verifyOutput(result.outDir, new Date());
  context.print('✓ output verified');
  const project = flags.projectName ?? (await projectName());
  const args = ['pages', 'deploy', result.outDir, '--project-name', project];
  if (flags.branch) args.push('--branch', flags.branch);
  const child = spawnWrangler(args, {
    cwd: process.cwd(),
    env: { ...process.env, ...context.env },
    stdio: 'inherit',
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
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
