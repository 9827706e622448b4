import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import picomatch from 'picomatch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSiteConfig } from '../../build/core/config/resolve-site-config.ts';
import { DEFAULT_LAYOUT } from '../../build/core/config/site-config.ts';
import { assemble } from '../../build/core/content/assemble.ts';
import { cascader } from '../../build/core/content/cascade.ts';
import type { BranchFile, SourceFile, Translation } from '../../build/core/content/model.ts';
import { readSources } from '../../build/stages/load.ts';
import { ParseCache, type Stamp } from '../../build/stages/parse-cache.ts';
import { FIXTURE_CONFIG } from '../helpers/site.ts';

// V8's own answer to whether an object keeps a hidden class (fast properties) or fell into dictionary
// mode: a getter of its own on each of many objects puts each in dictionary mode, some 450 bytes of
// properties apiece, which a 10,000-item site's 25,900 files and as many translations paid at its peak.
setFlagsFromString('--allow-natives-syntax');
const fast = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-shape-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const MAX = 1e6;
const STAMP: Stamp = { size: 19, mtimeMs: 1_000_000, ctimeMs: 1_000_000, ino: 7 };
const COUNT = 40;

/** COUNT posts in Spanish with bodies, every third with a publishDate after its date; read as a second build reads them. */
async function keptFiles(): Promise<SourceFile[]> {
  const tasks = [];
  for (let i = 0; i < COUNT; i++) {
    const name = `post-${String(i).padStart(2, '0')}`;
    const absolute = join(dir, `${name}.es.md`);
    const publish = i % 3 === 0 ? 'publishDate: 2024-02-01\n' : '';
    await writeFile(
      absolute,
      `---\ntitle: Entrada ${i}\ndate: 2024-01-0${1 + (i % 9)}\n${publish}---\nCuerpo ${i}.\n`,
    );
    tasks.push({
      path: `content/posts/${name}.es.md`,
      absolute,
      location: { type: 'post' as const, name, dir: 'posts', lang: 'es' as const },
    });
  }
  const options = { maxFileBytes: MAX, stat: () => STAMP, now: () => 5_000_000, bodies: true };
  const first = ParseCache.open(dir, options);
  await readSources(tasks, { layout: DEFAULT_LAYOUT, maxFileBytes: MAX, bodies: true, cache: first });
  await first.save();
  // The next process: every outcome from the cache, each body still to be read when asked for.
  const read = await readSources(tasks, {
    layout: DEFAULT_LAYOUT,
    maxFileBytes: MAX,
    bodies: true,
    cache: ParseCache.open(dir, options),
  });
  return read.files;
}

const HUGO = {
  buildDrafts: false,
  buildFuture: false,
  buildExpired: false,
  languages: ['es' as const],
  disabledLanguages: [],
  file: 'hugo.toml',
};
const BRANCHES: BranchFile[] = [
  {
    path: 'content/posts/_index.md',
    dir: 'posts',
    lang: 'es',
    data: { cascade: { publishDate: '2024-03-01' } },
  },
];
const config = () => resolveSiteConfig({ ...FIXTURE_CONFIG }, {}, 'site.config.ts');
const translationsOf = (result: ReturnType<typeof assemble>): Translation[] => {
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.model.entries.flatMap((entry) => Object.values(entry.translations) as Translation[]);
};

describe("the model's files and translations keep their hidden classes", () => {
  it('files read with bodies left to be read: one shape, their lines and bodies read through', async () => {
    const files = await keptFiles();
    expect(files).toHaveLength(COUNT);
    for (const file of files) expect(fast(file)).toBe(true);
    expect(sameShape(files[1] as object, files[2] as object)).toBe(true);
    for (const [i, file] of files.entries()) {
      expect(file.bodyKey).toBeDefined();
      expect(file.lines.title).toBe(2);
      expect(file.body).toBe(`Cuerpo ${i}.`);
      // Readers that list a file's keys or copy it still find both.
      expect(Object.keys(file)).toEqual(expect.arrayContaining(['lines', 'body']));
    }
  });

  it('translations given their bodies by key, and their copies with a publishDate', async () => {
    const translations = translationsOf(
      assemble(await keptFiles(), config(), { now: new Date('2025-01-01'), hugo: HUGO }),
    );
    expect(translations).toHaveLength(COUNT);
    const copies = translations.filter((t) => t.publishDate !== undefined);
    expect(copies.length).toBeGreaterThan(0);
    for (const t of translations) {
      expect(fast(t)).toBe(true);
      expect(t.body).toBe(`Cuerpo ${Number(t.title.split(' ')[1])}.`);
      expect(JSON.parse(JSON.stringify(t)).body).toBe(t.body);
    }
  });

  it("pages a Hugo list page's cascade reaches", async () => {
    const files = await keptFiles();
    const result = assemble(files, config(), {
      now: new Date('2025-01-01'),
      hugo: HUGO,
      cascade: {
        branches: [
          {
            path: 'content/posts/_index.md',
            dir: 'posts',
            lang: 'es',
            data: { cascade: { publishDate: '2024-03-01' } },
          },
        ],
        glob: (glob) => picomatch(glob, { dot: true }),
      },
      contentDir: 'content',
    });
    const translations = translationsOf(result);
    expect(translations).toHaveLength(COUNT);
    // The pages themselves, as the cascade makes them.
    const cascade = cascader({
      branches: BRANCHES,
      glob: (glob) => picomatch(glob, { dot: true }),
      rules: { drafts: false, future: false, hugo: HUGO },
      now: '2025-01-01T00:00:00Z',
      contentDir: 'content',
      layout: DEFAULT_LAYOUT,
    });
    const pages = files.map((file) => cascade(file).file);
    for (const [i, page] of pages.entries()) {
      // A page that sets its own publishDate is given nothing: the same object back.
      if (i % 3 === 0) continue;
      expect(page).not.toBe(files[i]);
      expect(fast(page)).toBe(true);
      expect(page.lines.title).toBe(2);
      expect(page.body).toBe(`Cuerpo ${i}.`);
    }
    for (const t of translations) {
      // Its own publishDate where it has one, the list page's elsewhere: a page made with it, then a copy.
      expect(t.publishDate).toMatch(/^2024-0[23]-01/);
      expect(fast(t)).toBe(true);
      expect(t.body).toBe(`Cuerpo ${Number(t.title.split(' ')[1])}.`);
    }
  });
});
