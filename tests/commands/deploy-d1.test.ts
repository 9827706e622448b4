import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { D1_SITE, generations } from '../helpers/d1.ts';
import { deployWithFakeWrangler } from '../helpers/deploy.ts';
import { installFunctions } from '../helpers/functions.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// `content-index deploy` with the D1 backend. Cloudflare is played by a stand-in wrangler
// (tests/fixtures/wrangler/fake-wrangler.mjs): its "remote" D1 is a real local SQLite, its `pages deploy`
// succeeds or fails on demand, and it logs every call, so the order of the steps can be checked.

let site: TempSite;
let state: string;
let log: string;
beforeAll(async () => {
  site = await tempSite(D1_SITE.files, D1_SITE.config);
  await installFunctions(site.root);
  state = await mkdtemp(join(tmpdir(), 'content-index-deploy-d1-'));
  log = join(state, 'wrangler.log');
});
afterAll(async () => {
  await site?.dispose();
  await rm(state, { recursive: true, force: true });
});

async function deploy(extra: Record<string, string> = {}, ...args: string[]) {
  await writeFile(log, '');
  const result = await deployWithFakeWrangler(
    site.root,
    { CI: '1', FAKE_D1_STATE: state, FAKE_WRANGLER_LOG: log, ...extra },
    args,
  );
  const calls = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      if (line.startsWith('pages functions build')) return 'compile the Worker';
      if (line.startsWith('pages deploy')) return 'pages deploy';
      if (line.includes('--file')) return 'd1 import file';
      if (line.includes("SET state = 'live'")) return 'd1 switch';
      if (line.includes("SET state = 'preview'")) return 'd1 mark preview';
      return 'd1 state';
    });
  return { ...result, calls };
}

describe('deploy with the D1 backend', () => {
  it('imports the new generation before publishing, and switches to it only after', async () => {
    const result = await deploy();
    expect(result.code, result.stderr).toBe(0);
    const generation = /D1 import: (g[0-9a-f]{12})/.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout).toContain(`… D1 import: ${generation} (2 items) into content-index`);
    expect(result.stdout).toMatch(new RegExp(`✓ D1 import: ${generation} imported in [\\d.]+ s`));
    expect(result.stdout).toContain(`✓ D1: ${generation} is live`);
    expect(result.calls).toEqual([
      'compile the Worker',
      'd1 state',
      'd1 import file',
      'd1 state',
      'pages deploy',
      // The state read after the import serves the switch: it names no other generation than this one.
      'd1 switch',
    ]);
    expect((await generations(site.root, state)).states).toEqual({ [generation]: 'live' });
  });

  it('leaves the live generation serving when the publish fails', async () => {
    const live = Object.keys((await generations(site.root, state)).states)[0] ?? '';
    await site.write('content/posts/nueva.es.md', md({ title: 'Nueva entrada', date: '2026-01-09' }));
    const result = await deploy({ FAKE_DEPLOY_EXIT: '1' });
    expect(result.code).toBe(1);
    const generation = /D1 import: (g[0-9a-f]{12})/.exec(result.stdout)?.[1] ?? '';
    expect(result.stderr).toContain(
      `✗ the deploy failed: D1 keeps serving the live generation; ${generation} stays imported for the next attempt`,
    );
    expect(result.calls.at(-1)).toBe('pages deploy');
    expect((await generations(site.root, state)).states).toEqual({ [live]: 'live', [generation]: 'ready' });
  });

  it('imports a preview deployment’s generation without making it live', async () => {
    const before = (await generations(site.root, state)).states;
    await site.write('content/posts/vista.es.md', md({ title: 'Vista previa', date: '2026-01-10' }));
    const result = await deploy({}, '--branch', 'feature');
    expect(result.code, result.stderr).toBe(0);
    const generation = /D1 import: (g[0-9a-f]{12})/.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout).toContain(
      `✓ D1: ${generation} serves the preview feature; production is unchanged`,
    );
    expect(result.calls.at(-1)).toBe('d1 mark preview');
    expect((await generations(site.root, state)).states).toEqual({ ...before, [generation]: 'preview' });
  });

  it('refuses before anything is imported or published when the database has no id', async () => {
    const toml = await readFile(join(site.root, 'wrangler.toml'), 'utf8');
    await site.write('wrangler.toml', toml.replace(/^database_id = .*$/m, ''));
    try {
      const result = await deploy();
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'wrangler.toml: d1_databases: the database bound as CONTENT_INDEX_DB has no database_id; nothing was deployed',
      );
      expect(result.calls).toEqual(['compile the Worker']);
    } finally {
      await site.write('wrangler.toml', toml);
    }
  });

  it('measures the compiled Worker and refuses one over the limit, uploading nothing', async () => {
    // The build's estimate knows the tool's Functions; a Function of the site's own adds to the Worker.
    await site.write(
      'functions/big.ts',
      `export const onRequest = () => new Response(${JSON.stringify(randomBytes(300_000).toString('base64'))});\n`,
    );
    try {
      const result = await deploy({
        CONTENT_INDEX_TEST_LIMITS: JSON.stringify({ workerGzipBytes: 400_000 }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /functions: the compiled Worker is [\d.]+ KiB compressed, over the free plan's 390\.6 KiB Worker limit; nothing was deployed\n {2}hint: your own Functions add to the Worker: make them smaller/,
      );
      expect(result.calls).toEqual(['compile the Worker']);
    } finally {
      await site.remove('functions/big.ts');
    }
  });
});
