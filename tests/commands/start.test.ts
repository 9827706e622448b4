import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../helpers/pages-dev.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

// `npm start`, as a newcomer runs it (on a free port and a temporary output folder, passed through npm).
let child: ChildProcess;
let out: string;
let url: string;
let output = '';

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'content-index-start-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['start', '--silent', '--', '--port', String(port), '--out', out],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, the shell, the CLI and wrangler stop together
    },
  );
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 90_000;
  while (!output.includes('✓ serving') && Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!output.includes('✓ serving')) throw new Error(`npm start did not serve:\n${output}`);
}, 120_000);
afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await rm(out, { recursive: true, force: true });
});

it('opens on the landing page, not a 404', async () => {
  const response = await fetch(`${url}/`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(await readFile(join(out, 'index.html'), 'utf8'));
});

it('prints its own short lines and no stack trace, even offline (wrangler looks up Request.cf online)', async () => {
  // A request makes wrangler look up Request.cf again, which offline prints an error with its stack.
  await fetch(`${url}/api/v9/content.json`);
  await new Promise((r) => setTimeout(r, 500));
  expect(output).toMatch(/✓ built: \d+ items in \d+ ms/);
  expect(output).toContain(`✓ serving ${url}`);
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('Request.cf');
});
