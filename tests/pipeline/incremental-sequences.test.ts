import { rename, rm, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SERIALIZERS, type SerializerRegistry } from '../../build/core/serializers/registry.ts';
import type { BuildOptions } from '../../build/index.ts';
import { FragmentStore } from '../../build/stages/fragment-store.ts';
import { DEFAULT_MAX_FILE_BYTES } from '../../build/stages/load.ts';
import { ParseCache } from '../../build/stages/parse-cache.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { HUGO, sameAsCold } from '../helpers/same-as-cold.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// Acceptance 2 of the incremental engine (issue 23), by series of changes no one wrote by hand:
// fast-check draws edits, renames, deletions, list pages' cascades, touches, configuration, lifecycle
// and schema changes (a v2 published, v1 deprecated then withdrawn at its sunset; the tool's registry
// with or without v2) and clock moves, and after each series the site is built with what earlier
// builds kept, the way each caller keeps it:
// - dev: one store and one parse cache in memory across builds, saved when idle (or not yet), told
//   which files its watcher saw change when they were only edited (as dev.ts tells it);
// - a build in a process of its own, as `npm run build` while dev runs: the store and the cache read
//   from .content-index/ and saved there (stamps trusted at once), or the CLI's own defaults.
// Each time, the output folder and the /mcp data are a build from nothing's bytes, or both builds fail
// with the same problems. Stamps are trusted at once (racyMs 0), as they are a few seconds after a
// save, and every write gets a time of its own, as a file system with nanosecond times gives it.
// A failing series is printed with its seed and path: INCREMENTAL_SEED=<seed> INCREMENTAL_PATH=<path>
// runs it alone, INCREMENTAL_SHRINK=1 makes it smaller first, INCREMENTAL_RUNS=<n> draws more.

const RUNS = Number(process.env.INCREMENTAL_RUNS ?? 20);
const SEED = Number(process.env.INCREMENTAL_SEED ?? 2311);
const PATH = process.env.INCREMENTAL_PATH;

/**
 * Before a future date and an expiry, between them, after both; and past v2's later publication
 * (2026-06-10) and v1's sunset (2027-06-20) when the lifecycle has them.
 */
const CLOCKS = [
  '2026-06-01T00:00:00Z',
  '2026-06-18T00:00:00Z',
  '2026-07-02T00:00:00Z',
  '2027-07-01T00:00:00Z',
];

/**
 * headers.config.ts: v1 alone, or v2 published before every clock or between two (v1 deprecated from
 * then; its date changed once recorded is refused), with v1's sunset a year later (withdrawn past it),
 * a migration guide, and another Cache-Control.
 */
const lifecycle = fc.record({
  // Mostly before every clock: a version recorded in versions.lock.json and then dropped, dated
  // otherwise or ahead of the clock is refused until the lifecycle is drawn back.
  v2: fc.oneof(
    { weight: 4, arbitrary: fc.constant('2026-05-20') },
    { weight: 1, arbitrary: fc.constant('2026-06-10') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  documentation: fc.boolean(),
  maxAge: fc.constantFrom(undefined, 60),
});
type Lifecycle = typeof lifecycle extends fc.Arbitrary<infer T> ? T : never;
function headersOf(drawn: Lifecycle): string {
  const helper = join(PROJECT_ROOT, 'build/core/config/lifecycle-config.ts');
  const v1 = {
    published: '2025-01-15',
    // A superseded version must name its sunset, or both would stay current.
    ...(drawn.v2 && { sunset: '2027-06-20' }),
    ...(drawn.v2 && drawn.documentation && { documentation: '/docs/migrar-a-v2' }),
  };
  const config = {
    versions: { v1, ...(drawn.v2 && { v2: { published: drawn.v2 } }) },
    ...(drawn.maxAge !== undefined && { cacheControl: { maxAge: drawn.maxAge } }),
  };
  return `import { defineHeaders } from ${JSON.stringify(helper)};\nexport default defineHeaders(${JSON.stringify(config)});\n`;
}

// Hugo's shapes: pages by suffix, a page bundle (its index files), and a page that names no language
// (the canonical one's, as Hugo reads it).
const FILES = [
  ...[
    'content/posts/uno',
    'content/posts/dos',
    'content/posts/tres',
    'content/posts/cuatro/index',
    'content/projects/motor',
    'content/projects/red',
    'content/tips/atajo',
  ].flatMap((base) => ['es', 'en', 'pt-br'].map((lang) => `${base}.${lang}.md`)),
  'content/tips/sin-sufijo.md',
];
const CASCADE = 'content/posts/_index.md';

const file = fc.constantFrom(...FILES);
const body = fc.constantFrom(
  '',
  'Los **modelos** de lenguaje aprenden.\n',
  'Running language models on a laptop, señal.\n\n```python\nprint("hola")\n```\n',
  'O aprendizado dos modelos.\n',
  'Texto zqxuno del cuerpo.\n',
);
/** An optional field: in one file of `every`. */
const rarely = <T>(value: fc.Arbitrary<T>, every = 6) =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
const frontMatter = fc
  .record({
    title: fc.constantFrom('Uno', 'Dos', 'Motor', 'Atajo de teclado'),
    description: rarely(fc.constantFrom('El primero', 'Otro texto'), 2),
    date: rarely(fc.constantFrom('2025-01-10', '2025-03-01T10:00:00Z', '2026-06-10T00:00:00Z'), 2),
    draft: rarely(fc.boolean()),
    tags: rarely(fc.subarray(['ia', 'ml', 'rust']), 2),
    // Only projects may list them: left out of the files of the other kinds when written.
    technologies: rarely(fc.subarray(['Rust', 'C++', 'Python']), 2),
    translationKey: rarely(fc.constantFrom('k1', 'k2')),
    slug: rarely(fc.constantFrom('mismo', 'otro')),
    expiryDate: rarely(fc.constantFrom('2026-06-15', '2027-01-01')),
    tgas: rarely(fc.constant(['typo']), 10),
  })
  .map((front) => Object.fromEntries(Object.entries(front).filter(([, value]) => value !== undefined)));
/** A file's text as drawn: front matter and body, or a text the build refuses. */
type Content = { front: Record<string, unknown>; body: string } | { refused: string };
const content: fc.Arbitrary<Content> = fc.oneof(
  { weight: 30, arbitrary: fc.record({ front: frontMatter, body }) },
  // It fails as a build from nothing does, until a later series fixes or removes it.
  {
    weight: 1,
    arbitrary: fc.record({
      refused: fc.constantFrom(
        '---\ntitle: [Uno\n---\n',
        md({ title: '' }),
        md({ title: 'X', date: 'ayer' }),
      ),
    }),
  },
);
function textOf(drawn: Content, path: string): string {
  if ('refused' in drawn) return drawn.refused;
  const { technologies, ...front } = drawn.front;
  return md(path.includes('/projects/') ? drawn.front : front, drawn.body);
}

type Op =
  | { op: 'write'; path: string; content: Content }
  | { op: 'remove'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'touch'; path: string }
  | { op: 'backdate'; path: string; content: Content }
  | { op: 'swap'; a: string; b: string }
  | { op: 'cascade'; front?: Record<string, unknown> }
  | { op: 'clock'; at: string }
  | { op: 'lifecycle'; headers: Lifecycle; registry: 'v1' | 'v2'; pastSunset: boolean }
  | { op: 'wipe'; folder: 'public' | '.content-index' }
  | { op: 'config'; name: string; bodies: boolean; orphans: boolean; english: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('write'), path: file, content }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove'), path: file }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename'), from: file, to: file }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('touch'), path: file }) },
  // Written with its modification time put back (`touch -r`, a tool that keeps times): only its change
  // time and perhaps its size tell.
  { weight: 1, arbitrary: fc.record({ op: fc.constant('backdate'), path: file, content }) },
  // Two files' texts exchanged by renames through a third name.
  { weight: 1, arbitrary: fc.record({ op: fc.constant('swap'), a: file, b: file }) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        op: fc.constant('cascade'),
        // None: the list page removed.
        front: fc.record(
          {
            title: fc.constant('Entradas'),
            cascade: fc.oneof(
              fc.record({ expiryDate: fc.constantFrom('2026-06-15', '2027-01-01') }),
              fc.record({ draft: fc.boolean() }),
              // A list: its blocks chosen by _target, the first block's value where two reach a page.
              fc.array(
                fc.record(
                  {
                    expirydate: fc.constantFrom('2026-06-15', '2027-01-01'),
                    draft: fc.boolean(),
                    _target: fc.record({ path: fc.constantFrom('/posts/uno*', '/posts/**', '**/dos*') }),
                  },
                  { requiredKeys: ['_target'] },
                ),
                { minLength: 1, maxLength: 2 },
              ),
            ),
            // The list page's own: dated ahead, it comes out with the pages below it on its day.
            publishDate: fc.constantFrom('2025-01-01', '2026-06-10'),
          },
          { requiredKeys: ['title'] },
        ),
      },
      { requiredKeys: ['op'] },
    ) as fc.Arbitrary<Op>,
  },
  // Past v1's sunset one time in three: it withdraws v1 only where v2 is declared.
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('clock'),
      at: fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...CLOCKS.slice(0, 3)) },
        { weight: 1, arbitrary: fc.constant(CLOCKS[3] as string) },
      ),
    }),
  },
  // The lifecycle, and the tool's schemas (its registry, as another release of it has them): a version
  // published, deprecated, withdrawn; a version recorded in versions.lock.json then dropped is refused.
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('lifecycle'),
      headers: lifecycle,
      registry: fc.oneof({ weight: 5, arbitrary: fc.constant('v2' as const) }, fc.constant('v1' as const)),
      // And the clock past v1's sunset with it, sometimes: a series seldom draws both apart.
      pastSunset: rarely(fc.constant(true), 3).map((past) => past === true),
    }),
  },
  // The output folder removed by hand, or what the builds kept (a CI run whose cache was not restored).
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('wipe'), folder: fc.constantFrom('public', '.content-index') }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('config'),
      name: fc.constantFrom('A', 'B'),
      bodies: fc.boolean(),
      orphans: fc.boolean(),
      // English the canonical language (a Hugo site whose default is English), rarely.
      english: rarely(fc.constant(true), 4).map((english) => english === true),
    }),
  },
);

/**
 * Who builds after a series: dev (its store and cache saved first, or not yet), or another process
 * (`own`: its store and cache read from the project and saved after; `cli`: the CLI's defaults, its
 * stamps trusted only a few seconds after a change).
 */
type Caller = 'dev' | 'dev-saved' | 'own' | 'cli';
const step = fc.record({
  ops: fc.array(op, { minLength: 1, maxLength: 3 }),
  caller: fc.constantFrom<Caller>('dev', 'dev', 'dev', 'dev-saved', 'own', 'cli'),
  // Another process's build with drafts (a preview): dev's never are.
  drafts: rarely(fc.constant(true), 4).map((drafts) => drafts === true),
});

/** A first tree: a few of the files. */
const start = fc.dictionary(file, content, { minKeys: 3, maxKeys: 10 });

let site: TempSite | undefined;
afterEach(() => site?.dispose());

describe('random series of changes between incremental builds', () => {
  for (const backend of ['embedded', 'd1'] as const) {
    it(`give a build from nothing's bytes after each series, or its problems (${backend})`, async () => {
      const outcomes = { built: 0, refused: 0, deprecated: 0, withdrawn: 0 };
      await fc.assert(
        fc.asyncProperty(start, fc.array(step, { minLength: 1, maxLength: 6 }), async (first, steps) => {
          await site?.dispose();
          // Translations without a Spanish file left out (a site whose pages are not all translated),
          // until a configuration change makes them an error.
          const config = {
            ...FIXTURE_CONFIG,
            mcp: { backend },
            content: { withoutCanonical: 'leave-out' },
          };
          site = await tempSite({ 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, config);
          const s = site;
          const path = (p: string) => join(s.root, p);
          // Each write its own time, a second after the one before, all in the past.
          let tick = Date.parse('2026-01-01T00:00:00Z') / 1000;
          const stamp = async (p: string) => {
            tick += 1;
            await utimes(path(p), tick, tick);
          };
          const write = async (p: string, text: string) => {
            await s.write(p, text);
            await stamp(p);
          };
          const present = new Set<string>();
          for (const [p, drawn] of Object.entries(first)) {
            await write(p, textOf(drawn, p));
            present.add(p);
          }

          let clock = new Date(CLOCKS[0] as string);
          let serializers: SerializerRegistry = SERIALIZERS;
          const base = (): BuildOptions => ({ clock: () => clock, hugo: HUGO, serializers });
          const judged = async (options: BuildOptions) => {
            const result = await sameAsCold(s, options);
            outcomes[result ? 'built' : 'refused'] += 1;
            if (!result) return;
            const { versions } = await s.readJson<{
              versions: { version: string; deprecated_at: string | null; sunset_at: string | null }[];
            }>('api/versions.json');
            const v1 = versions.find((v) => v.version === 'v1');
            const passed = (at: string | null | undefined) => at != null && Date.parse(at) <= clock.getTime();
            if (passed(v1?.sunset_at)) outcomes.withdrawn += 1;
            else if (passed(v1?.deprecated_at)) outcomes.deprecated += 1;
          };
          const kept = () => ({
            store: FragmentStore.open(s.root, { racyMs: 0 }),
            cache: ParseCache.open(s.root, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, bodies: true, racyMs: 0 }),
          });
          const dev = kept();
          await judged({ ...base(), ...dev });

          // What dev's watcher saw since dev last built, other processes' builds meanwhile included:
          // the files, and whether it names every change (a file of the content folder saved, added,
          // removed or renamed does; a list page added or removed, the configuration, does not here).
          let seen = new Set<string>();
          let onlyEdits = true;
          for (const { ops, caller, drafts } of steps) {
            for (const change of ops) {
              switch (change.op) {
                case 'write':
                  // A new file is named as dev's watcher names it ('add'): put into the last listing.
                  await write(change.path, textOf(change.content, change.path));
                  present.add(change.path);
                  seen.add(path(change.path));
                  break;
                case 'remove':
                  if (!present.has(change.path)) break;
                  await rm(path(change.path));
                  present.delete(change.path);
                  seen.add(path(change.path));
                  break;
                case 'rename': {
                  // Within its folder (another name, or another language's suffix): a project moved to
                  // posts/ would only be refused for its technologies.
                  const to = join(dirname(change.from), basename(change.to));
                  if (!present.has(change.from) || change.from === to) break;
                  await rename(path(change.from), path(to));
                  present.delete(change.from);
                  present.add(to);
                  // Both names, as the watcher tells them (the old gone, the new added).
                  seen.add(path(change.from));
                  seen.add(path(to));
                  break;
                }
                case 'touch':
                  if (!present.has(change.path)) break;
                  await stamp(change.path);
                  seen.add(path(change.path));
                  break;
                case 'backdate': {
                  if (!present.has(change.path)) break;
                  const { mtime } = await stat(path(change.path));
                  await s.write(change.path, textOf(change.content, change.path));
                  await utimes(path(change.path), mtime, mtime);
                  seen.add(path(change.path));
                  break;
                }
                case 'swap': {
                  const b = join(dirname(change.a), basename(change.b));
                  if (!present.has(change.a) || !present.has(b) || change.a === b) break;
                  await rename(path(change.a), path(`${change.a}.swap`));
                  await rename(path(b), path(change.a));
                  await rename(path(`${change.a}.swap`), path(b));
                  // Renames: the watcher sees files come and go, the temporary name too.
                  for (const name of [change.a, b, `${change.a}.swap`]) seen.add(path(name));
                  break;
                }
                case 'cascade':
                  // A list page in the content folder: saved in place, it is a save the watcher names.
                  if (change.front && present.has(CASCADE)) seen.add(path(CASCADE));
                  else onlyEdits = false;
                  if (change.front) {
                    await write(CASCADE, md(change.front, ''));
                    present.add(CASCADE);
                  } else {
                    await rm(path(CASCADE), { force: true });
                    present.delete(CASCADE);
                  }
                  break;
                case 'clock':
                  clock = new Date(change.at);
                  break;
                case 'lifecycle':
                  onlyEdits = false;
                  await write('headers.config.ts', headersOf(change.headers));
                  serializers = change.registry === 'v2' ? WITH_V2 : SERIALIZERS;
                  if (change.pastSunset) clock = new Date(CLOCKS[3] as string);
                  break;
                case 'wipe':
                  await rm(path(change.folder), { recursive: true, force: true });
                  break;
                case 'config':
                  onlyEdits = false;
                  await write(
                    'site.config.ts',
                    `export default ${JSON.stringify({
                      ...config,
                      name: change.name,
                      mcp: { backend, bodies: change.bodies },
                      content: change.orphans ? {} : config.content,
                      ...(change.english && { canonicalLanguage: 'en' }),
                    })};\n`,
                  );
                  break;
              }
            }
            if (caller === 'cli') {
              await judged({ ...base(), drafts });
              continue;
            }
            if (caller === 'own') {
              const own = kept();
              await judged({ ...base(), ...own, drafts });
              await own.store.save();
              await own.cache.save();
              continue;
            }
            if (caller === 'dev-saved') {
              await dev.store.save();
              await dev.cache.save();
            }
            await judged({ ...base(), ...dev, ...(onlyEdits && seen.size > 0 && { changed: seen }) });
            seen = new Set();
            onlyEdits = true;
          }
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          endOnFailure: process.env.INCREMENTAL_SHRINK === undefined,
          ...(PATH && { path: PATH }),
        },
      );
      // Neither kind of outcome is vacuous: the series build, and some are refused.
      expect(outcomes.built).toBeGreaterThan(outcomes.refused);
      // And the lifecycle moves: v1 deprecated by v2, then withdrawn at its sunset.
      if (!PATH)
        for (const kind of ['refused', 'deprecated', 'withdrawn'] as const)
          expect(outcomes[kind], `${kind} in ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
    });
  }
});
