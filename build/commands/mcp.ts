import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';
import { type BuildFlags, reportFailure, withBuildFlags } from './_shared.ts';

interface McpFlags extends BuildFlags {
  root?: string;
  sources?: boolean;
}

/** Flags that choose what a build reads: they mean something only when `--sources` builds in memory. */
const SOURCE_FLAGS = ['drafts', 'future', 'content', 'config', 'headers'] as const;

export function registerMcpCommand(program: Command, context: CliContext): void {
  withBuildFlags(program.command('mcp').description('serve the MCP tools over stdio, for local agents'))
    .option('--root <dir>', 'project folder whose last build is served (default: the current folder)')
    .option('--sources', 'build the content in memory instead of serving the last build')
    .action(async (flags: McpFlags, command: Command) => {
      // stdout carries the protocol: every human message goes to stderr.
      try {
        if (!flags.sources) {
          // The last build's data is served as it was built: a flag about what to build would be ignored.
          const ignored = SOURCE_FLAGS.filter((name) => command.getOptionValueSource(name) === 'cli');
          if (ignored.length > 0) throw new ContentIndexError(ignored.map(withoutSources));
        }
        const { serveMcpStdio } = await import('../runtime/mcp-stdio.ts');
        await serveMcpStdio({
          ...(flags.root !== undefined && { root: flags.root }),
          ...(flags.sources && {
            sources: {
              ...(flags.content !== undefined && { content: flags.content }),
              ...(flags.config !== undefined && { config: flags.config }),
              ...(flags.headers !== undefined && { headers: flags.headers }),
              drafts: flags.drafts ?? false,
              future: flags.future ?? false,
              env: context.env,
            },
          }),
          stdin: process.stdin,
          stdout: process.stdout,
          logger: { info: context.printErr, warn: context.printErr },
        });
      } catch (error) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      }
    });
}

function withoutSources(name: (typeof SOURCE_FLAGS)[number]): Problem {
  return {
    code: 'config_invalid',
    field: `--${name}`,
    message:
      "applies only with --sources: without it the last build's data is served as that build made it; nothing is served",
    hint: `pass --sources --${name}${name === 'drafts' || name === 'future' ? '' : ' <value>'} to serve the content built in memory with it`,
  };
}
