import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { deployWithFakeWrangler } from '../helpers/deploy.ts';
import { type PagesDev, startPagesDev } from '../helpers/pages-dev.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// Never emptied by accident: `deploy` compares the index it built with the one the live site serves
// (here an earlier build served by `wrangler pages dev`), lists what would leave the live API, and
// refuses to take a whole section or more than a tenth of the live items off it without --allow-removals.
// Cloudflare's side of the upload is played by the stand-in wrangler.

const POSTS = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [
    `content/posts/post-${String(i).padStart(2, '0')}.es.md`,
    md({ title: `Artículo ${i}`, date: `2025-01-${String(i + 1).padStart(2, '0')}` }),
  ]),
);
const PROJECT = { 'content/projects/motor.es.md': md({ title: 'Motor', technologies: ['Rust'] }) };

let live: PagesDev;
let liveSite: TempSite;
const sites: TempSite[] = [];

beforeAll(async () => {
  liveSite = await tempSite({ ...POSTS, ...PROJECT });
  await build({ root: liveSite.root });
  live = await startPagesDev(liveSite.out, [], liveSite.root);
}, 120_000);
afterAll(async () => {
  await live?.stop();
  await liveSite?.dispose();
  for (const site of sites) await site.dispose();
});

/** A project with `files`, deployed against the live site (its live check on, not skipped). */
async function deployWith(files: Record<string, string>, ...flags: string[]) {
  const site = await tempSite(files);
  sites.push(site);
  const log = join(site.root, 'wrangler.log');
  const result = await deployWithFakeWrangler(
    site.root,
    { FAKE_WRANGLER_LOG: log },
    ['--live', live.url, ...flags],
    {
      liveCheck: true,
    },
  );
  const uploaded = await readFile(log, 'utf8').then(
    (text) => text.includes('pages deploy'),
    () => false,
  );
  return { ...result, uploaded, site };
}

describe('a deploy against the live site', () => {
  it('refuses to take a whole section off the live API (every project gone), naming it, and uploads nothing', async () => {
    const result = await deployWith(POSTS);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(1);
    expect(result.stderr).toContain(
      'content: this deploy would take every live item of projects (1) off the live API (/api/v1/content.json): https://example.com/proyectos/motor/; nothing was deployed',
    );
    expect(result.stderr).toContain('deploy again with --allow-removals');
    expect(result.uploaded).toBe(false);
  });

  it('refuses more than a tenth of the live items (2 of 13), and lets them go with --allow-removals, listing them', async () => {
    const { 'content/posts/post-00.es.md': _a, 'content/posts/post-01.es.md': _b, ...rest } = POSTS;
    const refused = await deployWith({ ...rest, ...PROJECT });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('2 of the 13 live items, more than 10%');
    expect(refused.uploaded).toBe(false);

    const allowed = await deployWith({ ...rest, ...PROJECT }, '--allow-removals');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('2 of the 13 live items would leave /api/v1/content.json:');
    expect(allowed.stdout).toContain('https://example.com/blog/post-00/ (post: Artículo 0)');
    expect(allowed.uploaded).toBe(true);
  });

  it('lets one item of thirteen go without asking, and says which', async () => {
    const { 'content/posts/post-05.es.md': _gone, ...rest } = POSTS;
    const result = await deployWith({ ...rest, ...PROJECT });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('1 of the 13 live items would leave /api/v1/content.json:');
    expect(result.stdout).toContain('https://example.com/blog/post-05/ (post: Artículo 5)');
    expect(result.uploaded).toBe(true);
  });

  it('refuses an empty content folder before anything else (the live index would be emptied)', async () => {
    const result = await deployWith({ ...POSTS, ...PROJECT });
    expect(result.code, result.stderr).toBe(0);
    await rm(join(result.site.root, 'content'), { recursive: true });
    const again = await deployWithFakeWrangler(result.site.root, {}, ['--live', live.url], {
      liveCheck: true,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('content: does not exist');
  });
});
