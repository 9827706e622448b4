import { type FSWatcher, watch } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli.ts';
import { formatProblems, isContentIndexError } from '../core/errors.ts';
import { build } from '../index.ts';
import { compatibilityArgs, spawnWrangler, stripAnsi } from '../stages/wrangler.ts';
import { type BuildFlags, buildOptions, printWarnings, reportFailure, withBuildFlags } from './_shared.ts';

interface DevFlags extends BuildFlags {
  port: string;
  ip: string;
}

/** Files outside the content folder whose change means a rebuild. */
const WATCHED_FILES = ['headers.config.ts', '_headers'];

export function registerDevCommand(program: Command, context: CliContext): void {
  withBuildFlags(
    program.command('dev').description('build, serve through wrangler pages dev, rebuild on every change'),
  )
    .option('--out <dir>', 'output folder', 'public')
    .option('--port <port>', 'port to serve on', '8788')
    .option('--ip <address>', 'address to listen on', '127.0.0.1')
    .action((flags: DevFlags) => runDev(flags, context));
}

async function runDev(flags: DevFlags, context: CliContext): Promise<void> {
  const root = process.cwd();
  // Unchanged files keep their parsed front matter between rebuilds: a save re-reads one file, not all.
  const options = { ...buildOptions(flags, context), cache: new Map() };
  const outDir = resolve(root, flags.out ?? 'public');
  let contentDir = resolve(root, flags.content ?? 'content');

  const rebuild = async (reason: string): Promise<boolean> => {
    try {
      const result = await build(options);
      contentDir = resolve(root, flags.content ?? result.config.content.dir);
      printWarnings(result.warnings, context);
      context.print(
        `✓ ${reason}: ${result.model.entries.length} items in ${Math.round(result.durationMs)} ms`,
      );
      return true;
    } catch (error) {
      if (!isContentIndexError(error)) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
        return false;
      }
      context.printErr(formatProblems(error.problems));
      context.printErr(`✗ ${reason}: ${error.problems.length} problem(s); still serving the last good build`);
      return false;
    }
  };

  await rebuild('built');
  const args = [
    'pages',
    'dev',
    outDir,
    '--ip',
    flags.ip,
    '--port',
    flags.port,
    '--show-interactive-dev-session=false',
  ];
  const wrangler = spawnWrangler([...args, ...compatibilityArgs(root)], {
    cwd: root,
    env: { ...process.env, ...context.env },
    stdio: 'pipe',
  });
  const url = `http://${flags.ip}:${flags.port}`;
  const forward = (chunk: Buffer) => {
    for (const line of stripAnsi(chunk.toString()).split('\n')) {
      // wrangler's offline look-up of Request.cf is harmless noise; real errors still come through.
      if (/✘|\[ERROR\]|Address already in use/i.test(line)) context.printErr(`wrangler: ${line.trim()}`);
      if (/Ready on/.test(line)) context.print(`✓ serving ${url} (watching for changes; Ctrl+C stops)`);
    }
  };
  wrangler.stdout?.on('data', forward);
  wrangler.stderr?.on('data', forward);

  // Coalesce the burst of events one save produces (editors write, rename, chmod) into one rebuild.
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const changed = (what: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => rebuild(`rebuilt after a change to ${what}`));
    }, 40);
  };
  const watchers: FSWatcher[] = [];
  const watchPath = (path: string, recursive: boolean, label: (file: string | null) => string) => {
    try {
      watchers.push(watch(path, { recursive }, (_event, file) => changed(label(file))));
    } catch {
      // A file that does not exist yet (no headers.config.ts) simply is not watched.
    }
  };
  watchPath(contentDir, true, (file) => `${flags.content ?? 'content'}/${file ?? ''}`);
  for (const file of [flags.config ?? 'site.config.ts', ...WATCHED_FILES])
    watchPath(resolve(root, file), false, () => file);

  await new Promise<void>((done) => {
    const stop = () => {
      for (const watcher of watchers) watcher.close();
      clearTimeout(timer);
      wrangler.kill('SIGTERM');
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    wrangler.once('exit', (code) => {
      if (code) context.exit(code);
      stop();
    });
  });
}
