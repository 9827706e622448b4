import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The wrangler that content-index depends on, run with the current Node. */
export function wranglerCommand(args: readonly string[]): { command: string; args: string[] } {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');
  return { command: process.execPath, args: [bin, ...args] };
}

export function spawnWrangler(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdio: 'pipe' | 'inherit' },
): ChildProcess {
  const { command, args: full } = wranglerCommand(args);
  return spawn(command, full, {
    cwd: options.cwd,
    env: { ...options.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: options.stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
}

/** The newest date the workerd bundled with wrangler 4.86 supports; wrangler.toml pins the same. */
export const COMPATIBILITY_DATE = '2026-04-26';

/**
 * A site without a wrangler configuration would get today's date as its compatibility date, which the
 * bundled workerd refuses; give it ours.
 */
export function compatibilityArgs(root: string): string[] {
  const configured = ['wrangler.toml', 'wrangler.json', 'wrangler.jsonc'].some((f) =>
    existsSync(join(root, f)),
  );
  return configured ? [] : ['--compatibility-date', COMPATIBILITY_DATE];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal colour codes is the point
const ANSI = /\u001b\[[0-9;]*m/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
