import { execFile, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
  index: { languages: string[]; content: { title: string; url: string; url_en?: string }[] };
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

    it('build (the name Hugo reads from 0.123 on): left out, and the report says so when this Hugo writes the page', async () => {
      const outcome = await publish(file('build:\n  render: never\n'));
      expect(outcome.indexed).toBe(false);
      expect(reasonOf(outcome)).toBe('unrendered');
      const check = outcome.report.sitePages;
      // Hugo before 0.123 reads only `_build` and writes the page; from 0.123 on it does not.
      const unindexed = check.ran ? check.unindexed.map((u) => u.page) : [];
      expect(unindexed).toEqual(outcome.page ? ['posts/regla/index.html'] : []);
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
