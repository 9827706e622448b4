import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Vitest global setup: dist/ current with the sources (a no-op when nothing changed since the last build). */
export default async function setup(): Promise<void> {
  const root = join(import.meta.dirname, '..', '..');
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'build-dist.mjs'), '--quiet'], {
    cwd: root,
  });
}
