import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblems } from '../../build/core/errors.ts';
import { build, isContentIndexError } from '../../build/index.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// Point 1 of the lifecycle promise: a version that was ever published cannot disappear. The site's own
// record of what it published, versions.lock.json, is written by the build into the site's repository.

const clock = () => new Date('2026-11-22T12:00:00Z');
const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }) };
const BOTH = {
  v1: { published: '2025-01-15', sunset: '2027-11-01' },
  v2: { published: '2026-11-01' },
};

const config = (versions: object) => `export default ${JSON.stringify({ versions })};\n`;

let site: TempSite;
afterEach(() => site?.dispose());

async function record(): Promise<string> {
  return readFile(join(site.root, 'versions.lock.json'), 'utf8');
}

async function refusal(versions: object): Promise<string> {
  await site.write('headers.config.ts', config(versions));
  const error = await build({ root: site.root, clock, serializers: WITH_V2 }).catch((e: unknown) => e);
  expect(isContentIndexError(error), String(error)).toBe(true);
  return isContentIndexError(error) ? formatProblems(error.problems) : '';
}

describe('versions.lock.json', () => {
  it('is written by the first build with every published version, in stable bytes, and only then', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config(BOTH) });
    const first = await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(first.recorded).toEqual(['v1', 'v2']);
    const text = await record();
    expect(JSON.parse(text)).toEqual({
      $comment: expect.stringContaining('rule published-version-kept'),
      versions: {
        v1: { published_at: '2025-01-15T00:00:00Z' },
        v2: { published_at: '2026-11-01T00:00:00Z' },
      },
    });
    const again = await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(again.recorded).toEqual([]);
    expect(await record()).toBe(text);
  });

  it('records a scheduled version only once a build publishes it; a dry run names it and writes nothing', async () => {
    site = await tempSite({
      ...FILES,
      'headers.config.ts': config({
        v1: { published: '2025-01-15', sunset: '2028-01-01' },
        v2: { published: '2027-01-01' },
      }),
    });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(Object.keys(JSON.parse(await record()).versions)).toEqual(['v1']);
    const release = () => new Date('2027-01-01T00:00:00Z');
    const dry = await build({ root: site.root, clock: release, serializers: WITH_V2, dryRun: true });
    expect(dry.recorded).toEqual(['v2']);
    expect(Object.keys(JSON.parse(await record()).versions)).toEqual(['v1']);
    await build({ root: site.root, clock: release, serializers: WITH_V2 });
    expect(Object.keys(JSON.parse(await record()).versions)).toEqual(['v1', 'v2']);
  });

  it('v1 dropped from headers.config.ts after v2 is published: the build refuses, naming the rule and v1, and writes nothing', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config(BOTH) });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    const before = await site.snapshot();
    const lock = await record();
    expect(await refusal({ v2: { published: '2026-11-01' } })).toBe(
      [
        'headers.config.ts: versions.v1: v1 was published (versions.lock.json records it) and is missing from headers.config.ts, so its routes would answer 404 instead of its deprecation or 410 Gone (rule: published-version-kept)',
        '  hint: keep v1 in headers.config.ts for good, with its publication date (2025-01-15T00:00:00Z) and, once superseded, its sunset: a withdrawn version answers 410 Gone. Only if v1 was never deployed, delete its entry from versions.lock.json by hand',
      ].join('\n'),
    );
    expect(await site.snapshot()).toEqual(before);
    expect(await record()).toBe(lock);
  });

  it('long after its sunset too: a withdrawn version stays declared, and keeps its place in the manifest (410)', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config(BOTH) });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    const later = () => new Date('2035-01-01T00:00:00Z');
    await site.write('headers.config.ts', config({ v2: { published: '2026-11-01' } }));
    const error = await build({ root: site.root, clock: later, serializers: WITH_V2 }).catch((e) => e);
    expect(isContentIndexError(error) && error.problems.map((p) => p.field)).toEqual(['versions.v1']);
    await site.write('headers.config.ts', config(BOTH));
    await build({ root: site.root, clock: later, serializers: WITH_V2 });
    expect(await site.readJson('api/versions.json')).toMatchObject({
      versions: [{ version: 'v1', sunset_at: '2027-11-01T00:00:00Z' }, { version: 'v2' }],
    });
  });

  it('refuses a published version re-dated after the build time, which would make it disappear', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config(BOTH) });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    const message = await refusal({
      v1: { published: '2025-01-15', sunset: '2028-07-01' },
      v2: { published: '2027-06-01' },
    });
    expect(message).toContain(
      'headers.config.ts: versions.v2.published: v2 was published (versions.lock.json records it) and is now dated 2027-06-01T00:00:00Z, after the build time 2026-11-22T12:00:00Z, so it would disappear until then (rule: published-version-kept)',
    );
  });

  it('refuses a published version re-dated to another past date, earlier or later (rule published-date-kept)', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config(BOTH) });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    const before = await site.snapshot();
    const lock = await record();
    expect(await refusal({ ...BOTH, v1: { published: '2026-06-01', sunset: '2027-11-01' } })).toBe(
      [
        'headers.config.ts: versions.v1.published: v1 was published on 2025-01-15T00:00:00Z (versions.lock.json records it) and is now dated 2026-06-01T00:00:00Z; clients were given 2025-01-15T00:00:00Z (rule: published-date-kept)',
        "  hint: set v1's published back to '2025-01-15' in headers.config.ts: a publication date clients have seen is kept. Only if v1 was never deployed, delete its entry from versions.lock.json by hand",
      ].join('\n'),
    );
    expect(await refusal({ ...BOTH, v2: { published: '2026-10-01T09:30:00+02:00' } })).toContain(
      'versions.v2.published: v2 was published on 2026-11-01T00:00:00Z (versions.lock.json records it) and is now dated 2026-10-01T07:30:00Z',
    );
    expect(await site.snapshot()).toEqual(before);
    expect(await record()).toBe(lock);
  });

  it('through the CLI: exit 1, the problem, no stack trace', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': config({ v1: { published: '2025-01-15' } }) });
    expect((await site.cli('build')).stdout).toContain(
      '✓ recorded v1 in versions.lock.json as published: commit it',
    );
    await site.write(
      'versions.lock.json',
      JSON.stringify({ versions: { v3: { published_at: '2024-01-01' } } }),
    );
    const result = await site.cli('check');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'headers.config.ts: versions.v3: v3 was published (versions.lock.json records it) and is missing from headers.config.ts',
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('a record that is not one is an error that says how to restore it', async () => {
    site = await tempSite(FILES);
    await site.write('versions.lock.json', '{ "versions": ["v1"] }');
    const result = await site.cli('check');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('versions.lock.json: is not a record of published versions');
    expect(result.stderr).toContain('git checkout -- versions.lock.json');
  });

  it('the repository’s own record lists v1, and building the sample site leaves it byte for byte', async () => {
    const path = join(PROJECT_ROOT, 'versions.lock.json');
    const text = await readFile(path, 'utf8');
    expect(Object.keys(JSON.parse(text).versions)).toEqual(['v1']);
    site = await tempSite(FILES);
    const result = await build({ root: PROJECT_ROOT, out: site.out });
    expect(result.recorded).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe(text);
  });
});
