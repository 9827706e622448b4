import { execFile, spawnSync } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './site.ts';

const run = promisify(execFile);

/** Debian's hugo (CI installs it); tests that need it are skipped, saying so, without it. */
export const HUGO = (() => {
  const version = spawnSync('hugo', ['version'], { encoding: 'utf8' });
  return version.status === 0 ? version.stdout.split(' ')[1] : undefined;
})();

export interface HugoSite {
  root: string;
  /** Runs a command in the site as its user's shell would (npm's own variables left out). */
  sh(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** `npm run <script>` in the site. */
  npm(script: string): Promise<{ code: number; stdout: string; stderr: string }>;
  read(path: string): Promise<string>;
  json<T = unknown>(path: string): Promise<T>;
  /** Whether the output holds the page a published address names (index.html for a folder address). */
  hasPage(url: string): Promise<boolean>;
  dispose(): Promise<void>;
}

/** An environment as a user's shell has it: none of the variables `npm test` sets for this project. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) || /^npm_config_(cache|userconfig|registry)$/i.test(key)) env[key] = value;
  }
  delete env.NODE_ENV;
  return { ...env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' };
}

/**
 * A copy of tests/fixtures/hugo-sites/<name> in a temporary folder, with content-index installed as a
 * package is (node_modules/content-index and its bin, here links to this checkout, whose dist/ the
 * tests' global setup keeps current) and a package.json of its own, as a site has before `init`.
 */
export async function hugoSite(name: string, packageName = name): Promise<HugoSite> {
  const root = join(await mkdtemp(join(tmpdir(), 'content-index-hugo-site-')), name);
  await cp(join(PROJECT_ROOT, 'tests/fixtures/hugo-sites', name), root, { recursive: true });
  await mkdir(join(root, 'node_modules/.bin'), { recursive: true });
  await symlink(PROJECT_ROOT, join(root, 'node_modules/content-index'), 'dir');
  await symlink(join(PROJECT_ROOT, 'bin/content-index.js'), join(root, 'node_modules/.bin/content-index'));
  await writeFile(
    join(root, 'package.json'),
    `${JSON.stringify({ name: packageName, private: true }, null, 2)}\n`,
  );
  const sh = async (command: string, args: string[]) => {
    try {
      const { stdout, stderr } = await run(command, args, { cwd: root, env: userEnv(), maxBuffer: 16 << 20 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return {
        code: typeof e.code === 'number' ? e.code : 1,
        stdout: e.stdout ?? '',
        stderr: e.stderr ?? String(error),
      };
    }
  };
  const read = (path: string) => readFile(join(root, path), 'utf8');
  return {
    root,
    sh,
    npm: (script) => sh(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script]),
    read,
    json: async (path) => JSON.parse(await read(path)),
    hasPage: async (url) => {
      const path = decodeURIComponent(new URL(url).pathname);
      const file = join(root, 'public', path, path.endsWith('/') ? 'index.html' : '');
      return access(file).then(
        () => true,
        () => false,
      );
    },
    dispose: () => rm(join(root, '..'), { recursive: true, force: true }),
  };
}
