import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './site.ts';

/**
 * The MCP conformance suite needs Node 22 (it uses fs.globSync), so it is not a dependency of a project
 * that supports Node 20. On first use, tests/tools/ (a package.json and its lockfile: the suite and a
 * Node 22 binary per platform) is installed with `npm ci --ignore-scripts` into a cache folder inside
 * node_modules (git-ignored, renewed by `npm ci`); later runs work offline. Under Node 22 or newer the
 * running Node serves and no binary is used; CONTENT_INDEX_NODE22 names a Node 22 binary you already have.
 */
const TOOLS = join(PROJECT_ROOT, 'tests', 'tools');
const CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', 'content-index-test-tools');

export interface ConformanceTools {
  node: string;
  /** The conformance CLI's entry point, run with `node`. */
  cli: string;
}

/** The binary of the platform package tests/tools/package.json lists for this machine. */
function bundledNode(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const binary = process.platform === 'win32' ? 'node.exe' : join('bin', 'node');
  return join(CACHE, 'node_modules', `node-${platform}-${process.arch}`, binary);
}

export async function conformanceTools(): Promise<ConformanceTools> {
  const cli = join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const major = Number(process.versions.node.split('.')[0]);
  const node = process.env.CONTENT_INDEX_NODE22 || (major >= 22 ? process.execPath : bundledNode());
  const lock = await readFile(join(TOOLS, 'package-lock.json'));
  const stamp = createHash('sha256').update(lock).digest('hex');
  const installed = await readFile(join(CACHE, '.lock-sha256'), 'utf8').catch(() => '');
  if (installed !== stamp || !existsSync(cli)) {
    await rm(CACHE, { recursive: true, force: true });
    await mkdir(CACHE, { recursive: true });
    await copyFile(join(TOOLS, 'package.json'), join(CACHE, 'package.json'));
    await writeFile(join(CACHE, 'package-lock.json'), lock);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await promisify(execFile)(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: CACHE,
      env: { ...process.env, npm_config_loglevel: 'error', npm_config_engine_strict: 'false' },
      timeout: 300_000,
    });
    await writeFile(join(CACHE, '.lock-sha256'), stamp);
  }
  if (!existsSync(node)) {
    throw new Error(
      `no Node 22 for ${process.platform}-${process.arch} in tests/tools/: run the tests on Node 22 or newer, or set CONTENT_INDEX_NODE22`,
    );
  }
  return { node, cli };
}

// `npx tsx tests/helpers/node22.ts` prints the two paths, for running the suite by hand (docs/mcp.md).
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const tools = await conformanceTools();
  console.log(`${tools.node} ${tools.cli}`);
}
