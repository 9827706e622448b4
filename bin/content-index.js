#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles on the fly (and caches), so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../build/cli.ts');
process.exitCode = await main(process.argv.slice(2));
