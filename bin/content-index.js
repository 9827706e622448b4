#!/usr/bin/env node
// The installed command: the prebuilt CLI in dist/ (nothing is compiled at run time). The CLI decides the
// exit code; this file only hands it to the process. In a source checkout (build/ and scripts/ beside
// it, which the package does not ship) it first makes sure dist/ is what the sources say.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

// V8's compiled code of what follows (the CLI, its chunks, its dependencies) kept on disk between runs:
// compiling it is most of what a command costs before it starts. Node 22.1+ only (Node 20 has no such
// cache, and the call is skipped); in the system's temporary folder, and off with
// NODE_DISABLE_COMPILE_CACHE=1. It never fails a command: a cache that cannot be used is not used.
/** @type {{ enableCompileCache?: () => unknown }} */ (nodeModule).enableCompileCache?.();

const cli = new URL('../dist/cli.js', import.meta.url);
const builder = new URL('../scripts/build-dist.mjs', import.meta.url);
const checkout = existsSync(new URL('../build/cli.ts', import.meta.url)) && existsSync(builder);

if (checkout) {
  const { distState } = await import(new URL('../scripts/dist-inputs.mjs', import.meta.url).href);
  if (!(await distState()).current) {
    // Stale, or never built: rebuilt before anything runs. Its messages go to stderr, never stdout
    // (`content-index mcp` speaks the protocol there).
    process.stderr.write(
      existsSync(cli)
        ? 'content-index: the sources changed since dist/ was built; rebuilding it (node scripts/build-dist.mjs)\n'
        : 'content-index: building dist/ from the sources (node scripts/build-dist.mjs)\n',
    );
    const built = spawnSync(process.execPath, [builder.pathname], { stdio: ['ignore', 2, 2] });
    if (built.status !== 0 || !(await distState()).current) {
      process.stderr.write(
        'content-index: dist/ could not be rebuilt from the sources (above), so it would not run what they say. Fix what is reported, then run `node scripts/build-dist.mjs`.\n',
      );
      process.exit(2);
    }
  }
} else if (!existsSync(cli)) {
  // Only a copy of the bin without the package around it can lack dist/: the published package carries it.
  process.stderr.write(
    'content-index: dist/cli.js is missing. In a clone of the repository, `npm ci` builds it (or run `node scripts/build-dist.mjs`).\n',
  );
  process.exit(2);
}
const args = process.argv.slice(2);
// dev is long-lived: it runs in a child Node with V8 flags of its own (build/runtime/dev-process.ts).
const dev =
  args[0] === 'dev' ? await import(new URL('../dist/dev-process.js', import.meta.url).href) : undefined;
if (dev?.needsDevFlags()) {
  process.exitCode = await dev.runWithDevFlags(fileURLToPath(import.meta.url), args);
} else {
  dev?.followParent();
  const { main } = await import(cli.href);
  process.exitCode = await main(args);
}
