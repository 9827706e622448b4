import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './site.ts';

/**
 * The MCP conformance suite needs Node 22 (it uses fs.globSync) while the project runs on Node 20, so
 * neither it nor Node 22 is a dependency. On first use both are installed with npm into a cache folder
 * inside node_modules (git-ignored, and renewed by `npm ci`); later runs work offline. Set
 * CONTENT_INDEX_NODE22 to use a Node 22 binary you already have.
 */
export const NODE22_VERSION = '22.23.3';
export const CONFORMANCE_VERSION = '0.1.16';
const CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', 'content-index-conformance');

export interface ConformanceTools {
  node: string;
  /** The conformance CLI's entry point, run with `node`. */
  cli: string;
}

/** The npm package that carries a Node binary for this machine, as the `node` package's installer names it. */
function nodePackage(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const arch = platform === 'win' && process.arch === 'ia32' ? 'x86' : process.arch;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${platform}-${arch}`;
}

export async function conformanceTools(): Promise<ConformanceTools> {
  const pkg = nodePackage();
  const cli = join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const bundled = join(CACHE, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  const node = process.env.CONTENT_INDEX_NODE22 || bundled;
  if (!existsSync(cli) || !existsSync(node)) {
    await mkdir(CACHE, { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const packages = [`@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`];
    if (!process.env.CONTENT_INDEX_NODE22) packages.push(`${pkg}@${NODE22_VERSION}`);
    await promisify(execFile)(
      npm,
      [
        'install',
        '--prefix',
        CACHE,
        '--no-audit',
        '--no-fund',
        '--no-save',
        '--engine-strict=false',
        ...packages,
      ],
      { cwd: CACHE, env: { ...process.env, npm_config_loglevel: 'error' }, timeout: 300_000 },
    );
  }
  return { node, cli };
}

// `npx tsx tests/helpers/node22.ts` prints the two paths, for running the suite by hand (see the README).
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const tools = await conformanceTools();
  console.log(`${tools.node} ${tools.cli}`);
}
