import { type FSWatcher, watch } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli.ts';
import { formatProblems, isContentIndexError } from '../core/errors.ts';
import { printable } from '../core/printable.ts';
import { build } from '../index.ts';
import { count } from '../report.ts';
import { compatibilityArgs, spawnWrangler, stripAnsi } from '../stages/wrangler.ts';
import { type BuildFlags, buildOptions, printWarnings, reportFailure, withBuildFlags } from './_shared.ts';

interface DevFlags extends BuildFlags {
  port: string;
  ip: string;
}

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
      context.printErr(
        `✗ ${reason}: ${count(error.problems.length, 'problem')}; still serving the last good build`,
      );
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
      running = running.then(async () => {
        await rebuild(`rebuilt after a change to ${printable(what)}`);
        watchContent(); // the configuration may have moved the content folder
      });
    }, 40);
  };

  // Configuration files are watched through their folders: an editor that saves by writing a new file
  // and renaming it over the old one would leave a watch on the file itself deaf.
  const configFiles = [
    flags.config ?? 'site.config.ts',
    flags.headers ?? 'headers.config.ts',
    '_headers',
    '_redirects',
  ].map((file) => resolve(root, file));
  const configWatchers = [...new Set(configFiles.map((file) => dirname(file)))].map((dir) =>
    watch(dir, (_event, name) => {
      const file = name && configFiles.find((f) => f === resolve(dir, String(name)));
      if (file) changed(relative(root, file));
    }),
  );
  let content: { dir: string; watcher: FSWatcher } | undefined;
  const watchContent = () => {
    if (content?.dir === contentDir) return;
    content?.watcher.close();
    content = undefined;
    try {
      const dir = contentDir;
      const watcher = watch(dir, { recursive: true }, (_event, file) =>
        changed(join(relative(root, dir), String(file ?? ''))),
      );
      content = { dir, watcher };
    } catch {
      context.printErr(
        `warning: ${relative(root, contentDir) || '.'} does not exist yet; create it and save the configuration`,
      );
    }
  };
  watchContent();

  await new Promise<void>((done) => {
    const stop = () => {
      for (const watcher of configWatchers) watcher.close();
      content?.watcher.close();
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
