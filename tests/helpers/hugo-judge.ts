import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { BuildReport } from '../../build/report.ts';
import { runCli } from './site.ts';

// The real hugo as the judge of a Hugo site's index: adopted as a user adopts it (`init`, then what
// `npm run build` runs), every address the index publishes is a page hugo wrote, and every page hugo
// wrote under the indexed sections is in the index or named in the report with the reason it is not.
const run = promisify(execFile);

/** An item of the v1 index, as the judges read it. */
export interface Item {
  type: string;
  title: string;
  url: string;
  url_en?: string;
  url_pt?: string;
}

export interface Adopted {
  root: string;
  index: { languages: string[]; content: Item[]; sections: { url: string }[] };
  report: BuildReport;
  /** Every HTML file hugo wrote, relative to public/. */
  pages: string[];
}

/** What the build script init wrote runs: hugo, then content-index build (here with --json). */
export async function npmRunBuild(
  dir: string,
): Promise<{ code: number; stderr: string; report: BuildReport }> {
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  expect(manifest.scripts.build).toBe('hugo && content-index build');
  await run('hugo', ['--quiet'], { cwd: dir });
  const result = await runCli(dir, {}, ['build', '--json']);
  return {
    code: result.code,
    stderr: result.stderr,
    report: result.code === 0 ? (JSON.parse(result.stdout) as BuildReport) : ({} as BuildReport),
  };
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.html'))
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** `https://host/posts/x/` → `posts/x/index.html`. */
export function pageOf(url: string): string {
  return `${decodeURIComponent(new URL(url).pathname).slice(1)}index.html`;
}

/**
 * Both directions, worked out here from hugo's output alone: the pages under the indexed sections
 * (their list pages and the alias redirects hugo writes aside) are exactly the index's addresses and
 * the pages the report names as not indexed.
 */
export async function expectBothDirections(
  site: Adopted,
  sectionFolders: string[],
  /** Nested sections' list pages under those folders: lists, not items. */
  listPages: readonly string[] = [],
): Promise<void> {
  const addresses = site.index.content.flatMap((item) =>
    [item.url, item.url_en, item.url_pt].filter((u): u is string => u !== undefined),
  );
  // A translation v1 has no field for (Spanish, when it is not canonical) is in its llms.txt.
  for (const file of site.report.files.filter((f) => f.path.endsWith('llms.txt'))) {
    const text = await readFile(join(site.root, 'public', file.path), 'utf8');
    for (const [, url = ''] of text.matchAll(/^- \[[^\]]*\]\((https:[^)]+\/)\)/gm)) {
      if (sectionFolders.some((folder) => pageOf(url).startsWith(folder))) addresses.push(url);
    }
  }
  const indexed = new Set(addresses.map(pageOf));
  // Every address is a page hugo wrote.
  expect([...indexed].filter((page) => !site.pages.includes(page))).toEqual([]);
  const redirects = new Set<string>();
  for (const page of site.pages) {
    const html = await readFile(join(site.root, 'public', page), 'utf8');
    if (/http-equiv=["']?refresh/i.test(html)) redirects.add(page);
  }
  const underSections = site.pages.filter(
    (page) =>
      sectionFolders.some((folder) => page.startsWith(folder) && page !== `${folder}index.html`) &&
      !redirects.has(page) &&
      !listPages.includes(page),
  );
  expect(site.report.sitePages.ran).toBe(true);
  const unindexed = site.report.sitePages.ran ? site.report.sitePages.unindexed : [];
  // (An address outside the sections, a page's own `url`, was checked above.)
  const inSections = [...indexed].filter((page) => sectionFolders.some((folder) => page.startsWith(folder)));
  expect([...new Set([...inSections, ...unindexed.map((u) => u.page)])].sort()).toEqual(underSections);
  // Each page the index lacks is there for a reason the report gives, with its file.
  for (const page of unindexed) {
    expect(page.reason, page.page).toMatch(/^left out: /);
    expect(page.file, page.page).toBeDefined();
  }
}

/** `init`, then hugo and the build: the site as a user adopts it. */
export async function adoptSite(root: string): Promise<Adopted> {
  const init = await runCli(root, {}, ['init']);
  expect(init.code, init.stderr).toBe(0);
  const built = await npmRunBuild(root);
  expect(built.code, `${built.stderr}\n${await readFile(join(root, 'site.config.ts'), 'utf8')}`).toBe(0);
  const index = JSON.parse(await readFile(join(root, 'public/api/v1/content.json'), 'utf8'));
  const own = new Set(built.report.files.map((f) => f.path));
  const pages = (await htmlFiles(join(root, 'public'))).filter((page) => !own.has(page));
  return { root, index, report: built.report, pages };
}
