import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatProblems } from '../build/core/errors.ts';
import { SERIALIZERS, type SerializerRegistry } from '../build/core/serializers/registry.ts';
import { serializeV1 } from '../build/core/serializers/v1.ts';
import { type BuildOptions, build, isContentIndexError, type LiveSite } from '../build/index.ts';
import { fetchLive } from '../build/stages/fetch-live.ts';
import { WITH_V2 } from './fixtures/v2/serializer.ts';
import { freePort, type PagesDev, startPagesDev, startProjectPagesDev } from './helpers/pages-dev.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, type TempSite, tempSite } from './helpers/site.ts';

// "The live site is the ledger." Each live site below is an earlier build served by `wrangler pages dev`
// on a loopback port; the checks read it with the real fetch, as `check --live` and `deploy` do.

const BUILT = new Date('2026-11-22T12:00:00Z');
const LATER = new Date('2026-12-15T00:00:00Z');
const FILES = {
  'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01', image: 'posts/hola.png' }),
  'content/posts/hola.en.md': md({ title: 'Hello', slug: 'hello' }),
  'content/projects/motor.es.md': md({ title: 'Motor', technologies: ['Rust'] }),
};
/** v2 published on 2026-11-01 by the configuration, but first deployed on BUILT's day. */
const V2_LIFECYCLE = {
  v1: { published: '2025-01-15', sunset: '2027-12-01' },
  v2: { published: '2026-11-01' },
};
const config = (versions: object) => `export default ${JSON.stringify({ versions })};\n`;
const clockArgs = (now: Date) => ['--binding', `CONTENT_INDEX_TEST_NOW=${now.toISOString()}`];
const seconds = (iso: string) => `@${Date.parse(iso) / 1000}`;

const cleanups: (() => Promise<void>)[] = [];
async function site(files: Record<string, string>, siteConfig = FIXTURE_CONFIG): Promise<TempSite> {
  const made = await tempSite(files, siteConfig);
  cleanups.push(() => made.dispose());
  return made;
}
/** A built temporary site (its own Functions and MCP data), or with `plain`, a static folder alone. */
async function serve(dir: string, args: string[], root: string, plain = false): Promise<PagesDev> {
  const server = plain ? await startPagesDev(dir, args, root) : await startProjectPagesDev(dir, args, root);
  cleanups.push(() => server.stop());
  return server;
}

/** v1 only, current: the site before v2. */
let liveV1: PagesDev;
/** v1 deprecated (first published on BUILT), v2 current; its Function's clock is LATER. */
let liveV2: PagesDev;
/** A plain static site with no API yet: /api/versions.json is a 404. */
let nothingLive: PagesDev;
/** A static site with no 404.html: Pages answers every unknown path with its home page (200 text/html). */
let homeForAnyPath: PagesDev;

beforeAll(async () => {
  const before = await site(FILES);
  await build({ root: before.root, clock: () => BUILT });
  const plain = await mkdtemp(join(tmpdir(), 'content-index-plain-'));
  cleanups.push(() => rm(plain, { recursive: true, force: true }));
  await writeFile(join(plain, 'index.html'), '<!doctype html><title>Home</title>');
  await writeFile(join(plain, '404.html'), '<!doctype html><title>Not found</title>');
  // Under /broken/, a site whose /api/versions.json is JSON but no versions manifest.
  await mkdir(join(plain, 'broken/api'), { recursive: true });
  await writeFile(join(plain, 'broken/api/versions.json'), '{ "versions": "v1" }');
  const spa = await mkdtemp(join(tmpdir(), 'content-index-spa-'));
  cleanups.push(() => rm(spa, { recursive: true, force: true }));
  await writeFile(
    join(spa, 'index.html'),
    '<!doctype html><title>Una aplicación</title><div id="app"></div>',
  );
  [liveV1, nothingLive, homeForAnyPath] = await Promise.all([
    serve(before.out, clockArgs(BUILT), before.root),
    serve(plain, [], plain, true),
    serve(spa, [], spa, true),
  ]);

  // The release deploy of v2, checked against liveV1 as `npm run deploy` does.
  const release = await site({ ...FILES, 'headers.config.ts': config(V2_LIFECYCLE) });
  await build({
    root: release.root,
    clock: () => BUILT,
    serializers: WITH_V2,
    live: await fetchLive(liveV1.url),
  });
  liveV2 = await serve(release.out, clockArgs(LATER), release.root);
}, 180_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `check --live`, programmatically: the fixture v2 serializer is registered only here. */
async function checkAgainst(
  server: PagesDev,
  versions: object,
  options: Partial<BuildOptions> & { now: Date },
): Promise<{ problems: string; files: Map<string, string> }> {
  const project = await site({ ...FILES, 'headers.config.ts': config(versions) });
  const live: LiveSite = await fetchLive(server.url);
  try {
    const result = await build({
      root: project.root,
      clock: () => options.now,
      serializers: options.serializers ?? WITH_V2,
      dryRun: true,
      live,
      ...(options.allowDroppedFields && { allowDroppedFields: options.allowDroppedFields }),
    });
    return { problems: '', files: new Map(result.files.map((f) => [f.path, f.content])) };
  } catch (error) {
    if (!isContentIndexError(error)) throw error;
    return { problems: formatProblems(error.problems), files: new Map() };
  }
}

describe('the live site records when each deprecation was first published', () => {
  it('the release deploy announced v1’s deprecation on the day clients first saw it, not the configured date', async () => {
    const manifest = await (await fetch(`${liveV2.url}/api/versions.json`)).json();
    expect(manifest.versions).toMatchObject([
      { version: 'v1', deprecated_at: '2026-11-22T00:00:00Z', sunset_at: '2027-12-01T00:00:00Z' },
      { version: 'v2', deprecated_at: null },
    ]);
    const v1 = await fetch(`${liveV2.url}/api/v1/content.json`);
    expect(v1.status).toBe(200);
    expect(v1.headers.get('deprecation')).toBe(seconds('2026-11-22T00:00:00Z'));
    expect((await v1.json()).versions.deprecation.deprecated_at).toBe('2026-11-22T00:00:00Z');
  });

  it('the next deploy carries that day forward; without the live site the configured date is all there is', async () => {
    const { problems, files } = await checkAgainst(liveV2, V2_LIFECYCLE, { now: LATER });
    expect(problems).toBe('');
    const manifest = JSON.parse(files.get('api/versions.json') ?? '{}');
    expect(manifest.versions[0].deprecated_at).toBe('2026-11-22T00:00:00Z');
    expect(files.get('_headers')).toContain(`  Deprecation: ${seconds('2026-11-22T00:00:00Z')}\n`);

    const offline = await site({ ...FILES, 'headers.config.ts': config(V2_LIFECYCLE) });
    await build({ root: offline.root, clock: () => LATER, serializers: WITH_V2 });
    expect(
      (await offline.readJson<{ versions: { deprecated_at: string }[] }>('api/versions.json')).versions[0],
    ).toMatchObject({ deprecated_at: '2026-11-01T00:00:00Z' });
  });
});

describe('check --live refuses a configuration that breaks a live promise', () => {
  it('backdated v2 with v1’s sunset passed: current straight to withdrawn in one deploy', async () => {
    const { problems } = await checkAgainst(
      liveV1,
      { v1: { published: '2025-01-15', sunset: '2026-06-01' }, v2: { published: '2025-06-01' } },
      { now: BUILT },
    );
    expect(problems).toBe(
      [
        `headers.config.ts: versions.v1.sunset: v1 is current on the live site (${liveV1.url}/api/versions.json) and its sunset 2026-06-01T00:00:00Z has passed, so this deploy would take it from current straight to withdrawn (410 Gone); a version is deprecated for at least 12 months first (rule: deprecated-before-withdrawn)`,
        "  hint: set v1's sunset on or after 2027-11-22T00:00:00Z (12 months after the day of this deploy, which first publishes its deprecation)",
      ].join('\n'),
    );
  });

  it('backdated v2: the 12 months count from this deploy, which first publishes the deprecation', async () => {
    const backdated = {
      v1: { published: '2025-01-15', sunset: '2027-06-01' },
      v2: { published: '2026-06-01' },
    };
    const { problems } = await checkAgainst(liveV1, backdated, { now: BUILT });
    expect(problems).toBe(
      [
        `headers.config.ts: versions.v1.sunset: v1's sunset 2027-06-01T00:00:00Z is earlier than 12 months after the day of this deploy, which first publishes its deprecation (2026-11-22T00:00:00Z): the live site (${liveV1.url}/api/versions.json) serves v1 as current (rule: sunset-min-12-months)`,
        "  hint: set v1's sunset on or after 2027-11-22T00:00:00Z",
      ].join('\n'),
    );
    // The same configuration passes the build alone: only the live site knows v1 was never deprecated.
    const offline = await site({ ...FILES, 'headers.config.ts': config(backdated) });
    await build({ root: offline.root, clock: () => BUILT, serializers: WITH_V2, dryRun: true });

    // Long enough from today, it passes, and Deprecation announces today, not 2026-06-01.
    const { problems: none, files } = await checkAgainst(
      liveV1,
      { ...backdated, v1: { published: '2025-01-15', sunset: '2027-11-22' } },
      { now: BUILT },
    );
    expect(none).toBe('');
    expect(files.get('_headers')).toContain(`  Deprecation: ${seconds('2026-11-22T00:00:00Z')}\n`);
  });

  it('a live sunset moved earlier, even when still 12 months after the deprecation', async () => {
    const { problems } = await checkAgainst(
      liveV2,
      { ...V2_LIFECYCLE, v1: { published: '2025-01-15', sunset: '2027-11-25' } },
      { now: LATER },
    );
    expect(problems).toBe(
      [
        `headers.config.ts: versions.v1.sunset: v1's sunset 2027-11-25T00:00:00Z is earlier than the one the live site announces (2027-12-01T00:00:00Z, ${liveV2.url}/api/versions.json); clients were told 2027-12-01T00:00:00Z (rule: sunset-not-earlier)`,
        "  hint: keep v1's sunset on or after 2027-12-01T00:00:00Z: a sunset may move later, never earlier",
      ].join('\n'),
    );
  });

  it('a sunset earlier than 12 months after the day the live site first published the deprecation', async () => {
    // 2027-11-15 is 12 months after v2's configured date (2026-11-01), not after the live announcement.
    const { problems } = await checkAgainst(
      liveV2,
      { ...V2_LIFECYCLE, v1: { published: '2025-01-15', sunset: '2027-11-15' } },
      { now: LATER },
    );
    expect(problems).toContain(
      [
        `headers.config.ts: versions.v1.sunset: v1's sunset 2027-11-15T00:00:00Z is earlier than 12 months after the live site first published its deprecation (2026-11-22T00:00:00Z, ${liveV2.url}/api/versions.json) (rule: sunset-min-12-months)`,
        "  hint: set v1's sunset on or after 2027-11-22T00:00:00Z",
      ].join('\n'),
    );
    expect(problems).toContain('(rule: sunset-not-earlier)');
  });

  it('v1 dropped from the configuration after v2 is published (with no record in the repository)', async () => {
    const { problems } = await checkAgainst(liveV2, { v2: { published: '2026-11-01' } }, { now: LATER });
    expect(problems).toBe(
      [
        `headers.config.ts: versions.v1: v1 is published on the live site (${liveV2.url}/api/versions.json lists it) and is missing from headers.config.ts, so its routes would answer 404 instead of its deprecation or 410 Gone (rule: published-version-kept)`,
        '  hint: keep v1 in headers.config.ts for good: published 2025-01-15T00:00:00Z, sunset 2027-12-01T00:00:00Z',
      ].join('\n'),
    );
  });

  it('a live version’s publication date rewritten (rule published-date-kept), through the API and check --live', async () => {
    const { problems } = await checkAgainst(liveV1, { v1: { published: '2026-06-01' } }, { now: BUILT });
    expect(problems).toBe(
      [
        `headers.config.ts: versions.v1.published: v1 is published on the live site since 2025-01-15T00:00:00Z (${liveV1.url}/api/versions.json) and is now dated 2026-06-01T00:00:00Z; clients were given 2025-01-15T00:00:00Z (rule: published-date-kept)`,
        "  hint: set v1's published back to '2025-01-15' in headers.config.ts: a publication date clients have seen is kept",
      ].join('\n'),
    );
    const project = await site({
      ...FILES,
      'headers.config.ts': config({ v1: { published: '2026-06-01' } }),
    });
    const result = await cli(project, 'check', '--live', liveV1.url);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'versions.v1.published: v1 is published on the live site since 2025-01-15T00:00:00Z',
    );
    expect(result.stdout).not.toContain('keeps every promise');
  });

  it('a serializer that stops emitting optional fields the live items carry, though the schema still lists them', async () => {
    const dropping: SerializerRegistry = {
      ...WITH_V2,
      v1: {
        ...(SERIALIZERS.v1 as NonNullable<(typeof SERIALIZERS)['v1']>),
        serialize: (model, ctx) => {
          const body = serializeV1(model, ctx);
          for (const item of body.content) {
            delete item.image;
            delete item.url_en;
          }
          return body;
        },
      },
    };
    const { problems } = await checkAgainst(liveV2, V2_LIFECYCLE, { now: LATER, serializers: dropping });
    const hint = (field: string) =>
      `  hint: restore it in v1's serializer: an incompatible change is a new version. If the content itself no longer has it (the items that had it were removed or lost it), accept it for this deploy with --allow-dropped-field ${field}`;
    expect(problems).toBe(
      [
        `${liveV2.url}/api/v1/content.json: content[].image: the live v1 has it on 1 of its 2 items; this build would publish it on none; a published version never loses a field (rule: fields-kept)`,
        hint('content[].image'),
        `${liveV2.url}/api/v1/content.json: content[].url_en: the live v1 has it on 1 of its 2 items; this build would publish it on none; a published version never loses a field (rule: fields-kept)`,
        hint('content[].url_en'),
      ].join('\n'),
    );
    const accepted = await checkAgainst(liveV2, V2_LIFECYCLE, {
      now: LATER,
      serializers: dropping,
      allowDroppedFields: ['content[].image', 'content[].url_en'],
    });
    expect(accepted.problems).toBe('');
  });
});

const run = promisify(execFile);
const CREDENTIALS = { CLOUDFLARE_API_TOKEN: 'token', CLOUDFLARE_ACCOUNT_ID: 'account' };

/** The installed bin in a child process, with the real clock and no Cloudflare access. */
async function cli(project: TempSite, ...args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDFLARE_')));
  try {
    const r = await run(process.execPath, [join(PROJECT_ROOT, 'bin/content-index.js'), ...args], {
      cwd: project.root,
      env: { ...clean, ...CREDENTIALS, NO_COLOR: '1' },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}
/** wrangler pages deploy was reached with the built folder: it fails only for want of Cloudflare. */
const REACHED_WRANGLER = /api\.cloudflare\.com|Cloudflare's API/;
/** The same content as liveV1's, but the post lost its image. */
const WITHOUT_IMAGE = {
  ...FILES,
  'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }),
};

describe('content-index check --live <url> and npm run deploy', () => {
  it('check --live: the refusal, exit 1; with --allow-dropped-field the check passes', async () => {
    const project = await site(WITHOUT_IMAGE);
    const refused = await cli(project, 'check', '--live', liveV1.url);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`✓ live site ${liveV1.url}/: v1 current`);
    expect(refused.stderr).toContain(
      `${liveV1.url}/api/v1/content.json: content[].image: the live v1 has it on 1 of its 2 items; this build would publish it on none`,
    );
    const accepted = await cli(
      project,
      'check',
      '--live',
      liveV1.url,
      '--allow-dropped-field',
      'content[].image',
    );
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('✓ keeps every promise of the live site');
  });

  it('check --live with no address reads site in site.config.ts; a 404 there is a first deploy, which passes', async () => {
    expect((await fetch(`${nothingLive.url}/api/versions.json`)).status).toBe(404);
    const project = await site(FILES, { ...FIXTURE_CONFIG, site: `${nothingLive.url}/` });
    const result = await cli(project, 'check', '--live');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `✓ live site ${nothingLive.url}/: nothing is published at ${nothingLive.url}/api/versions.json yet (a first deploy)`,
    );
  });

  it('deploy stops before building when the check fails, with the message, and deploys nothing', async () => {
    const project = await site(WITHOUT_IMAGE);
    const result = await cli(project, 'deploy', '--project-name', 'test', '--live', liveV1.url);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content[].image: the live v1 has it on 1 of its 2 items');
    expect(result.stderr).toContain('; nothing was deployed.');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(REACHED_WRANGLER);
    await expect(access(project.out)).rejects.toThrow(); // the output folder was never written
  });

  it('deploy to a new site: nothing live yet, the check passes and wrangler is reached', async () => {
    const project = await site(FILES);
    const result = await cli(project, 'deploy', '--project-name', 'test', '--live', nothingLive.url);
    expect(result.stdout).toContain('(a first deploy)');
    expect(result.stdout).toContain('✓ built 2 items into');
    expect(`${result.stdout}${result.stderr}`).toMatch(REACHED_WRANGLER);
  });

  it('a live site that serves something else at /api/versions.json is no first deploy: the check stops', async () => {
    const error = await fetchLive(`${nothingLive.url}/broken/`).catch((e: unknown) => e);
    expect(isContentIndexError(error) && formatProblems(error.problems)).toBe(
      [
        `${nothingLive.url}/broken/api/versions.json: is not a versions manifest; nothing could be checked against the live site`,
        '  hint: check the address and that the site is up, then run the check again',
      ].join('\n'),
    );
  });

  it('deploy when the live site is unreachable: stops, unless --skip-live-check, which says what was skipped', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const project = await site(FILES, { ...FIXTURE_CONFIG, site: closed });
    const stopped = await cli(project, 'deploy', '--project-name', 'test');
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(
      `${closed}api/versions.json: could not be fetched (ECONNREFUSED: nothing answers at that address); nothing could be checked against the live site`,
    );
    expect(stopped.stderr).toContain('to deploy without this check, pass --skip-live-check');
    expect(stopped.stderr).toContain('; nothing was deployed.');
    await expect(access(project.out)).rejects.toThrow();

    const skipped = await cli(project, 'deploy', '--project-name', 'test', '--skip-live-check');
    expect(skipped.stderr).toContain(
      `warning: live check skipped (--skip-live-check): ${closed} was not read, so nothing checked that this deploy keeps every live version and its publication date, never moves a live sunset earlier, keeps each deprecation 12 months from the day the live site first published it, and drops no field from live items`,
    );
    expect(skipped.stdout).toContain('✓ built 2 items into');
    expect(`${skipped.stdout}${skipped.stderr}`).toMatch(REACHED_WRANGLER);
    expect(JSON.parse(await readFile(join(project.out, 'api/versions.json'), 'utf8')).current).toBe('v1');
  });
});

/** A small HTTP server for what stands in front of a site (a login redirect, a maintenance page). */
async function httpServer(handler: RequestListener): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
const html = (body: string) => (_req: unknown, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};
const problemOf = async (address: string) => {
  const error = await fetchLive(address).catch((e: unknown) => e);
  return isContentIndexError(error) ? formatProblems(error.problems) : String(error);
};

describe('what answers at /api/versions.json when no manifest does', () => {
  it('the home page for every unknown path (Pages without a 404.html) is a first deploy', async () => {
    const answer = await fetch(`${homeForAnyPath.url}/api/versions.json`);
    expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    await answer.body?.cancel();
    expect((await fetchLive(homeForAnyPath.url)).manifest).toBeNull();
    const sameEverywhere = await httpServer(html('<!doctype html><title>Inicio</title>'));
    expect((await fetchLive(sameEverywhere.url)).manifest).toBeNull();
  });

  it('another HTML page there (maintenance, an error page) stops the check', async () => {
    const maintenance = await httpServer((req, res) =>
      html(req.url === '/' ? '<title>Inicio</title>' : '<title>En mantenimiento</title>')(req, res),
    );
    expect(await problemOf(maintenance.url)).toBe(
      [
        `${maintenance.url}/api/versions.json: answered an HTML page (200 text/html) other than the site’s own page for unknown paths (its home page): a login, maintenance or error page may stand in front of the site; nothing could be checked against the live site`,
        '  hint: check the address and that the site is up, then run the check again',
      ].join('\n'),
    );
  });

  it('a redirect to another origin (an Access login) is not followed and stops the check; one within the origin is followed', async () => {
    const login = await httpServer(html('<title>Sign in</title>'));
    const guarded = await httpServer((_req, res) => {
      res.writeHead(302, {
        location: `${login.url}/cdn-cgi/access/login?redirect_url=%2Fapi%2Fversions.json`,
      });
      res.end();
    });
    expect(await problemOf(guarded.url)).toBe(
      [
        `${guarded.url}/api/versions.json: redirects (302) to ${login.url}, another origin, which is not followed: a login, maintenance or other host stands in front of the site; nothing could be checked against the live site`,
        '  hint: check the address and that the site is up, then run the check again',
      ].join('\n'),
    );
    expect(login.requests).toEqual([]);

    const manifest = await (await fetch(`${liveV1.url}/api/versions.json`)).text();
    const index = await (await fetch(`${liveV1.url}/api/v1/content.json`)).text();
    const moved = await httpServer((req, res) => {
      if (req.url === '/api/versions.json') {
        res.writeHead(301, { location: '/nuevo/api/versions.json' });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url === '/nuevo/api/versions.json' ? manifest : index);
      }
    });
    const live = await fetchLive(moved.url);
    expect(live.manifest?.versions.map((v) => v.version)).toEqual(['v1']);
    expect(moved.requests).toEqual([
      '/api/versions.json',
      '/nuevo/api/versions.json',
      '/api/v1/content.json',
    ]);
  });

  it('deploy stops at a login redirect, unless --skip-live-check, which says what was skipped', async () => {
    const login = await httpServer(html('<title>Sign in</title>'));
    const guarded = await httpServer((_req, res) => {
      res.writeHead(302, { location: `${login.url}/login` });
      res.end();
    });
    const project = await site(FILES, { ...FIXTURE_CONFIG, site: `${guarded.url}/` });
    const stopped = await cli(project, 'deploy', '--project-name', 'test');
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(
      `${guarded.url}/api/versions.json: redirects (302) to ${login.url}, another origin, which is not followed`,
    );
    expect(stopped.stderr).toContain('to deploy without this check, pass --skip-live-check');
    expect(`${stopped.stdout}${stopped.stderr}`).not.toMatch(REACHED_WRANGLER);
    await expect(access(project.out)).rejects.toThrow();

    const skipped = await cli(project, 'deploy', '--project-name', 'test', '--skip-live-check');
    expect(skipped.stderr).toContain(
      `warning: live check skipped (--skip-live-check): ${guarded.url}/ was not read`,
    );
    expect(`${skipped.stdout}${skipped.stderr}`).toMatch(REACHED_WRANGLER);
  });
});
