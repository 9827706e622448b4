import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { CliContext, CliIo } from './cli-context.ts';
import { registerSchemaCommands } from './cli-schema.ts';
import { reportFailure } from './commands/_shared.ts';
import { registerBuildCommands } from './commands/build.ts';
import { registerD1Command } from './commands/d1.ts';
import { registerDeployCommand } from './commands/deploy.ts';
import { registerDevCommand } from './commands/dev.ts';
import { registerInitCommand } from './commands/init.ts';
import { registerMcpCommand } from './commands/mcp.ts';
import { registerNewCommand } from './commands/new.ts';
import { isContentIndexError } from './core/errors.ts';

/** The only place that decides the exit code. Returns it, so tests run the CLI in-process. */
export async function main(
  argv: readonly string[],
  io: CliIo = { out: process.stdout, err: process.stderr },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let code = 0;
  const context: CliContext = {
    io,
    env,
    print: (text) => io.out.write(`${text}\n`),
    printErr: (text) => io.err.write(`${text}\n`),
    exit: (value) => {
      code = value;
    },
  };
  const program = new Command('content-index')
    .description('Build a read-only Content Index API (JSON, OpenAPI, llms.txt, MCP) for Cloudflare Pages')
    .version(packageJson.version, '-v, --version', 'print the version of content-index')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) });
  registerInitCommand(program, context);
  registerBuildCommands(program, context);
  registerNewCommand(program, context);
  registerDevCommand(program, context);
  registerDeployCommand(program, context);
  registerMcpCommand(program, context);
  registerD1Command(program, context);
  registerSchemaCommands(program, {
    print: context.print,
    printErr: context.printErr,
    setExitCode: context.exit,
  });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // A user error a command did not report itself (wrangler missing, say) still gets its message.
    if (isContentIndexError(error)) return reportFailure(error, context, { debug: false, wrote: false });
    // commander has already printed usage errors; --help and --version end up here too.
    if (error instanceof CommanderError) return error.exitCode;
    // Anything else is a bug of content-index that no command caught: said in one line, never silently.
    return reportFailure(error, context, {
      debug: argv.includes('--debug'),
      wrote: false,
      command: commandOf(program, argv),
    });
  }
  return code;
}

/** The command as typed (`schema snapshot`), for the one line an internal error gets. */
function commandOf(program: Command, argv: readonly string[]): string {
  const names: string[] = [];
  let command: Command | undefined = program;
  for (const arg of argv) {
    command = command?.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!command) break;
    names.push(command.name());
  }
  return names.join(' ');
}
