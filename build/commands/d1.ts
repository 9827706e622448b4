import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { importGeneration, importLocally, readD1Manifest } from '../runtime/d1-import.ts';
import { reportFailure } from './_shared.ts';

interface D1Flags {
  remote?: boolean;
  persistTo?: string;
  debug?: boolean;
}

export function registerD1Command(program: Command, context: CliContext): void {
  const d1 = program.command('d1').description('the D1 backend of /mcp: import the last build into D1');
  d1.command('import')
    .description(
      "import the last build's MCP tables into wrangler's local D1 (or, with --remote, the account's database) and switch to them",
    )
    .option('--local', "wrangler's local D1, which wrangler pages dev serves from (the default)")
    .option(
      '--remote',
      "import into the account's database without switching (deploy imports, then switches once the site is published)",
    )
    .option('--persist-to <dir>', 'local state folder, as given to wrangler pages dev --persist-to')
    .option('--debug', 'print stack traces of internal errors')
    .action(async (flags: D1Flags) => {
      try {
        context.exit(await runImport(flags, context));
      } catch (error) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      }
    });
}

async function runImport(flags: D1Flags, context: CliContext): Promise<number> {
  const root = process.cwd();
  const manifest = await readD1Manifest(root);
  if (!manifest) {
    context.print(
      '✓ nothing to import: the last build serves /mcp from the Function itself (backend embedded)',
    );
    return 0;
  }
  const where = {
    remote: flags.remote ?? false,
    root,
    env: { ...process.env, ...context.env },
    ...(flags.persistTo && { persistTo: resolve(flags.persistTo) }),
  };
  const label = `${manifest.database}${where.remote ? '' : ' (local)'}`;
  const result = where.remote
    ? await importGeneration(manifest, where)
    : await importLocally(manifest, where, {
        onWait: (holder) =>
          context.print(`… D1 ${label}: waiting for the import under way into it (process ${holder})`),
      });
  context.print(
    result.imported
      ? `✓ D1 ${label}: imported ${manifest.generation} (${manifest.items} items) in ${(result.ms / 1000).toFixed(1)} s`
      : `✓ D1 ${label}: ${manifest.generation} is imported already`,
  );
  if (!('dropped' in result)) return 0;
  const { dropped } = result;
  context.print(
    `✓ D1 ${label}: ${manifest.generation} is live${dropped.length ? `; dropped ${dropped.join(', ')}` : ''}`,
  );
  return 0;
}
