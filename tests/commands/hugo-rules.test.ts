import { execFile, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuildReport } from '../../build/report.ts';
import { runCli } from '../helpers/site.ts';

// One Hugo publication rule at a time, with real hugo as the judge: a small Spanish/English site with one
// page that exercises the rule, set up by `init`, built by hugo and then by content-index. The index
// holds the page exactly when hugo wrote it; when it does not, the report gives Hugo's reason. Skipped
// without hugo (CI installs it).
const run = promisify(execFile);
const hugoVersion = spawnSync('hugo', ['version'], { encoding: 'utf8' });
const hasHugo = hugoVersion.status === 0;
if (!hasHugo) console.warn('hugo-rules.test.ts: skipped, hugo is not on the PATH (apt-get install hugo)');

const CONFIG = [
  "baseURL = 'https://example.org/'",
  "title = 'Reglas'",
  "defaultContentLanguage = 'es'",
  '[languages.es]',
  '  weight = 1',
  '[languages.en]',
  '  weight = 2',
  '',
].join('\n');

const BASE = {
  'layouts/_default/single.html': '<h1>{{ .Title }}</h1>\n',
  'layouts/_default/list.html': '<h1>{{ .Title }}</h1>\n',
  'layouts/index.html': '<h1>{{ .Site.Title }}</h1>\n',
  // Always published: the section is never empty, so the build has something to index.
  'content/posts/siempre.md': '---\ntitle: Siempre\ndate: 2024-01-01\n---\n',
};

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

interface Outcome {
  /** Whether hugo wrote posts/<name>/index.html. */
  page: boolean;
  /** Whether the index holds the item. */
  indexed: boolean;
  report: BuildReport;
  index: {
    languages: string[];
    sections: { name: string; url: string }[];
    content: { title: string; url: string; url_en?: string }[];
  };
}

/** init, hugo, build (--json); `afterInit` edits the Hugo configuration as an author would later. */
async function publish(
  files: Record<string, string>,
  options: { config?: string; afterInit?: string; page?: string } = {},
): Promise<Outcome> {
  root = await mkdtemp(join(tmpdir(), 'content-index-rule-'));
  const all = { 'hugo.toml': options.config ?? CONFIG, ...BASE, ...files };
  for (const [path, content] of Object.entries(all)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  const init = await runCli(root, {}, ['init']);
  expect(init.code, init.stderr).toBe(0);
  if (options.afterInit) await writeFile(join(root, 'hugo.toml'), options.afterInit);
  await run('hugo', ['--quiet'], { cwd: root });
  const build = await runCli(root, {}, ['build', '--json']);
  expect(build.code, build.stderr).toBe(0);
  const report = JSON.parse(build.stdout) as BuildReport;
  const index = JSON.parse(await readFile(join(root, 'public/api/v1/content.json'), 'utf8'));
  const page = await access(join(root, 'public', options.page ?? 'posts/regla/index.html')).then(
    () => true,
    () => false,
  );
  const indexed = index.content.some((item: { title: string }) => item.title === 'Regla');
  return { page, indexed, report, index };
}

const file = (frontMatter: string, before = '') => ({
  'content/posts/regla.md': `${before}---\ntitle: Regla\ndate: 2024-02-01\n${frontMatter}---\n`,
});
const withSwitch = (line: string) => `${line}\n${CONFIG}`;

/** The titles whose page (under public/) hugo wrote, in the order given. */
async function writtenOf(pages: Record<string, string>): Promise<string[]> {
  const written: string[] = [];
  for (const [title, path] of Object.entries(pages)) {
    const exists = await access(join(root as string, 'public', path)).then(
      () => true,
      () => false,
    );
    if (exists) written.push(title);
  }
  return written;
}

/** The reason the report gives for leaving the rule's page (content/posts/regla.md, or its bundle) out. */
function reasonOf(outcome: Outcome): string | undefined {
  return outcome.report.leftOut.find((l) => /^content\/posts\/regla(\.md|\/index\.md)$/.test(l.file))?.reason;
}

describe.skipIf(!hasHugo)(
  `each rule as ${hasHugo ? hugoVersion.stdout.split(' ')[1] : 'hugo'} applies it`,
  () => {
    it.each([
      ['draft', file('draft: true\n'), {}, 'draft'],
      [
        'draft with buildDrafts',
        file('draft: true\n'),
        { config: withSwitch('buildDrafts = true') },
        undefined,
      ],
      [
        'a date ahead',
        { 'content/posts/regla.md': '---\ntitle: Regla\ndate: 2099-01-01\n---\n' },
        {},
        'future',
      ],
      [
        'a date ahead with buildFuture',
        { 'content/posts/regla.md': '---\ntitle: Regla\ndate: 2099-01-01\n---\n' },
        { config: withSwitch('buildFuture = true') },
        undefined,
      ],
      ['publishDate ahead', file('publishDate: 2099-01-01\n'), {}, 'future'],
      ['pubdate ahead (publishDate by another name)', file('pubdate: 2099-01-01\n'), {}, 'future'],
      [
        'publishDate passed, date ahead',
        { 'content/posts/regla.md': '---\ntitle: Regla\ndate: 2099-01-01\npublishDate: 2024-01-01\n---\n' },
        {},
        undefined,
      ],
      ['expiryDate passed', file('expiryDate: 2020-01-01\n'), {}, 'expired'],
      [
        'unpublishdate passed (expiryDate by another name)',
        file('unpublishdate: 2020-01-01\n'),
        {},
        'expired',
      ],
      [
        'expiryDate passed with buildExpired',
        file('expiryDate: 2020-01-01\n'),
        { config: withSwitch('buildExpired = true') },
        undefined,
      ],
      ['expiryDate ahead', file('expiryDate: 2099-01-01\n'), {}, undefined],
      ['_build render never', file('_build:\n  render: never\n'), {}, 'unrendered'],
      ['_build render link', file('_build:\n  render: link\n'), {}, 'unrendered'],
      ['_build render false (older sites)', file('_build:\n  render: false\n'), {}, 'unrendered'],
      ['_build list local', file('_build:\n  list: local\n'), {}, undefined],
      [
        'headless page bundle',
        { 'content/posts/regla/index.md': '---\ntitle: Regla\ndate: 2024-02-01\nheadless: true\n---\n' },
        {},
        'headless',
      ],
      ['headless on a page that is no bundle (Hugo ignores it)', file('headless: true\n'), {}, undefined],
      ['blank lines before the front matter', file('', '\n \n\t\n'), {}, undefined],
      ['a byte-order mark before the front matter', file('', '\uFEFF'), {}, undefined],
      [
        'a byte-order mark and a blank line before TOML front matter',
        { 'content/posts/regla.md': '\uFEFF\r\n+++\ntitle = "Regla"\ndate = 2024-02-01\n+++\n' },
        {},
        undefined,
      ],
    ] as const)('%s', async (_rule, files, options, reason) => {
      const outcome = await publish(files, options);
      // The index holds the page exactly when hugo wrote it, and says why when it does not.
      expect(outcome.indexed).toBe(outcome.page);
      expect(outcome.page).toBe(reason === undefined);
      expect(reasonOf(outcome)).toBe(reason);
    });

    it('_build list never: hugo writes the page and lists it nowhere; the index leaves it out and the report names it', async () => {
      const outcome = await publish(file('_build:\n  list: never\n  render: always\n'));
      expect(outcome.page).toBe(true);
      expect(outcome.indexed).toBe(false);
      expect(reasonOf(outcome)).toBe('unlisted');
      const check = outcome.report.sitePages;
      expect(check.ran && check.unindexed).toEqual([
        {
          page: 'posts/regla/index.html',
          url: 'https://example.org/posts/regla/',
          reason: expect.stringContaining('_build.list: never'),
          file: 'content/posts/regla.md',
        },
      ]);
    });

    it("another page's alias at a left-out page's address: hugo writes the redirect there, and the report names no page of the draft", async () => {
      const outcome = await publish({
        ...file('draft: true\n'),
        'content/posts/nueva.md': "---\ntitle: Nueva\ndate: 2024-03-01\naliases: ['/posts/regla/']\n---\n",
      });
      // What hugo wrote at the draft's address is the alias, a redirect to the new page.
      expect(await readFile(join(root as string, 'public/posts/regla/index.html'), 'utf8')).toMatch(
        /http-equiv="?refresh[^>]*posts\/nueva\//,
      );
      expect(outcome.indexed).toBe(false);
      expect(reasonOf(outcome)).toBe('draft');
      const check = outcome.report.sitePages;
      expect(check.ran && check.unindexed).toEqual([]);
    });

    it('build (the name Hugo reads from 0.123 on): left out, and the report says so when this Hugo writes the page', async () => {
      const outcome = await publish(file('build:\n  render: never\n'));
      expect(outcome.indexed).toBe(false);
      expect(reasonOf(outcome)).toBe('unrendered');
      const check = outcome.report.sitePages;
      // Hugo before 0.123 reads only `_build` and writes the page; from 0.123 on it does not.
      const unindexed = check.ran ? check.unindexed.map((u) => u.page) : [];
      expect(unindexed).toEqual(outcome.page ? ['posts/regla/index.html'] : []);
    });

    it("cascade from a section's _index.md, as hugo applies it: to the pages below that do not set the key, and a list page hugo does not publish takes its pages with it", async () => {
      const page = (title: string, extra = '') => `---\ntitle: ${title}\ndate: 2024-02-01\n${extra}---\n`;
      const list = (frontMatter: string) => `---\ntitle: Lista\n${frontMatter}---\n`;
      const outcome = await publish({
        'content/posts/secreto/_index.md': list('cascade:\n  _build:\n    render: never\n'),
        'content/posts/secreto/uno.md': page('Uno'),
        'content/posts/secreto/hondo/dos.md': page('Dos'),
        'content/posts/secreto/propio.md': page('Propio', '_build:\n  render: always\n'),
        'content/posts/borradores/_index.md': list('draft: false\ncascade:\n  draft: true\n'),
        'content/posts/borradores/b-uno.md': page('B uno'),
        'content/posts/borradores/b-dos.md': page('B dos', 'draft: false\n'),
        'content/posts/capitulo/_index.md': list('draft: true\n'),
        'content/posts/capitulo/c-uno.md': page('C uno', 'draft: false\n'),
        'content/posts/viejo/_index.md': list('expiryDate: 2020-01-01\n'),
        'content/posts/viejo/v-uno.md': page('V uno', 'expiryDate: 2099-01-01\n'),
        'content/posts/dirigido/_index.md': list(
          "cascade:\n  - _build:\n      render: never\n    _target:\n      path: '/posts/dirigido/sub/**'\n",
        ),
        'content/posts/dirigido/d-uno.md': page('D uno'),
        'content/posts/dirigido/sub/d-dos.md': page('D dos'),
        // A single map, not a list: hugo 0.111 does not read its _target, and its values reach every page.
        'content/posts/mapa/_index.md': list(
          "cascade:\n  _build:\n    render: never\n  _target:\n    path: '/posts/mapa/sub/**'\n",
        ),
        'content/posts/mapa/m-uno.md': page('M uno'),
        'content/posts/mapa/sub/m-dos.md': page('M dos'),
        'content/posts/sin-cabeza/_index.md': list('cascade:\n  headless: true\n'),
        'content/posts/sin-cabeza/paquete/index.md': page('Paquete'),
      });
      const pages = {
        Uno: 'posts/secreto/uno/index.html',
        Dos: 'posts/secreto/hondo/dos/index.html',
        Propio: 'posts/secreto/propio/index.html',
        'B uno': 'posts/borradores/b-uno/index.html',
        'B dos': 'posts/borradores/b-dos/index.html',
        'C uno': 'posts/capitulo/c-uno/index.html',
        'V uno': 'posts/viejo/v-uno/index.html',
        'D uno': 'posts/dirigido/d-uno/index.html',
        'D dos': 'posts/dirigido/sub/d-dos/index.html',
        'M uno': 'posts/mapa/m-uno/index.html',
        'M dos': 'posts/mapa/sub/m-dos/index.html',
        Paquete: 'posts/sin-cabeza/paquete/index.html',
      };
      const written = await writtenOf(pages);
      // The index holds exactly the pages hugo wrote (and the build, whose witness checks it, passed).
      expect(written.sort()).toEqual(['B dos', 'D uno', 'Propio']);
      expect(outcome.index.content.map((i) => i.title).sort()).toEqual([
        'B dos',
        'D uno',
        'Propio',
        'Siempre',
      ]);
      const reasons = Object.fromEntries(outcome.report.leftOut.map((l) => [l.file, l.reason]));
      expect(reasons).toEqual({
        'content/posts/secreto/uno.md': 'unrendered',
        'content/posts/secreto/hondo/dos.md': 'unrendered',
        'content/posts/borradores/b-uno.md': 'draft',
        'content/posts/capitulo/c-uno.md': 'draft',
        'content/posts/viejo/v-uno.md': 'expired',
        'content/posts/dirigido/sub/d-dos.md': 'unrendered',
        'content/posts/mapa/m-uno.md': 'unrendered',
        'content/posts/mapa/sub/m-dos.md': 'unrendered',
        'content/posts/sin-cabeza/paquete/index.md': 'headless',
      });
    });

    it('the reverse check with defaultContentLanguageInSubdir: an English page the index lacks is under en/posts/, and reported', async () => {
      const outcome = await publish(
        {
          'content/posts/regla.md': '---\ntitle: Regla\ndate: 2024-02-01\n---\n',
          'content/posts/solo.en.md': '---\ntitle: Only\ndate: 2024-02-01\n---\n',
        },
        { config: withSwitch('defaultContentLanguageInSubdir = true'), page: 'es/posts/regla/index.html' },
      );
      expect(outcome.page && outcome.indexed).toBe(true);
      const check = outcome.report.sitePages;
      expect(check.ran && check.unindexed.map((u) => [u.page, u.file])).toEqual([
        ['en/posts/solo/index.html', 'content/posts/solo.en.md'],
      ]);
    });

    it('permalinks outside the section folder: the report says which pages the reverse check could not reach', async () => {
      const outcome = await publish(file(''), {
        config: `${CONFIG}[permalinks]\n  posts = '/:year/:month/:title/'\n`,
        page: '2024/02/regla/index.html',
      });
      expect(outcome.page && outcome.indexed).toBe(true);
      const check = outcome.report.sitePages;
      expect(check.ran && check.uncovered).toEqual([
        'post pages in es (route /{year}/{month}/{title}/)',
        'post pages in en (route /en/{year}/{month}/{title}/)',
      ]);
    });

    it("a nested section's list page is no item; a page hugo left behind after a rename is named as such", async () => {
      const outcome = await publish(
        {
          'content/posts/2024/_index.md': '---\ntitle: Año 2024\n---\n',
          'content/posts/2024/regla.md': '---\ntitle: Regla\ndate: 2024-02-01\n---\n',
        },
        { page: 'posts/2024/regla/index.html' },
      );
      expect(outcome.page && outcome.indexed).toBe(true);
      const check = outcome.report.sitePages;
      // posts/2024/index.html is the nested section's list page: not reported as a page the index lacks.
      expect(check.ran && check.unindexed).toEqual([]);
      // Renamed: hugo writes the new page and leaves the old one in public/.
      await rename(
        join(root as string, 'content/posts/2024/regla.md'),
        join(root as string, 'content/posts/2024/norma.md'),
      );
      await run('hugo', ['--quiet'], { cwd: root });
      const again = await runCli(root as string, {}, ['build', '--json']);
      expect(again.code, again.stderr).toBe(0);
      const pages = JSON.parse(again.stdout).sitePages.unindexed;
      expect(pages).toEqual([
        expect.objectContaining({
          page: 'posts/2024/regla/index.html',
          reason: expect.stringContaining('an earlier run of the generator left it in the output'),
        }),
      ]);
    });

    it('a section whose only item is a draft: hugo writes no section page, the index leaves the section out and says so', async () => {
      const outcome = await publish(
        { 'content/tips/truco.md': '---\ntitle: Truco\ndate: 2024-01-01\ndraft: true\n---\n' },
        { page: 'tips/index.html' },
      );
      // init wrote the section; hugo wrote no page for it; the build passes without it.
      expect(await readFile(join(root as string, 'site.config.ts'), 'utf8')).toContain("url: 'tips/'");
      expect(outcome.page).toBe(false);
      expect(outcome.index.sections.map((s) => s.name)).toEqual(['Posts']);
      expect(outcome.report.warnings).toContainEqual(
        expect.objectContaining({
          code: 'address_dead',
          field: 'sections.1.url',
          message: expect.stringContaining(
            'Tips holds no published item (its files are left out: content/tips/truco.md (a draft))',
          ),
        }),
      );
      // Once the tip is published, the section is listed again.
      await writeFile(
        join(root as string, 'content/tips/truco.md'),
        '---\ntitle: Truco\ndate: 2024-01-01\n---\n',
      );
      await run('hugo', ['--quiet'], { cwd: root });
      const again = await runCli(root as string, {}, ['build', '--json']);
      expect(again.code, again.stderr).toBe(0);
      const index = JSON.parse(await readFile(join(root as string, 'public/api/v1/content.json'), 'utf8'));
      expect(index.sections.map((s: { name: string }) => s.name)).toEqual(['Posts', 'Tips']);
      expect(JSON.parse(again.stdout).warnings).not.toContainEqual(
        expect.objectContaining({ field: 'sections.1.url' }),
      );
    });

    it('a section whose list page hugo does not render: the index leaves the section out and says so, and keeps its items', async () => {
      // Found by hugo-random-sites.test.ts: the section was listed at an address hugo wrote no page for,
      // and the witness stopped the build. The list page's cascade gives it render never too.
      const outcome = await publish(
        {
          'content/tips/_index.md': '---\ntitle: Trucos\ncascade:\n  _build:\n    render: never\n---\n',
          'content/tips/truco.md': '---\ntitle: Truco\ndate: 2024-01-01\n_build:\n  render: always\n---\n',
        },
        { page: 'tips/index.html' },
      );
      expect(outcome.page).toBe(false);
      expect(outcome.index.sections.map((s) => s.name)).toEqual(['Posts']);
      expect(outcome.index.content.map((item) => item.title).sort()).toEqual(['Siempre', 'Truco']);
      expect(outcome.report.warnings).toContainEqual(
        expect.objectContaining({
          code: 'address_dead',
          field: 'sections.1.url',
          message: expect.stringContaining("Tips's list page content/tips/_index.md is not rendered"),
        }),
      );
    });

    it('a cascade in TOML (`hugo new` writes TOML): a table and an array of tables, their dates TOML dates, targets as sub-tables', async () => {
      const page = (title: string) => `+++\ntitle = "${title}"\ndate = 2024-02-01\n+++\n`;
      const outcome = await publish({
        'content/posts/tabla/_index.md': '+++\ntitle = "Tabla"\n[cascade]\nexpiryDate = 2020-01-01\n+++\n',
        'content/posts/tabla/t-uno.md': page('T uno'),
        'content/posts/lista/_index.md': [
          '+++',
          'title = "Lista"',
          '[[cascade]]',
          'expirydate = 2020-01-01',
          '[cascade._target]',
          'path = "/posts/lista/l-uno*"',
          '[[cascade]]',
          'publishdate = 2099-01-01',
          '[cascade._target]',
          'path = "/posts/lista/l-dos*"',
          '+++',
          '',
        ].join('\n'),
        'content/posts/lista/l-uno.md': page('L uno'),
        'content/posts/lista/l-dos.md': page('L dos'),
        'content/posts/lista/l-tres.md': page('L tres'),
      });
      const written = await writtenOf({
        'T uno': 'posts/tabla/t-uno/index.html',
        'L uno': 'posts/lista/l-uno/index.html',
        'L dos': 'posts/lista/l-dos/index.html',
        'L tres': 'posts/lista/l-tres/index.html',
      });
      expect(written).toEqual(['L tres']);
      expect(outcome.index.content.map((item) => item.title).sort()).toEqual(['L tres', 'Siempre']);
      const reasons = Object.fromEntries(outcome.report.leftOut.map((l) => [l.file, l.reason]));
      expect(reasons).toMatchObject({
        'content/posts/tabla/t-uno.md': 'expired',
        'content/posts/lista/l-uno.md': 'expired',
        'content/posts/lista/l-dos.md': 'future',
      });
    });

    it("a cascade list as hugo 0.111 reads it: its dates in lower case only, draft in any case, the first block's value", async () => {
      // Found by hugo-random-sites.test.ts. Hugo 0.111 lowers the case of a page's own keys and of a
      // single cascade map's, not of a cascade list's, and looks for the dates in lower case.
      const page = (title: string) => `---\ntitle: ${title}\ndate: 2024-02-01\n---\n`;
      const list = (cascade: string) => `---\ntitle: Lista\ncascade:\n${cascade}---\n`;
      const outcome = await publish({
        'content/posts/mayusculas/_index.md': list('  - expiryDate: 2020-01-01\n'),
        'content/posts/mayusculas/m-uno.md': page('M uno'),
        'content/posts/minusculas/_index.md': list('  - expirydate: 2020-01-01\n'),
        'content/posts/minusculas/n-uno.md': page('N uno'),
        'content/posts/mapa/_index.md': list('  expiryDate: 2020-01-01\n'),
        'content/posts/mapa/p-uno.md': page('P uno'),
        'content/posts/borrador/_index.md': list('  - Draft: true\n'),
        'content/posts/borrador/b-uno.md': page('B uno'),
        // Two blocks for the same pages: the first that sets a key wins.
        'content/posts/primero/_index.md': list('  - draft: true\n  - draft: false\n'),
        'content/posts/primero/f-uno.md': page('F uno'),
      });
      const written = await writtenOf({
        'M uno': 'posts/mayusculas/m-uno/index.html',
        'N uno': 'posts/minusculas/n-uno/index.html',
        'P uno': 'posts/mapa/p-uno/index.html',
        'B uno': 'posts/borrador/b-uno/index.html',
        'F uno': 'posts/primero/f-uno/index.html',
      });
      expect(written).toEqual(['M uno']);
      expect(outcome.index.content.map((item) => item.title).sort()).toEqual(['M uno', 'Siempre']);
    });

    it('a content folder whose every file is a draft: an empty index, with a warning naming the folder', async () => {
      const outcome = await publish({
        'content/posts/siempre.md': '---\ntitle: Siempre\ndate: 2024-01-01\ndraft: true\n---\n',
      });
      expect(outcome.index.content).toEqual([]);
      expect(outcome.report.warnings).toContainEqual(
        expect.objectContaining({
          code: 'content_missing',
          file: 'content',
          message: expect.stringContaining(
            'publishes no item: each of its 1 content file is left out (draft)',
          ),
        }),
      );
    });

    it('disableLanguages set in the Hugo configuration after init: nothing is published in that language', async () => {
      const outcome = await publish(
        {
          'content/posts/regla.md': '---\ntitle: Regla\ndate: 2024-02-01\n---\n',
          'content/posts/regla.en.md': '---\ntitle: Rule\ndate: 2024-02-01\n---\n',
        },
        { afterInit: withSwitch("disableLanguages = ['en']"), page: 'en/posts/regla/index.html' },
      );
      expect(outcome.page).toBe(false);
      expect(outcome.index.languages).toEqual(['es']);
      const item = outcome.index.content.find((i) => i.title === 'Regla');
      expect(item?.url_en).toBeUndefined();
      expect(outcome.report.leftOut).toContainEqual(
        expect.objectContaining({ file: 'content/posts/regla.en.md', reason: 'language-disabled' }),
      );
      await expect(access(join(root as string, 'public/en/llms.txt'))).rejects.toThrow();
    });
  },
);
