import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { withDocsPaths } from '../runtime/docs-path.ts';
import {
  GENERATOR_COMMAND,
  INIT_PATHS,
  type InitPlan,
  type ProjectFacts,
  planInit,
} from '../runtime/init-plan.ts';
import { detectGenerator, readHugoSite } from '../runtime/site-generator.ts';
import { COMPATIBILITY_DATE } from '../runtime/wrangler.ts';
import { reportFailure } from './_shared.ts';

interface InitFlags {
  site?: string;
  out?: string;
  debug?: boolean;
}

export function registerInitCommand(program: Command, context: CliContext): void {
  program
    .command('init')
    .description('set content-index up in an existing site; never overwrites a file')
    .option('--site <url>', "the site's public address (default: Hugo's baseURL)")
    .option('--out <dir>', "the site generator's output folder (default: public, Astro's dist)")
    .option('--debug', 'print stack traces of internal errors')
    .action(async (flags: InitFlags) => {
      try {
        const root = process.cwd();
        const plan = planInit(await projectFacts(root, flags));
        await apply(root, plan);
        report(plan, context);
      } catch (error) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      }
    });
}

async function projectFacts(root: string, flags: InitFlags): Promise<ProjectFacts> {
  const exists = new Set(INIT_PATHS.filter((path) => existsSync(join(root, path))));
  const read = (path: string) => (exists.has(path) ? readFile(join(root, path), 'utf8') : undefined);
  const detected = await detectGenerator(root);
  const hugo = detected.generator === 'hugo' ? await readHugoSite(root, detected.hugoFiles) : undefined;
  return {
    exists,
    folderName: basename(root),
    packageJson: await read('package.json'),
    gitignore: await read('.gitignore'),
    ...(hugo && { hugo }),
    generator: detected.generator,
    today: new Date().toISOString().slice(0, 10),
    compatibilityDate: COMPATIBILITY_DATE,
    ...(flags.site !== undefined && { site: flags.site }),
    ...(flags.out !== undefined && { out: flags.out }),
  };
}

async function apply(root: string, plan: InitPlan): Promise<void> {
  for (const action of plan.actions) {
    if (action.kind === 'skip') continue;
    const target = join(root, action.path);
    await mkdir(dirname(target), { recursive: true });
    // A new file is created exclusively: should one appear since the plan was made, it is not replaced.
    await writeFile(target, action.content, { flag: action.kind === 'create' ? 'wx' : 'w' });
  }
}

function report(plan: InitPlan, context: CliContext): void {
  const kind = { hugo: 'a Hugo site', astro: 'an Astro site', none: 'a site' }[plan.generator];
  context.print(`content-index init: ${kind}, output folder ${plan.out}/`);
  for (const action of plan.actions) {
    if (action.kind === 'create') {
      context.print(`  created  ${action.path}${action.note ? ` (${action.note})` : ''}`);
    } else if (action.kind === 'update') {
      context.print(`  added    ${action.path}: ${action.what}`);
    } else {
      context.print(`  skipped  ${action.path}: ${action.why}`);
    }
  }
  if (plan.notes.length > 0) {
    context.print(
      [
        '',
        'About this Hugo site (site.config.ts says the same):',
        ...plan.notes.map((n) => `  - ${withDocsPaths(n, process.cwd())}`),
      ].join('\n'),
    );
  }
  if (plan.actions.every((a) => a.kind === 'skip')) {
    context.print('Nothing to do: everything init writes is already there.');
    return;
  }
  const generator = GENERATOR_COMMAND[plan.generator];
  context.print(
    [
      '',
      'Next:',
      ...(plan.placeholderSite
        ? ['  - set `site` in site.config.ts to the address your site is published at']
        : []),
      generator
        ? `  - npm run build                  runs ${generator}, then content-index build, which adds the API to ${plan.out}/`
        : `  - npx content-index build        writes the API into ${plan.out}/`,
      `  - npx wrangler pages dev ${plan.out}   serves it: open /api/content.json, /docs/ and /mcp`,
    ].join('\n'),
  );
}
