import { renameSync, rmSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ContentIndexError } from '../../build/core/errors.ts';
import { build } from '../../build/index.ts';
import { FragmentStore } from '../../build/stages/fragment-store.ts';
import { ParseCache } from '../../build/stages/parse-cache.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// The content folder listed, then moved aside or emptied before its files are read (a checkout
// switching branches, a folder renamed while dev rebuilds): what the build then reads is not the site.
// It must fail and leave the output as it was, never publish an index emptied or cut down by accident.

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

const clock = () => new Date('2026-01-01T00:00:00Z');

const POSTS = {
  'content/posts/uno.es.md': md({ title: 'Uno' }),
  'content/posts/dos.es.md': md({ title: 'Dos' }),
  'content/posts/tres.es.md': md({ title: 'Tres' }),
};

/**
 * A parse cache that does `meanwhile` when the build asks it about the listed files: after the listing,
 * before a single file is read. The race made certain, with the cache the build uses anyway.
 */
class Meanwhile extends ParseCache {
  constructor(private readonly meanwhile: () => void) {
    super();
  }
  override lookup(...args: Parameters<ParseCache['lookup']>): ReturnType<ParseCache['lookup']> {
    this.meanwhile();
    return super.lookup(...args);
  }
}

/** A build that reads every file (no store: nothing known by its stamp) through `cache`. */
const buildDuring = (root: string, meanwhile: () => void) =>
  build({ root, clock, store: FragmentStore.memory(), cache: new Meanwhile(meanwhile) });

async function failure(run: Promise<unknown>): Promise<ContentIndexError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContentIndexError);
  return error as ContentIndexError;
}

const published = async (out: string) => readFile(join(out, 'api/v1/content.json'), 'utf8');

/**
 * A built site, then a build during which `meanwhile(root)` happens: it must fail with the one problem
 * whose message matches `message`, and leave the published index as it was.
 */
async function refusedDuring(meanwhile: (root: string) => void, message: RegExp) {
  site = await tempSite(POSTS);
  await build({ root: site.root, clock });
  const before = await published(site.out);
  const { root } = site;
  const error = await failure(buildDuring(root, () => meanwhile(root)));
  expect(error.problems).toEqual([
    expect.objectContaining({
      code: 'content_missing',
      file: 'content',
      message: expect.stringMatching(message),
    }),
  ]);
  expect(await published(site.out)).toBe(before);
  expect(JSON.parse(before).content).toHaveLength(3);
  return { root, out: site.out, before };
}

it('refuses to publish when the content folder is moved aside while its files are read', async () => {
  const { root, out, before } = await refusedDuring(
    // Synchronous, as the cache's lookup is: the folder is gone before any file is opened.
    (at) => renameSync(join(at, 'content'), join(at, 'content-aside')),
    /^was moved or removed while the build read it \(3 of its 3 content files/,
  );
  // Back in place, the same build publishes the site again.
  await rename(join(root, 'content-aside'), join(root, 'content'));
  await build({ root, clock, store: FragmentStore.memory(), cache: false });
  expect(await published(out)).toBe(before);
});

it('refuses to publish when every content file goes while they are read, the folder left in place', async () => {
  await refusedDuring((at) => {
    for (const name of Object.keys(POSTS)) rmSync(join(at, name));
  }, /^lost every content file while the build read them \(3 of 3/);
});

it('builds the files deleted while read as deleted when others are left in the folder', async () => {
  site = await tempSite(POSTS);
  const { root } = site;
  await buildDuring(root, () => rmSync(join(root, 'content/posts/dos.es.md')));
  const titles = JSON.parse(await published(site.out)).content.map((c: { title: string }) => c.title);
  expect(titles.sort()).toEqual(['Tres', 'Uno']);
});
