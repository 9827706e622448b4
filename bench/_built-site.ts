import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { writeSite } from './generate-site.ts';

export const ROOT = join(import.meta.dirname, '..');

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}\n${stderr}`)),
    );
  });
}

/** A synthetic site of `items` items (seed 7, as the build measurements use), built. Returns its public/. */
export async function builtSyntheticSite(dir: string, items: number): Promise<string> {
  await writeSite(dir, { items, seed: 7 });
  await run(process.execPath, [join(ROOT, 'bin/content-index.js'), 'build'], dir);
  return join(dir, 'public');
}

/**
 * The project's Pages Functions compiled by wrangler into the one Worker script Cloudflare deploys
 * (router included). Returns the path of the ES module; its default export is `{ fetch(request, env, ctx) }`.
 */
export async function functionsWorker(outdir: string): Promise<string> {
  await run(
    process.execPath,
    [join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'pages', 'functions', 'build', '--outdir', outdir],
    ROOT,
    { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' },
  );
  return join(outdir, 'index.js');
}
