import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { ContentIndexError } from '../core/errors.ts';
import { compatibilityArgs, spawnWrangler, stripAnsi } from './wrangler.ts';

const gzip = promisify(gzipCallback);

/**
 * The project's Functions compiled by wrangler into the Worker that `wrangler pages deploy` uploads, and
 * its compressed size: what Cloudflare holds against the plan's Worker limit. The build estimates it
 * (stages/mcp-output.ts); deploy measures it before uploading anything.
 */
export async function compiledWorkerGzipBytes(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<number | undefined> {
  // A project without Functions uploads no Worker.
  if (!(await stat(join(root, 'functions')).catch(() => undefined))?.isDirectory()) return undefined;
  const outdir = await mkdtemp(join(tmpdir(), 'content-index-worker-'));
  try {
    const args = ['pages', 'functions', 'build', '--outdir', outdir, ...compatibilityArgs(root)];
    const child = spawnWrangler(args, { cwd: root, env, stdio: 'pipe' });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) {
      throw new ContentIndexError([
        {
          code: 'output_failed',
          file: 'functions',
          message: `wrangler could not compile the Functions: ${stripAnsi(output)
            .split('\n')
            .filter((l) => /ERROR|✘/.test(l))
            .slice(0, 3)
            .join(' ')}`,
          hint: 'run npx wrangler pages functions build to see the whole error',
        },
      ]);
    }
    // The script and the modules beside it (the embedded /mcp data's bytes): Cloudflare counts them all.
    let bytes = 0;
    for (const entry of await readdir(outdir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) bytes += (await gzip(await readFile(join(entry.parentPath, entry.name)))).length;
    }
    return bytes;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
