import type { Command } from 'commander';
import type { CliContext } from '../cli.ts';
import { isContentIndexError } from '../core/errors.ts';
import { type BuildStage, build } from '../index.ts';
import { createReport, type FailureReport, formatReport } from '../report.ts';
import { type BuildFlags, buildOptions, printWarnings, reportFailure, withBuildFlags } from './_shared.ts';

const STAGE_LABEL: Record<BuildStage, string> = {
  config: 'Reading the configuration',
  load: 'Reading content files',
  assemble: 'Validating',
  render: 'Rendering',
  write: 'Writing',
};

export function registerBuildCommands(program: Command, context: CliContext): void {
  withBuildFlags(
    program.command('build').description('validate the content and write the API into the output folder'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--json', 'print the build report as JSON')
    .action((flags: BuildFlags) => runBuild(flags, context, false));
  withBuildFlags(program.command('check').description('validate the content without writing anything'))
    .option('--json', 'print the report as JSON')
    .action((flags: BuildFlags) => runBuild(flags, context, true));
}

async function runBuild(flags: BuildFlags, context: CliContext, dryRun: boolean): Promise<void> {
  const progress = flags.json ? undefined : progressLine(context);
  try {
    const result = await build({
      ...buildOptions(flags, context),
      dryRun,
      ...(progress && { onStage: progress.stage }),
    });
    progress?.clear();
    const report = await createReport(result, dryRun);
    if (flags.json) {
      context.print(JSON.stringify(report, null, 2));
    } else {
      printWarnings(result.warnings, context);
      context.print(formatReport(report));
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
