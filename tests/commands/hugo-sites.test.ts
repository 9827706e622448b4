import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUGO, type HugoSite, hugoSite } from '../helpers/hugo-site.ts';
import { INITIALIZE, JSON_RPC_HEADERS, raw } from '../helpers/mcp.ts';
import { type PagesDev, startPagesDev } from '../helpers/pages-dev.ts';

// A Hugo site adopts content-index with no hand edit: `init`, then `npm run build` (hugo, then the
// build) as init wrote it, on fixture sites shaped like real ones (tests/fixtures/hugo-sites/). What is
// published is in the site's words, at addresses hugo wrote; the Pages project's hosts answer /mcp; the
// site's static/_redirects and _headers are served, build after build.
if (!HUGO) console.warn('hugo-sites.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

interface Index {
  sections: { name: string; url: string }[];
  content: { type: string; title: string; url: string; url_en?: string; url_pt?: string }[];
}

/** init, then npm run build as init wrote it; the published index. */
async function adopt(site: HugoSite): Promise<{ init: string; index: Index; build: string }> {
  const init = await site.sh(process.execPath, ['node_modules/.bin/content-index', 'init']);
  expect(init.code, init.stderr).toBe(0);
  const built = await site.npm('build');
  expect(built.code, `${built.stderr}\n${await site.read('site.config.ts')}`).toBe(0);
  return {
    init: init.stdout,
    index: await site.json<Index>('public/api/v1/content.json'),
    build: built.stderr,
  };
}

/** Every address the index publishes that is not a page hugo wrote (none, in every test). */
async function deadAddresses(site: HugoSite, index: Index): Promise<string[]> {
  const urls = [
    ...index.sections.map((s) => s.url),
    ...index.content.flatMap((item) => [item.url, item.url_en, item.url_pt]),
  ].filter((url): url is string => url !== undefined);
  const dead: string[] = [];
  for (const url of urls) if (!(await site.hasPage(url))) dead.push(url);
  return dead;
}

/**
 * The llms.txt the build wrote for the language whose name (H1) and description (the blockquote) are
 * given: wherever it lives (each language's file lives where that language's pages do).
 */
async function llmsOf(site: HugoSite, name: string, description: string): Promise<string | undefined> {
  const files = (await readdir(join(site.root, 'public'), { recursive: true })).filter((f) =>
    /(^|\/)llms\.txt$/.test(f.split('\\').join('/')),
  );
  for (const file of files) {
    const text = await site.read(join('public', file));
    if (text.startsWith(`# ${name}\n`) && text.includes(`\n> ${description}\n`)) return text;
  }
  return undefined;
}

describe.skipIf(!HUGO)(`Hugo sites adopt content-index with no hand edit (hugo ${HUGO ?? ''})`, () => {
  describe('a Spanish-default es/en blog with a long title and static/_redirects and _headers', () => {
    let site: HugoSite;
    let adopted: Awaited<ReturnType<typeof adopt>>;
    let server: PagesDev | undefined;
    beforeAll(async () => {
      site = await hugoSite('es-en-long-title-static-files', 'apuntes-ia');
      adopted = await adopt(site);
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await site?.dispose();
    });

    it('init makes the 42-character title valid for ai-plugin.json, says so, and the first build passes', async () => {
      expect(adopted.init).toContain(
        'title: "Apuntes de inteligencia artificial y datos" is longer than the 20 characters',
      );
      const config = await site.read('site.config.ts');
      expect(config).toContain(
        "Hugo's title is 42 characters; ai-plugin.json's name_for_human takes 20: shortened.",
      );
      expect(config).toContain("nameForHuman: 'Apuntes',");
      // Nothing to warn about: the contact is Hugo's params.email, the logo static/logo.png.
      expect(adopted.build).toBe('');
      expect(await deadAddresses(site, adopted.index)).toEqual([]);
      expect(adopted.index.content.map((i) => i.title).sort()).toEqual(['Hola mundo', 'Redes neuronales']);
    });

    it("publishes the site's words: Hugo's titles and params.description per language, its kinds, contact and logo", async () => {
      const es =
        (await llmsOf(
          site,
          'Apuntes de inteligencia artificial y datos',
          'Notas sobre aprendizaje automático, escritas sin prisa.',
        )) ?? 'no Spanish llms.txt in the words of the site';
      const en =
        (await llmsOf(
          site,
          'Notes on artificial intelligence and data',
          'Notes on machine learning, written without haste.',
        )) ?? 'no English llms.txt in the words of the site';
      // A blog of posts: its llms.txt speaks of posts, not of projects and tips.
      expect(es).toContain('cada artículo con su título');
      expect(`${es}${en}`).not.toMatch(/proyecto|consejo|project|\btips?\b/i);
      const manifest = await site.json<Record<string, string>>('public/.well-known/ai-plugin.json');
      expect(manifest).toMatchObject({
        name_for_human: 'Apuntes',
        description_for_human: 'Notas sobre aprendizaje automático, escritas sin prisa.',
        contact_email: 'hola@blog.example.org',
        logo_url: 'https://blog.example.org/logo.png',
      });
      expect(await site.hasPage(manifest.logo_url as string)).toBe(true);
    });

    it('builds again, hugo first, with no conflict: static/_redirects and _headers merged each time', async () => {
      const again = await site.npm('build');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toBe('');
      const redirects = await site.read('public/_redirects');
      expect(redirects).toContain(
        '# From static/_redirects:\n/viejo /posts/hola/ 301\n/antiguo/* /posts/:splat 302',
      );
      expect(await site.read('public/_headers')).toContain(
        '# From static/_headers:\n/posts/*\n  X-Frame-Options: DENY',
      );
    });

    it("serves static/_redirects' rules and /mcp on the Pages project's hosts through wrangler pages dev", async () => {
      server = await startPagesDev('public', [], site.root);
      const moved = await fetch(`${server.url}/viejo`, { redirect: 'manual' });
      expect(moved.status).toBe(301);
      expect(new URL(moved.headers.get('location') ?? '', server.url).pathname).toBe('/posts/hola/');
      expect((await fetch(`${server.url}/antiguo/redes/`, { redirect: 'manual' })).status).toBe(302);
      const page = await fetch(`${server.url}/posts/hola/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('x-frame-options')).toBe('DENY');

      const initialize = (host: string) =>
        raw(`${server?.url}/mcp`, {
          method: 'POST',
          headers: { ...JSON_RPC_HEADERS, Host: host },
          body: INITIALIZE,
        });
      // wrangler.toml's name is the package's (init), and both the production and a preview host answer.
      expect(await site.read('wrangler.toml')).toContain('name = "apuntes-ia"');
      for (const host of ['apuntes-ia.pages.dev', '3f2a9c1e.apuntes-ia.pages.dev', 'blog.example.org']) {
        expect((await initialize(host)).status, host).toBe(200);
      }
      for (const host of ['evil.example.com', 'apuntes-ia.pages.dev.evil.net', 'other.pages.dev']) {
        expect((await initialize(host)).status, host).toBe(403);
      }
    });
  });

  it('an English-default site with a content folder per language: sections, words, addresses', async () => {
    const site = await hugoSite('en-default-content-dirs');
    try {
      const { init, index, build } = await adopt(site);
      // The language folders content/en and content/es are not sections left out.
      expect(init).not.toMatch(/left out: .*\b(en|es)\b/);
      expect(await site.read('site.config.ts')).not.toMatch(/left out/);
      expect(index.sections.map((s) => s.name)).toEqual(['Posts', 'Tips']);
      expect(await deadAddresses(site, index)).toEqual([]);
      expect(index.content).toHaveLength(2);
      expect(
        await llmsOf(site, 'Field Notes', 'Notes from the field, on programming and machine learning.'),
      ).toContain('lists every post and tip in one GET request');
      expect(
        await llmsOf(site, 'Notas de campo', 'Notas de campo sobre programación y aprendizaje automático.'),
      ).toContain('cada artículo y consejo con su título');
      // No contact and no logo in Hugo's configuration: said on every build, naming each setting.
      expect(build).toContain('site.config.ts: aiPlugin.contactEmail: is not set');
      expect(build).toContain('site.config.ts: aiPlugin.logoUrl: is not set, and the site serves no logo');
    } finally {
      await site.dispose();
    }
  });

  it('uglyURLs and odd language keys: section pages as posts.html, no key the build refuses', async () => {
    const site = await hugoSite('ugly-urls-odd-language-keys');
    try {
      const { init, index } = await adopt(site);
      expect(index.sections.map((s) => s.url)).toEqual([
        'https://ugly.example.net/posts.html',
        'https://ugly.example.net/projects.html',
      ]);
      expect(index.content.map((i) => i.url).sort()).toEqual([
        'https://ugly.example.net/posts/hola.html',
        'https://ugly.example.net/projects/motor.html',
      ]);
      expect(await deadAddresses(site, index)).toEqual([]);
      // "en us" is a suffix Hugo reads (hola.en us.md is its page), left out; "zh.hant" cannot be one.
      const config = await site.read('site.config.ts');
      expect(config).toContain("skipLanguages: ['en us']");
      expect(config).not.toContain('zh.hant');
      expect(init).toContain('language zh.hant: a file name cannot carry this key');
      // The reverse check reaches the .html pages under posts/: a draft hugo -D wrote is reported.
      await writeFile(
        join(site.root, 'content/posts/extra.md'),
        '---\ntitle: Extra\ndate: 2024-01-01\ndraft: true\n---\n',
      );
      expect((await site.sh('hugo', ['--quiet', '-D'])).code).toBe(0);
      const built = await site.sh(process.execPath, ['node_modules/.bin/content-index', 'build', '--json']);
      expect(built.code, built.stderr).toBe(0);
      const check = JSON.parse(built.stdout).sitePages;
      expect(check.unindexed).toEqual([
        expect.objectContaining({
          page: 'posts/extra.html',
          reason: 'left out: a draft',
          file: 'content/posts/extra.md',
        }),
      ]);
    } finally {
      await site.dispose();
    }
  });
});
