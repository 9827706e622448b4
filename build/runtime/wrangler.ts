import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContentIndexError } from '../core/errors.ts';

/**
 * The site's wrangler (a peer dependency: every Pages site has one, and npm installs it with
 * content-index when it is missing), run with the current Node. `CONTENT_INDEX_WRANGLER` (a JavaScript
 * file) runs another one instead: a stand-in that tests use to play Cloudflare's side of a deploy.
 */
export function wranglerCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } {
  if (env.CONTENT_INDEX_WRANGLER)
    return { command: process.execPath, args: [env.CONTENT_INDEX_WRANGLER, ...args] };
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve('wrangler/package.json');
  } catch {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: 'package.json',
        field: 'devDependencies.wrangler',
        message: 'wrangler is not installed; serving and deploying need it',
        hint: 'npm i -D wrangler@^4.86',
      },
    ]);
  }
  return { command: process.execPath, args: [join(dirname(manifest), 'bin', 'wrangler.js'), ...args] };
}

export function spawnWrangler(
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdio: 'pipe' | 'inherit';
    /** In a process group of its own (POSIX), for killGroup: what wrangler starts goes with it. */
    group?: boolean;
  },
): ChildProcess {
  const { command, args: full } = wranglerCommand(args, options.env);
  return spawn(command, full, {
    cwd: options.cwd,
    env: { ...options.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: options.stdio === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    ...(options.group && process.platform !== 'win32' && { detached: true }),
  });
}

/** Signals a wrangler spawned with `group` and everything it started (its workerd); else wrangler alone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    child.kill(signal); // no group of its own (ESRCH), or gone already
  }
}

export interface SupervisedWrangler {
  process: ChildProcess;
  /** Resolves with the exit code once wrangler and everything it started are gone. */
  exited: Promise<number>;
  /** Stops wrangler and its workerd; resolves when they are gone. */
  stop(): Promise<void>;
  /** Synchronous, for an exiting process: asks for the stop without waiting. */
  kill(): void;
}

/**
 * Starts wrangler under a small supervisor process (wrangler-supervisor.js) that ends wrangler's whole
 * process group when asked, when wrangler ends, or when this process dies in any way, SIGKILL included:
 * a `dev` that is gone never leaves a wrangler serving a stale build behind.
 */
export function startSupervisedWrangler(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): SupervisedWrangler {
  const { args: full } = wranglerCommand(args);
  return startSupervised(full, options);
}

/**
 * Any program under the same supervisor (`['--exec', program, ...args]`, or a Node script's path and
 * its arguments): its whole process group ends with this process, however this process ends.
 */
export function startSupervised(
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): SupervisedWrangler {
  // Beside this file in the sources, and beside the bundle in dist/: the same name in both layouts.
  const supervisor = fileURLToPath(new URL('./wrangler-supervisor.js', import.meta.url));
  const child = spawn(process.execPath, [supervisor, ...args], {
    cwd: options.cwd,
    env: { ...options.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code ?? 1));
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  return {
    process: child,
    exited,
    kill,
    stop: async () => {
      kill();
      await exited;
    },
  };
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
