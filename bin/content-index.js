#!/usr/bin/env node
// The installed command: the prebuilt CLI in dist/ (nothing is compiled at run time). The CLI decides the
// exit code; this file only hands it to the process.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  // Only a source checkout can lack dist/: the published package always carries it.
  process.stderr.write(
    'content-index: dist/cli.js is missing. In a clone of the repository, `npm ci` builds it (or run `node scripts/build-dist.mjs`).\n',
  );
  process.exit(2);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
