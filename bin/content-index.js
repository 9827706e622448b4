#!/usr/bin/env node
import { loadCli } from './_load-cli.js';

const { main } = await loadCli();
process.exitCode = await main(process.argv.slice(2));
