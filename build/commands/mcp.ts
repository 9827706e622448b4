import type { Command } from 'commander';
import type { CliContext } from '../cli.ts';
import { type BuildFlags, reportFailure, withBuildFlags } from './_shared.ts';

interface McpFlags extends BuildFlags {
  root?: string;
  sources?: boolean;
}

export function registerMcpCommand(program: Command, context: CliContext): void {
  withBuildFlags(program.command('mcp').description('serve the MCP tools over stdio, for local agents'))
    .option('--root <dir>', 'project folder whose last build is served (default: the current folder)')
    .option('--sources', 'build the content in memory instead of serving the last build')
    .action(async (flags: McpFlags) => {
      // stdout carries the protocol: every human message goes to stderr.
      try {
        const { serveMcpStdio } = await import('../stages/mcp-stdio.ts');
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
