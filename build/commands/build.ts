import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { isContentIndexError } from '../core/errors.ts';
import { PUBLISHED_RECORD_FILE } from '../core/versions/published-record.ts';
import { type BuildStage, build, type LiveSite } from '../index.ts';
import { createReport, type FailureReport, formatReport } from '../report.ts';
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
  printWarnings,
  reportFailure,
  withBuildFlags,
  withSiteGenerator,
} from './_shared.ts';

interface CheckFlags extends BuildFlags {
  /** `--live` alone: the address in site.config.ts. */
  live?: string | true;
  allowDroppedField?: string[];
  allowRemovals?: boolean;
}

const STAGE_LABEL: Record<BuildStage, string> = {
  config: 'Reading the configuration',
  load: 'Reading content files',
  assemble: 'Validating',
  render: 'Rendering',
  mcp: 'Preparing the MCP data',
  write: 'Writing',
};

export function registerBuildCommands(program: Command, context: CliContext): void {
  withBuildFlags(
    program.command('build').description('validate the content and write the API into the output folder'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--json', 'print the build report as JSON')
    .option('--verbose', 'list every file left out (drafts, future items), not only the first few')
    .action((flags: BuildFlags) => runBuild(flags, context, false));
  withAllowDroppedField(
    withBuildFlags(program.command('check').description('validate the content without writing anything'))
      .option('--json', 'print the report as JSON')
      .option('--verbose', 'list every file left out (drafts, future items), not only the first few')
      .option(
        '--live [url]',
        'also hold the configuration to what the live site publishes (default address: site in site.config.ts)',
      ),
  ).action((flags: CheckFlags) => runBuild(flags, context, true));
}

async function runBuild(flags: CheckFlags, context: CliContext, dryRun: boolean): Promise<void> {
  const progress = flags.json ? undefined : progressLine(context);
  const say = (line: string) => (flags.json ? undefined : context.print(line));
  try {
    let live: LiveSite | undefined;
    if (flags.live !== undefined) {
      const address = flags.live === true ? await configuredSite(flags, context) : flags.live;
      live = await readLiveSite(address, say);
    }
    const result = await build({
      ...(await withSiteGenerator(buildOptions(flags, context), process.cwd())),
      dryRun,
      // The report's compressed sizes, worked out while the build writes.
      sizes: true,
      ...(progress && { onStage: progress.stage }),
      ...(live && { live }),
      ...(flags.allowDroppedField && { allowDroppedFields: flags.allowDroppedField }),
      ...(flags.allowRemovals && { allowRemovals: true }),
    });
    progress?.clear();
    const report = await createReport(result, dryRun);
    if (flags.json) {
      context.print(JSON.stringify(report, null, 2));
    } else {
      printWarnings(result.warnings, context);
      context.print(formatReport(report, { verbose: flags.verbose ?? false }));
      if (live) context.print([...removalLines(result), livePassed(live)].join('\n'));
      if (result.recorded.length > 0) context.print(recordedLine(result.recorded, dryRun));
    }
  } catch (error) {
    progress?.clear();
    if (flags.json && isContentIndexError(error)) {
      const failure: FailureReport = { ok: false, problems: [...error.problems] };
      context.print(JSON.stringify(failure, null, 2));
    }
    context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: !dryRun }));
  }
}

/** One self-rewriting status line on a terminal; off the terminal (CI logs) nothing is drawn. */
function progressLine(
  context: CliContext,
): { stage: (s: BuildStage, detail?: string) => void; clear: () => void } | undefined {
  const stream = context.io.err;
  if (!stream.isTTY) return undefined;
  return {
    stage: (stage, detail) =>
      stream.write(`\r\u001b[2K… ${STAGE_LABEL[stage]}${detail ? ` (${detail})` : ''}`),
    clear: () => stream.write('\r\u001b[2K'),
  };
}

function recordedLine(versions: readonly string[], dryRun: boolean): string {
  const names = versions.join(', ');
  return dryRun
    ? `  ${names}: not yet in ${PUBLISHED_RECORD_FILE}; the next build records ${versions.length === 1 ? 'it' : 'them'} as published`
    : `✓ recorded ${names} in ${PUBLISHED_RECORD_FILE} as published: commit it, it keeps ${versions.length === 1 ? 'that version' : 'those versions'} in headers.config.ts for good`;
}
