import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_MODULE_PATH, MCP_PACKED_PATH } from '../../build/core/edge/mcp/worker-module.ts';
import { deployWithFakeWrangler } from '../helpers/deploy.ts';
import { installFunctions } from '../helpers/functions.ts';
import { connectV2Http } from '../helpers/mcp.ts';
import { startProjectPagesDev } from '../helpers/pages-dev.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// The /mcp Function's data module (.content-index/worker/) is bundled by every `wrangler pages dev` and
// `pages deploy` of the project, whatever folder they serve: it belongs to the build of the folder the
// Pages project serves (pages_build_output_dir; `public` here, the default), and a build into another
// folder must not replace it, or that folder's drafts reach /mcp of the served site.

const FILES = {
  'content/posts/publico.es.md': md({ title: 'Entrada pública', date: '2025-01-01' }),
  'content/posts/borrador.es.md': md({ title: 'Borrador secreto', date: '2025-01-02', draft: true }),
};

let site: TempSite;
let scratch: string;
/** A project's data module and the bytes it imports (the embedded data: its texts are UTF-8 as they are). */
const dataText = async (root: string) =>
  (await readFile(join(root, MCP_MODULE_PATH), 'utf8')) +
  (await readFile(join(root, MCP_PACKED_PATH), 'utf8').catch(() => ''));
const moduleText = () => dataText(site.root);

beforeAll(async () => {
  site = await tempSite(FILES);
  await installFunctions(site.root);
  scratch = await mkdtemp(join(tmpdir(), 'content-index-served-'));
});
afterAll(async () => {
  await site?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

function deploy(env: Record<string, string>, ...args: string[]) {
  return deployWithFakeWrangler(site.root, env, args);
}

describe('a build into another output folder', () => {
  it('leaves /mcp of the served folder as it was: the drafts of `build --drafts --out preview` never reach it (wrangler pages dev public)', async () => {
    expect((await site.cli('build')).code).toBe(0);
    const served = await moduleText();
    const preview = await site.cli('build', '--drafts', '--out', 'preview');
    expect(preview.code).toBe(0);
    expect(await readFile(join(site.root, 'preview/api/v1/content.json'), 'utf8')).toContain(
      'Borrador secreto',
    );
    expect(await moduleText()).toBe(served);

    const server = await startProjectPagesDev(site.out, [], site.root);
    try {
      const index = await (await fetch(`${server.url}/api/v1/content.json`)).text();
      expect(index).not.toContain('Borrador');
      const mcp = await connectV2Http(`${server.url}/mcp`);
      try {
        for (const query of ['secreto', 'borrador']) {
          const found = await mcp.callTool('search_content', { query });
          expect(found.structuredContent?.total, query).toBe(0);
        }
        const listed = await mcp.callTool('list_content', {});
        expect(listed.structuredContent?.total).toBe(1);
      } finally {
        await mcp.close();
      }
    } finally {
      await server.stop();
    }
    // …and the build says why it left the data alone.
    expect(preview.stdout).toContain("not written: the Function's data in .content-index/ is the build of");
  });

  it('writes the data when there is none yet (a fresh clone): the Function has nothing else to bundle', async () => {
    const fresh = await tempSite(FILES);
    try {
      expect(existsSync(join(fresh.root, MCP_MODULE_PATH))).toBe(false);
      const other = await fresh.cli('build', '--out', 'preview');
      expect(other.code, other.stderr).toBe(0);
      const written = await dataText(fresh.root);
      expect(written).toContain('Entrada pública');
      expect(written).not.toContain('Borrador secreto');
      // From then on it belongs to the served folder's build: a second build elsewhere leaves it.
      expect((await fresh.cli('build', '--drafts', '--out', 'preview')).code).toBe(0);
      expect(await dataText(fresh.root)).toBe(written);
    } finally {
      await fresh.dispose();
    }
  });

  it('without pages_build_output_dir, warns that /mcp stays with public and says how to make it follow', async () => {
    const other = await tempSite(FILES);
    try {
      expect((await other.cli('build')).code).toBe(0);
      const served = await dataText(other.root);
      const result = await other.cli('build', '--drafts', '--out', 'dist');
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        'wrangler.toml: pages_build_output_dir: is not set, so the /mcp data in .content-index/ belongs to the build of public; this build into dist left it as it was\n' +
          '  hint: if dist is the folder you deploy, set pages_build_output_dir = "dist" in wrangler.toml (Cloudflare Pages reads it too)',
      );
      expect(await dataText(other.root)).toBe(served);
    } finally {
      await other.dispose();
    }
  });

  it('follows pages_build_output_dir: with `dist` served, a build into dist writes the data and one into public does not', async () => {
    const other = await tempSite(FILES);
    try {
      await other.write('wrangler.toml', 'name = "test"\npages_build_output_dir = "dist"\n');
      expect((await other.cli('build', '--out', 'dist')).code).toBe(0);
      const dist = await dataText(other.root);
      const json = JSON.parse((await other.cli('build', '--drafts', '--json')).stdout);
      expect(json.mcp).toMatchObject({ written: false, servedOut: join(other.root, 'dist') });
      expect(await dataText(other.root)).toBe(dist);
    } finally {
      await other.dispose();
    }
  });
});

describe('deploy', () => {
  it('of another folder uploads that build’s /mcp data, then puts the served build’s back', async () => {
    const served = await moduleText();
    const captured = join(scratch, 'uploaded-other.mjs');
    const result = await deploy(
      { FAKE_DEPLOY_CAPTURE: captured },
      '--out',
      'preview',
      '--drafts',
      '--branch',
      'preview',
    );
    expect(result.code, result.stderr).toBe(0);
    // Consistent with what was uploaded: preview holds the draft, and so did the module bundled with it.
    expect(await readFile(captured, 'utf8')).toContain('Borrador secreto');
    expect(result.stdout).toContain('✓ /mcp data: .content-index/ holds the build of public again');
    expect(await moduleText()).toBe(served);
    expect(existsSync(join(site.root, '.content-index/held'))).toBe(false);
  });

  it('of the served folder uploads exactly the data it leaves on disk', async () => {
    const captured = join(scratch, 'uploaded-served.mjs');
    const result = await deploy({ FAKE_DEPLOY_CAPTURE: captured });
    expect(result.code, result.stderr).toBe(0);
    const uploaded = await readFile(captured, 'utf8');
    expect(uploaded).toBe(await moduleText());
    expect(uploaded).not.toContain('Borrador');
    expect(result.stdout).not.toContain('holds the build of');
  });

  it('killed in the middle of the upload of another folder: the next build puts the served build’s data back', async () => {
    const served = await moduleText();
    const result = await deploy(
      { FAKE_DEPLOY_KILL_PARENT: '1' },
      '--out',
      'preview',
      '--drafts',
      '--branch',
      'preview',
    );
    expect(result.signal).toBe('SIGKILL');
    expect(await moduleText()).toContain('Borrador secreto'); // left as the killed deploy had it
    expect(existsSync(join(site.root, '.content-index/held'))).toBe(true);

    expect((await site.cli('build', '--out', 'preview', '--drafts')).code).toBe(0);
    expect(await moduleText()).toBe(served);
    expect(existsSync(join(site.root, '.content-index/held'))).toBe(false);
  });
});
