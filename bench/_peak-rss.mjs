// Preloaded with --import: reports the process's peak resident memory on exit. Worker threads run it
// too (they inherit --import) and report the process's peak so far when they end.
import { writeSync } from 'node:fs';

process.on('exit', () => writeSync(2, `\npeak-rss-kib=${process.resourceUsage().maxRSS}\n`));
