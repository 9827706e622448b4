import { execFile } from 'node:child_process';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);
let site: TempSite;
beforeAll(async () => {
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
});
afterAll(() => site.dispose());

async function deploy(env: Record<string, string>, ...flags: string[]) {
  return deployIn(site.root, env, ...flags);
}

async function deployIn(cwd: string, env: Record<string, string>, ...flags: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDFLARE_')));
  try {
    const r = await run(
      process.execPath,
      [join(PROJECT_ROOT, 'bin/content-index.js'), 'deploy', '--project-name', 'test', ...flags],
      {
        cwd,
        env: { ...clean, ...env, NO_COLOR: '1' },
      },
    );
    return { code: 0, ...r };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

it('stops before building when the Cloudflare credentials are missing, saying what to set', async () => {
  const result = await deploy({ CLOUDFLARE_ACCOUNT_ID: 'abc' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'environment variable CLOUDFLARE_API_TOKEN: is not set; nothing was built or deployed',
  );
  expect(result.stderr).toContain('export CLOUDFLARE_API_TOKEN');
  expect(result.stderr).not.toContain('CLOUDFLARE_ACCOUNT_ID: is not set');
  await expect(access(join(site.root, 'public'))).rejects.toThrow(); // nothing was built
  const neither = await deploy({});
  expect(neither.stderr).toContain('CLOUDFLARE_ACCOUNT_ID: is not set');
  expect(neither.stderr).toContain('CLOUDFLARE_API_TOKEN: is not set');
});

describe('--drafts and --future', () => {
  const CREDENTIALS = { CLOUDFLARE_API_TOKEN: 'token', CLOUDFLARE_ACCOUNT_ID: 'account' };
  // Cloudflare's side played by the stand-in (its `pages deploy` succeeds), so a deploy that gets past
  // the check finishes here without a network.
  const FAKE = {
    ...CREDENTIALS,
    CONTENT_INDEX_WRANGLER: join(PROJECT_ROOT, 'tests/fixtures/wrangler/fake-wrangler.mjs'),
  };

  it.each([
    [['--drafts'], '--drafts: would publish drafts on the production site'],
    [['--future'], '--future: would publish future-dated items on the production site'],
    [
      ['--drafts', '--future'],
      '--drafts --future: would publish drafts and future-dated items on the production site',
    ],
  ])(
    '%j to production are refused before anything is built, saying how to preview them',
    async (flags, message) => {
      const result = await deploy(FAKE, '--skip-live-check', ...flags);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${message} (no --branch); nothing was built or deployed`);
      expect(result.stderr).toContain(
        'hint: deploy a preview with --branch <name> (its own address, not the site), or pass --allow-unpublished-in-production',
      );
      expect(result.stdout).not.toContain('✓ built');
      await expect(access(join(site.root, 'public'))).rejects.toThrow(); // nothing was built
    },
  );

  it('go ahead to a preview (--branch), and to production only when the operator says so, with a warning', async () => {
    const preview = await deploy(FAKE, '--skip-live-check', '--drafts', '--branch', 'preview');
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stderr).not.toContain('production site');
    const production = await deploy(
      FAKE,
      '--skip-live-check',
      '--drafts',
      '--allow-unpublished-in-production',
    );
    expect(production.code, production.stderr).toBe(0);
    expect(production.stderr).toContain(
      'warning: --drafts without --branch: this deploy publishes drafts on the production site (--allow-unpublished-in-production)',
    );
    await rm(join(site.root, 'public'));
    await rm(join(site.root, '.content-index'), { recursive: true, force: true });
  });
});

it('with credentials: builds, verifies the output, then hands over to wrangler pages deploy', async () => {
  // No network here: wrangler fails to reach the API, which proves it was reached with the built folder.
  // The live check against the configured site is tested in tests/live-check.test.ts.
  const result = await deploy(
    { CLOUDFLARE_API_TOKEN: 'token', CLOUDFLARE_ACCOUNT_ID: 'account' },
    '--skip-live-check',
  );
  expect(result.stderr).toContain('warning: live check skipped (--skip-live-check): https://example.com/');
  expect(result.stdout).toContain('✓ built 1 item into');
  expect(result.stdout).toContain('✓ output verified');
  expect(`${result.stdout}${result.stderr}`).toMatch(/api\.cloudflare\.com|Cloudflare's API/);
  expect(result.code).not.toBe(0);
  await access(join(site.root, 'public/api/v1/content.json'));
});

it("refuses to deploy a Hugo site's output that has none of its pages, and says to run hugo first", async () => {
  // A fresh clone: the output folder is git-ignored, so without `hugo` it holds the API alone.
  const hugo = await tempSite({
    'hugo.toml': "baseURL = 'https://example.com/'\ndefaultContentLanguage = 'es'\n",
    'content/posts/hola.es.md': md({ title: 'Hola' }),
  });
  const credentials = { CLOUDFLARE_API_TOKEN: 'token', CLOUDFLARE_ACCOUNT_ID: 'account' };
  try {
    const refused = await deployIn(hugo.root, credentials, '--skip-live-check');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "public: holds none of the site's pages (no HTML file content-index did not write), and this is a Hugo site (hugo.toml); nothing was deployed",
    );
    expect(refused.stderr).toContain('run hugo first: `hugo && content-index deploy`');
    expect(`${refused.stdout}${refused.stderr}`).not.toMatch(/api\.cloudflare\.com|Cloudflare's API/);

    // With the site's pages there (what hugo writes), the deploy checks the index against them: an
    // address with no page stops it, naming the file.
    await mkdir(join(hugo.root, 'public/blog'), { recursive: true });
    await writeFile(join(hugo.root, 'public/blog/index.html'), '<h1>Blog</h1>\n');
    const dead = await deployIn(hugo.root, credentials, '--skip-live-check');
    expect(dead.code).toBe(1);
    expect(dead.stderr).toContain(
      'content/posts/hola.es.md: url: publishes https://example.com/blog/hola/, and the site generator wrote no page there',
    );
    await mkdir(join(hugo.root, 'public/blog/hola'), { recursive: true });
    await writeFile(join(hugo.root, 'public/blog/hola/index.html'), '<h1>Hola</h1>\n');
    const deployed = await deployIn(hugo.root, credentials, '--skip-live-check');
    expect(deployed.stdout).toContain('site pages    2 addresses of the index checked against the 2 pages');
    expect(deployed.stdout).toContain('✓ output verified');
    expect(`${deployed.stdout}${deployed.stderr}`).toMatch(/api\.cloudflare\.com|Cloudflare's API/);

    // --api-only says the output is meant to hold the API alone: the pages are not checked, and it says so.
    await rm(join(hugo.root, 'public/blog'), { recursive: true });
    const apiOnly = await deployIn(hugo.root, credentials, '--skip-live-check', '--api-only');
    expect(apiOnly.stdout).toContain(
      "site pages    not checked: the output folder holds none of the site's pages",
    );
    expect(apiOnly.stdout).toContain('✓ output verified');
  } finally {
    await hugo.dispose();
  }
});
