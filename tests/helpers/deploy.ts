import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from './site.ts';

/** The stand-in for wrangler that deploy tests point CONTENT_INDEX_WRANGLER at. */
export const FAKE_WRANGLER = join(PROJECT_ROOT, 'tests/fixtures/wrangler/fake-wrangler.mjs');

export interface DeployRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/**
 * `content-index deploy --project-name test --skip-live-check …` in its own process, as CI runs it:
 * credentials set, none of the caller's CLOUDFLARE_ variables, wrangler played by FAKE_WRANGLER. With
 * `liveCheck`, the live check runs (the caller passes `--live <address>`).
 */
export function deployWithFakeWrangler(
  root: string,
  env: Record<string, string>,
  args: readonly string[],
  options: { liveCheck?: boolean } = {},
): Promise<DeployRun> {
  const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDFLARE_'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(PROJECT_ROOT, 'bin/content-index.js'),
        'deploy',
        '--project-name',
        'test',
        ...(options.liveCheck ? [] : ['--skip-live-check']),
        ...args,
      ],
      {
        cwd: root,
        env: {
          ...Object.fromEntries(inherited),
          WRANGLER_SEND_METRICS: 'false',
          NO_COLOR: '1',
          CLOUDFLARE_API_TOKEN: 'token',
          CLOUDFLARE_ACCOUNT_ID: 'account',
          CONTENT_INDEX_WRANGLER: FAKE_WRANGLER,
          ...env,
        },
        timeout: 240_000,
      },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: number | string | null; signal?: string | null }) | null;
        resolve({
          code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0,
          signal: failed?.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}
