// Preloaded with --import: reports the process's peak resident memory (workers included) on exit.
import { writeSync } from 'node:fs';

process.on('exit', () => writeSync(2, `\npeak-rss-kib=${process.resourceUsage().maxRSS}\n`));
