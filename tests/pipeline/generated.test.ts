import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblems, isContentIndexError } from '../../build/core/errors.ts';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// `generated` says when the published content last changed (build/core/content/generated.ts); the build's
// clock only decides what is published. The served side of this (same ETags an hour later) is in
// tests/serve-lifecycle.test.ts.

const run = promisify(execFile);
const FILES = {
  'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }),
  'content/posts/hola.en.md': md({ title: 'Hello', slug: 'hello', date: '2026-02-01T08:00:00Z' }),
};
const CLOCK = new Date('2026-06-01T12:00:00Z');

let site: TempSite | undefined;
afterEach(() => site?.dispose());

async function generated(s: TempSite, options: Parameters<typeof build>[0] = {}): Promise<string> {
  await build({ root: s.root, clock: () => CLOCK, ...options });
  return (await s.readJson<ContentIndexV1>('api/v1/content.json')).generated;
}

async function git(s: TempSite, date: string, ...args: string[]): Promise<void> {
  await run('git', args, {
    cwd: s.root,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Autora',
      GIT_AUTHOR_EMAIL: 'autora@example.com',
      GIT_COMMITTER_NAME: 'Autora',
      GIT_COMMITTER_EMAIL: 'autora@example.com',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  });
}

async function commit(s: TempSite, date: string, message: string): Promise<void> {
  await git(s, date, 'add', '-A');
  await git(s, date, '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', message);
}

describe('generated', () => {
  it('outside git: the newest published date of any language, whatever the clock', async () => {
    site = await tempSite(FILES);
    expect(await generated(site)).toBe('2026-02-01T08:00:00Z'); // the English file's date
    expect(await generated(site, { clock: () => new Date('2027-01-01T00:00:00Z') })).toBe(
      '2026-02-01T08:00:00Z',
    );
  });

  it('moves when a future-dated translation comes due, and never past the clock', async () => {
    site = await tempSite({
      ...FILES,
      'content/posts/hola.pt-br.md': md({ title: 'Olá', slug: 'ola', date: '2026-07-01T00:00:00Z' }),
    });
    expect(await generated(site)).toBe('2026-02-01T08:00:00Z'); // the pt-br file is not out yet
    expect(await generated(site, { clock: () => new Date('2026-07-01T00:00:00Z') })).toBe(
      '2026-07-01T00:00:00Z',
    );
    // Including future items on purpose: `generated` still never claims the future.
    expect(await generated(site, { future: true })).toBe('2026-06-01T12:00:00Z');
  });

  it('in a git checkout: the last commit that touched the content or the configuration', async () => {
    site = await tempSite(FILES);
    await git(site, '2026-03-01T10:00:00Z', 'init', '-q');
    await commit(site, '2026-03-01T10:00:00Z', 'first posts');
    expect(await generated(site)).toBe('2026-03-01T10:00:00Z');
    // A later commit elsewhere in the repository does not move it…
    await site.write('README.md', 'Notas.\n');
    await commit(site, '2026-04-01T10:00:00Z', 'notes');
    expect(await generated(site)).toBe('2026-03-01T10:00:00Z');
    // …a typo fixed in a post does, though no date in the content changed.
    await site.write('content/posts/hola.es.md', md({ title: 'Hola, mundo', date: '2026-01-01' }));
    await commit(site, '2026-05-01T10:00:00Z', 'typo');
    expect(await generated(site)).toBe('2026-05-01T10:00:00Z');
    // …and so does the configuration.
    await site.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...FIXTURE_CONFIG, name: 'Otro' })};\n`,
    );
    await commit(site, '2026-05-15T10:00:00Z', 'rename');
    expect(await generated(site)).toBe('2026-05-15T10:00:00Z');
  });

  it('asks git again only once HEAD has moved (dev builds at every save)', async () => {
    site = await tempSite(FILES);
    const s = site;
    await git(s, '2026-03-01T10:00:00Z', 'init', '-q');
    await commit(s, '2026-03-01T10:00:00Z', 'first posts');
    expect(await generated(s)).toBe('2026-03-01T10:00:00Z');
    const path = process.env.PATH;
    const withoutGit = async () => {
      process.env.PATH = '';
      try {
        return await generated(s);
      } finally {
        process.env.PATH = path;
      }
    };
    // Git cannot be started, and is not needed: nothing was committed since.
    await s.write('content/posts/hola.es.md', md({ title: 'Hola de nuevo', date: '2026-01-01' }));
    expect(await withoutGit()).toBe('2026-03-01T10:00:00Z');
    // A commit moves HEAD: git is asked again (here it cannot answer, so the content's dates stand).
    await commit(s, '2026-04-01T10:00:00Z', 'edit');
    expect(await withoutGit()).toBe('2026-02-01T08:00:00Z');
    expect(await generated(s)).toBe('2026-04-01T10:00:00Z');
  });

  it('takes SOURCE_DATE_EPOCH when it is the newest, and refuses a malformed one', async () => {
    site = await tempSite(FILES);
    const epoch = String(Date.parse('2026-05-20T00:00:00Z') / 1000);
    expect(await generated(site, { env: { SOURCE_DATE_EPOCH: epoch } })).toBe('2026-05-20T00:00:00Z');
    const old = String(Date.parse('2020-01-01T00:00:00Z') / 1000);
    expect(await generated(site, { env: { SOURCE_DATE_EPOCH: old } })).toBe('2026-02-01T08:00:00Z');
    const error = await build({
      root: site.root,
      clock: () => CLOCK,
      env: { SOURCE_DATE_EPOCH: '2026-05-20' },
    }).catch((e: unknown) => e);
    expect(isContentIndexError(error) && formatProblems(error.problems)).toBe(
      [
        'environment variable SOURCE_DATE_EPOCH: must be a whole number of seconds since 1970-01-01T00:00:00Z, got "2026-05-20"',
        '  hint: e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct), or unset it',
      ].join('\n'),
    );
  });
});
