import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { installFunctions } from '../tests/helpers/functions.ts';
import { D1_WRANGLER } from '../tests/helpers/project.ts';
import { type SiteFiles, writeSite } from './generate-site.ts';

export const ROOT = join(import.meta.dirname, '..');

export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${args.join(' ')} exited ${code}\n${stderr}${stdout}`)),
    );
  });
}

/** A synthetic site's wrangler.toml with the D1 binding the `d1` and `auto` MCP backends need. */
export const D1_SITE_WRANGLER = `name = "synthetic"\npages_build_output_dir = "public"\ncompatibility_date = "2026-04-26"\nsend_metrics = false\n${D1_WRANGLER}`;

/** wrangler with metrics off and plain output, as the tests run it. */
export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', CI: '1' };
export const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js');

/**
 * A synthetic site of `items` items (seed 7, as the build measurements use), built, with this checkout's
 * Functions installed (tests/helpers/functions.ts). Returns its public/.
 */
export async function builtSyntheticSite(dir: string, items: number, files: SiteFiles = {}): Promise<string> {
  await writeSite(dir, { items, seed: 7, ...files });
  await installFunctions(dir);
  await run(process.execPath, [join(ROOT, 'bin/content-index.js'), 'build'], dir);
  return join(dir, 'public');
}

/**
 * A built site's Pages Functions compiled by wrangler into the one Worker script Cloudflare deploys
 * (router and MCP data module included). Returns the path of the ES module; its default export is
 * `{ fetch(request, env, ctx) }`.
 */
export async function functionsWorker(siteDir: string, outdir: string): Promise<string> {
  await run(
    process.execPath,
    [WRANGLER, 'pages', 'functions', 'build', '--outdir', outdir, '--compatibility-date', '2026-04-26'],
    siteDir,
    WRANGLER_ENV,
  );
  return join(outdir, 'index.js');
}
