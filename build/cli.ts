import { Command, Option } from 'commander';
import { type BuildOptions, type BuildResult, build, formatProblems, isContentIndexError } from './index.ts';

interface Flags {
  content?: string;
  out?: string;
  config?: string;
  drafts?: boolean;
  future?: boolean;
  debug?: boolean;
}

/** The only place that touches process.exitCode. Returns the exit code so tests can run it in-process. */
export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

export async function main(
  argv: readonly string[],
  io: CliIo = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const print = (text: string) => io.out.write(`${text}\n`);
  const printErr = (text: string) => io.err.write(`${text}\n`);
  let code = 0;
  const program = new Command('content-index')
    .description('Build a read-only Content Index API (JSON, OpenAPI, llms.txt, MCP) for Cloudflare Pages')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) });

  const run = async (flags: Flags, dryRun: boolean) => {
    const options: BuildOptions = {
      dryRun,
      env: process.env,
      logger: { info: print, warn: printErr },
      drafts: flags.drafts ?? false,
      future: flags.future ?? false,
    };
    if (flags.content) options.content = flags.content;
    if (flags.out) options.out = flags.out;
    if (flags.config) options.config = flags.config;
    try {
      const result = await build(options);
      if (result.warnings.length > 0) printErr(`warning:\n${formatProblems(result.warnings)}`);
      print(summary(result, dryRun));
    } catch (error) {
      code = reportFailure(error, flags.debug ?? false, printErr, dryRun);
    }
  };

  const common = (command: Command) =>
    command
      .option('--content <dir>', 'content folder', 'content')
      .option('--config <file>', 'site configuration', 'site.config.ts')
      .option('--drafts', 'include files marked draft: true')
      .option('--future', 'include files dated in the future')
      .addOption(new Option('--debug', 'print stack traces of internal errors'));

  common(
    program.command('build').description('validate the content and write the API into the output folder'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .action((flags: Flags) => run(flags, false));
  common(program.command('check').description('validate the content without writing anything')).action(
    (flags: Flags) => run(flags, true),
  );
  common(program.command('mcp').description('serve the MCP tools over stdio, for local agents'))
    .option('--public <dir>', 'built output folder to serve (its mcp/data.json)', 'public')
    .option('--sources', 'build the content in memory instead of reading the output folder')
    .action(async (flags: Flags & { public?: string; sources?: boolean }) => {
      // stdout carries the protocol: every human message goes to stderr.
      try {
        const { serveMcpStdio } = await import('./stages/mcp-stdio.ts');
        await serveMcpStdio({
          publicDir: flags.public,
          ...(flags.sources && {
            sources: {
              content: flags.content,
              config: flags.config,
              drafts: flags.drafts ?? false,
              future: flags.future ?? false,
              env: process.env,
            },
          }),
          stdin: process.stdin,
          stdout: process.stdout,
          logger: { info: printErr, warn: printErr },
        });
      } catch (error) {
        code = reportFailure(error, flags.debug ?? false, printErr, true);
      }
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // commander has already printed usage errors; --help and --version end up here too.
    const exitCode = (error as { exitCode?: number }).exitCode;
    return typeof exitCode === 'number' ? exitCode : 2;
  }
  return code;
}

function summary(result: BuildResult, dryRun: boolean): string {
  const counts = { post: 0, project: 0, tip: 0 };
  for (const entry of result.model.entries) counts[entry.type]++;
  const items = `${plural(result.model.entries.length, 'item')} (${plural(counts.post, 'post')}, ${plural(counts.project, 'project')}, ${plural(counts.tip, 'tip')})`;
  const lines = [
    dryRun
      ? `✓ ${items} valid; nothing written (${Math.round(result.durationMs)} ms)`
      : `✓ ${items} → ${result.written.length} files in ${result.outDir} (${Math.round(result.durationMs)} ms)`,
  ];
  for (const left of result.model.leftOut) {
    const why = left.reason === 'draft' ? 'draft' : `dated ${left.date} (future)`;
    lines.push(`  left out: ${left.file} (${why}${left.wholeItem ? ', with its translations' : ''})`);
  }
  return lines.join('\n');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function reportFailure(
  error: unknown,
  debug: boolean,
  printErr: (s: string) => void,
  dryRun: boolean,
): number {
  if (isContentIndexError(error)) {
    printErr(formatProblems(error.problems));
    const n = error.problems.length;
    printErr(`\n✗ ${n} problem${n === 1 ? '' : 's'}${dryRun ? '' : '; the output folder was not changed'}.`);
    if (debug && error.stack) printErr(error.stack);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  printErr(`✗ internal error: ${message}`);
  printErr(
    debug && error instanceof Error && error.stack ? error.stack : 'rerun with --debug for the stack trace',
  );
  return 2;
}
