import { spawnSync } from 'node:child_process';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Adopted, adoptSite, expectBothDirections, npmRunBuild } from '../helpers/hugo-judge.ts';
import { PROJECT_ROOT, runCli } from '../helpers/site.ts';

// The index is the site: two Hugo sites shaped like real ones (tests/fixtures/hugo-sites/), each carrying
// every publication rule Hugo applies, adopted as a user adopts them: `init`, then what `npm run build`
// runs (hugo, then content-index build), with no hand edit. The real hugo is the judge: every address
// the index publishes is a page it wrote, and every page it wrote under the indexed sections is in the
// index or named in the report with the reason it is not. Skipped without hugo (CI installs it).
const hugoVersion = spawnSync('hugo', ['version'], { encoding: 'utf8' });
const hasHugo = hugoVersion.status === 0;
if (!hasHugo) console.warn('hugo-witness.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

const FIXTURES = join(PROJECT_ROOT, 'tests/fixtures/hugo-sites');

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

async function adopt(fixture: string): Promise<Adopted> {
  root = await mkdtemp(join(tmpdir(), `content-index-${fixture}-`));
  await cp(join(FIXTURES, fixture), root, { recursive: true });
  return adoptSite(root);
}

describe.skipIf(!hasHugo)(
  `adopted as a user would, judged by ${hasHugo ? hugoVersion.stdout.split(' ')[1] : 'hugo'}`,
  () => {
    it('a Spanish-default blog with page bundles, English-only pages and a disabled language', async () => {
      const site = await adopt('es-default-bundles');
      // Hugo's languages that it publishes: es (canonical) and en; pt-br is disabled.
      expect(site.index.languages).toEqual(['es', 'en']);
      await access(join(site.root, 'public/llms.txt'));
      expect(await readFile(join(site.root, 'public/en/llms.txt'), 'utf8')).toContain('# Test blog');
      await expect(access(join(site.root, 'public/pt-br/llms.txt'))).rejects.toThrow();
      const manifest = await readFile(join(site.root, 'public/.well-known/ai-plugin.json'), 'utf8');
      expect(manifest).not.toMatch(/Portuguese/);
      const openapi = await readFile(join(site.root, 'public/openapi.json'), 'utf8');
      expect(openapi).not.toMatch(/pt-br\/llms\.txt|Brazilian Portuguese \(pt-br\), /);
      // No params.description: the words are written for the kinds the site has, posts and projects.
      const words = JSON.parse(manifest);
      expect(words.description_for_human).toBe(
        'Posts and projects from Blog de prueba, in Spanish and English.',
      );
      expect(words.description_for_model).toContain('to get every post and project in one JSON document');
      expect(JSON.parse(openapi).info.description).toMatch(
        /^Read-only index of every post and project published on/,
      );
      expect(`${manifest}${JSON.parse(openapi).info.description}`).not.toMatch(/\btips?\b/);

      expect(site.index.content.map((item) => item.title).sort()).toEqual([
        'Adelantado',
        'Con BOM',
        'Con alias',
        'Hola mundo',
        'Línea en blanco',
        'Motor',
        'Sin cabeza',
        'Vigente',
      ]);
      expect(site.index.content.find((item) => item.title === 'Hola mundo')).toMatchObject({
        url: 'https://blog.example.org/posts/hola-mundo/',
        url_en: 'https://blog.example.org/en/posts/hello-world/',
      });
      await expectBothDirections(site, ['posts/', 'proyectos/', 'en/posts/', 'en/proyectos/']);
      const reasons = Object.fromEntries(
        (site.report.sitePages.ran ? site.report.sitePages.unindexed : []).map((u) => [u.page, u.reason]),
      );
      expect(reasons).toEqual({
        'en/posts/english-only/index.html': expect.stringContaining('no file in the canonical language'),
        'en/posts/notes/index.html': expect.stringContaining('no file in the canonical language'),
        'posts/no-listado/index.html': expect.stringContaining('_build.list: never'),
        // Hugo 0.123 and later read `build:` too; 0.111 still writes the page, and the report says why it is out.
        'posts/build-nuevo/index.html': expect.stringContaining(
          'build.render, which Hugo reads from 0.123 on',
        ),
      });
      // What Hugo did not publish is left out, each for Hugo's reason.
      const leftOut = Object.fromEntries(site.report.leftOut.map((l) => [l.file, l.reason]));
      expect(leftOut).toMatchObject({
        'content/posts/borrador.md': 'draft',
        'content/posts/futuro.md': 'future',
        'content/posts/programado.md': 'future',
        'content/posts/caducado.md': 'expired',
        'content/posts/sin-pagina.md': 'unrendered',
        'content/posts/oculto/index.md': 'headless',
      });
    });

    it('an English-default site with a content folder per language, few items in Spanish, buildFuture on', async () => {
      const site = await adopt('en-default-content-per-language');
      // English is Hugo's default language, so the canonical one: /llms.txt is English, Spanish under /es/.
      expect(site.index.languages).toEqual(['en', 'es']);
      expect(await readFile(join(site.root, 'public/llms.txt'), 'utf8')).toContain(
        'This file lists the pages in English',
      );
      expect(await readFile(join(site.root, 'public/es/llms.txt'), 'utf8')).toContain('# Sitio de prueba');
      for (const absent of ['en/llms.txt', 'pt/llms.txt', 'pt-br/llms.txt'])
        await expect(access(join(site.root, 'public', absent))).rejects.toThrow();

      const byTitle = Object.fromEntries(site.index.content.map((item) => [item.title, item]));
      expect(Object.keys(byTitle).sort()).toEqual([
        'Blank first',
        'Hello',
        'Only English',
        'Scheduled',
        'Second',
        'Tip one',
        'Tomorrow',
        'With a BOM',
      ]);
      // url is the English page; url_en too; the Spanish page has no v1 field when Spanish is not canonical.
      expect(byTitle.Hello).toEqual({
        type: 'post',
        title: 'Hello',
        description: 'The first post.',
        url: 'https://example.com/posts/hello/',
        url_en: 'https://example.com/posts/hello/',
      });
      await expectBothDirections(site, ['posts/', 'tips/', 'es/posts/', 'es/tips/']);
      const reasons = Object.fromEntries(
        (site.report.sitePages.ran ? site.report.sitePages.unindexed : []).map((u) => [u.page, u.reason]),
      );
      expect(reasons).toEqual({
        'es/posts/solo-espanol/index.html': expect.stringContaining('no file in the canonical language'),
        'posts/unlisted/index.html': expect.stringContaining('_build.list: never'),
      });
      // The Spanish translations are in the Spanish llms.txt (and the MCP server), at Hugo's addresses.
      const spanish = await readFile(join(site.root, 'public/es/llms.txt'), 'utf8');
      expect(spanish).toContain('[Hola](https://example.com/es/posts/hola/)');
      expect(spanish).toContain('[Consejo uno](https://example.com/es/tips/tip-one/)');
    });

    it('stops a build whose index has an address hugo wrote no page for, naming the file, and passes once the page exists', async () => {
      const site = await adopt('es-default-bundles');
      // A new post saved after hugo ran: its page is not in the output yet.
      await writeFile(
        join(site.root, 'content/posts/nuevo.md'),
        '---\ntitle: Nuevo\ndate: 2024-02-20\n---\nNuevo.\n',
      );
      const stale = await runCli(site.root, {}, ['build']);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain(
        'content/posts/nuevo.md: url: publishes https://blog.example.org/posts/nuevo/, and the site generator wrote no page there (posts/nuevo/index.html is not in the output)',
      );
      expect(stale.stderr).toContain('run it again before the build');
      // The page exists once hugo has run: the same build passes.
      const again = await npmRunBuild(site.root);
      expect(again.code, again.stderr).toBe(0);
      expect(again.report.items.total).toBe(9);
    });

    it("stops a build whose indexed page hugo wrote another language's alias over, naming both, and passes once the alias is gone", async () => {
      const site = await adopt('es-default-bundles');
      // An English page whose old address is a Spanish page's: hugo 0.111 writes the English alias, a
      // redirect, over the Spanish page (the languages are written in turn).
      const alias = join(site.root, 'content/posts/movido.en.md');
      await writeFile(
        alias,
        "---\ntitle: Moved\ndate: 2024-02-20\naliases: ['/posts/hola-mundo/']\n---\nMoved.\n",
      );
      await writeFile(
        join(site.root, 'content/posts/movido.md'),
        '---\ntitle: Movido\ndate: 2024-02-20\n---\nMovido.\n',
      );
      expect((await npmRunBuild(site.root)).code).toBe(1);
      const over = await runCli(site.root, {}, ['build']);
      expect(over.code).toBe(1);
      expect(over.stderr).toContain(
        'content/posts/hola-mundo/index.md: url: publishes https://blog.example.org/posts/hola-mundo/, and the site generator wrote a redirect to https://blog.example.org/en/posts/movido/ there (posts/hola-mundo/index.html), not this page',
      );
      expect(over.stderr).toContain("another page's aliases claims this address");
      // The alias removed: hugo writes the page again, and the build passes.
      await writeFile(alias, '---\ntitle: Moved\ndate: 2024-02-20\n---\nMoved.\n');
      const again = await npmRunBuild(site.root);
      expect(again.code, again.stderr).toBe(0);
      expect(again.report.items.total).toBe(9);
    });
  },
);
