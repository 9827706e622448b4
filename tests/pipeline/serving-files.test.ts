import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblems } from '../../build/core/errors.ts';
import { PAGES_LIMITS } from '../../build/core/output/cloudflare-limits.ts';
import { renderRoutesFile } from '../../build/core/output/routes-file.ts';
import { build, isContentIndexError } from '../../build/index.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const clock = () => new Date('2026-11-22T12:00:00Z');
const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }) };
const V2_LIFECYCLE =
  'export default { versions: { v1: { published: "2025-01-15", sunset: "2027-11-01", documentation: "/docs/v2/" }, v2: { published: "2026-11-01" } } };\n';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const text = (s: TempSite, path: string) => readFile(join(s.out, path), 'utf8');

/** Counted the way Cloudflare does: a line opening with `/` or `scheme://` starts a rule. */
function headerRules(headers: string): number {
  return headers.split('\n').filter((l) => /^([^\s]+:\/\/|\/)/.test(l.trim())).length;
}

function longestLine(content: string): number {
  return Math.max(...content.split('\n').map((l) => l.length));
}

describe('generated _headers, _routes.json and _redirects', () => {
  it('with only v1: the API headers, no deprecation headers, and v1 kept static', async () => {
    site = await tempSite(FILES);
    await build({ root: site.root, clock });
    const headers = await text(site, '_headers');
    expect(headers).toContain(
      [
        '/api/*',
        '  ! Content-Type',
        '  ! Access-Control-Allow-Origin',
        '  ! Access-Control-Expose-Headers',
        '  ! X-Content-Type-Options',
        '  ! Cache-Control',
        '  Content-Type: application/json; charset=utf-8',
        '  Access-Control-Allow-Origin: *',
        '  Access-Control-Expose-Headers: ETag, Deprecation, Sunset, Link',
        '  X-Content-Type-Options: nosniff',
        '  Cache-Control: public, max-age=300, stale-while-revalidate=3600',
      ].join('\n'),
    );
    for (const path of [
      '/openapi.json',
      '/.well-known/ai-plugin.json',
      '/llms.txt',
      '/en/llms.txt',
      '/pt-br/llms.txt',
    ])
      expect(headers, path).toContain(
        `${path}\n  ! Access-Control-Allow-Origin\n  ! Access-Control-Expose-Headers\n  Access-Control-Allow-Origin: *\n  Access-Control-Expose-Headers: ETag\n`,
      );
    expect(headers).not.toMatch(/Deprecation:|Sunset:|successor-version/);
    // Exact files only: every other path under /api/, next to them included, reaches the Function.
    expect(await site.readJson('_routes.json')).toEqual({
      version: 1,
      description: expect.any(String),
      include: ['/api/*', '/mcp', '/mcp/*'],
      exclude: ['/api/content.json', '/api/v1/content.json', '/api/v1/schema.json', '/api/versions.json'],
    });
    // _routes.json matches those files with a trailing slash too: that address goes to the file.
    expect(await text(site, '_redirects')).toContain(
      [
        '/api/content.json/ /api/content.json 308',
        '/api/versions.json/ /api/versions.json 308',
        '/api/v1/content.json/ /api/v1/content.json 308',
        '/api/v1/schema.json/ /api/v1/schema.json 308',
      ].join('\n'),
    );
  });

  it('with v2 published: deprecation headers for v1 with exact values, v2 kept static', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': V2_LIFECYCLE });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    const headers = await text(site, '_headers');
    expect(headers).toContain(
      [
        '/api/v1/*',
        '  ! Deprecation',
        '  ! Sunset',
        '  ! Link',
        '  Deprecation: @1793491200',
        '  Sunset: Mon, 01 Nov 2027 00:00:00 GMT',
        '  Link: <https://example.com/api/v2/content.json>; rel="successor-version", <https://example.com/docs/v2/>; rel="deprecation"; type="text/html"',
      ].join('\n'),
    );
    expect(headers).not.toContain('/api/v2/*');
    expect((await site.readJson<{ exclude: string[] }>('_routes.json')).exclude).toEqual([
      '/api/content.json',
      '/api/v2/content.json',
      '/api/v2/schema.json',
      '/api/versions.json',
    ]);
  });

  it('stops publishing a withdrawn version’s files at the next build, and keeps it in the manifest', async () => {
    site = await tempSite({ ...FILES, 'headers.config.ts': V2_LIFECYCLE });
    await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(Object.keys(await site.snapshot())).toContain('api/v1/content.json');
    await build({ root: site.root, clock: () => new Date('2027-11-01T00:00:00Z'), serializers: WITH_V2 });
    const files = Object.keys(await site.snapshot());
    expect(files.filter((f) => f.startsWith('api/v1/'))).toEqual([]);
    expect(files).toContain('api/v2/content.json');
    expect(await site.readJson('api/versions.json')).toMatchObject({
      current: 'v2',
      versions: [
        { version: 'v1', sunset_at: '2027-11-01T00:00:00Z', deprecated_at: '2026-11-01T00:00:00Z' },
        { version: 'v2', sunset_at: null, deprecated_at: null },
      ],
    });
    expect(await text(site, '_headers')).not.toContain('/api/v1/*');
  });

  it('merges the author’s top-level _headers and _redirects, the API rules after the author’s', async () => {
    site = await tempSite({
      ...FILES,
      _headers: '/*\n  Cache-Control: no-cache\n  X-Frame-Options: DENY\n',
      _redirects: '/viejo /nuevo 301\n/blog/* /articulos/:splat 302\n',
    });
    await build({ root: site.root, clock });
    const headers = await text(site, '_headers');
    expect(headers.indexOf('X-Frame-Options: DENY')).toBeGreaterThan(-1);
    expect(headers.indexOf('X-Frame-Options: DENY')).toBeLessThan(headers.indexOf('/api/*'));
    expect(await text(site, '_redirects')).toContain('/viejo /nuevo 301\n/blog/* /articulos/:splat 302\n');
  });

  it('puts its trailing-slash rules first, so they stay static and leave the author all 100 dynamic rules', async () => {
    // 99 splat rules of the author's: were the build's exact-path rules after them, Pages would count
    // those as dynamic too, past its 100.
    const splats = Array.from({ length: 99 }, (_, i) => `/old-${i}/* /new-${i}/:splat 301`).join('\n');
    site = await tempSite({ ...FILES, _redirects: `${splats}\n` });
    await build({ root: site.root, clock });
    const redirects = await text(site, '_redirects');
    const slash = redirects.indexOf('/openapi.json/ /openapi.json 308');
    expect(slash).toBeGreaterThan(-1);
    expect(slash).toBeLessThan(redirects.indexOf('/old-0/*'));
    expect(redirects).toContain('/docs/index.html/ /docs/ 308');
    expect(redirects).toContain('/api/v1/content.json/ /api/v1/content.json 308');
    expect(redirects).toContain('/old-98/* /new-98/:splat 301');
  });

  it('the repository’s own build stays within every Cloudflare Pages limit', async () => {
    site = await tempSite(FILES);
    await build({ root: PROJECT_ROOT, out: site.out });
    const headers = await text(site, '_headers');
    expect(headers).toContain('X-Frame-Options: DENY'); // the top-level _headers, merged
    expect(headerRules(headers)).toBeLessThanOrEqual(PAGES_LIMITS.headerRules);
    expect(longestLine(headers)).toBeLessThanOrEqual(PAGES_LIMITS.headerLineLength);
    const routes = await site.readJson<{ include: string[]; exclude: string[] }>('_routes.json');
    expect(routes.include.length + routes.exclude.length).toBeLessThanOrEqual(PAGES_LIMITS.routeRules);
    for (const rule of [...routes.include, ...routes.exclude])
      expect(rule.length).toBeLessThanOrEqual(PAGES_LIMITS.routeLength);
  });
});

describe('Cloudflare Pages limits: the build refuses what Pages would ignore', () => {
  async function refused(files: Record<string, string>): Promise<string> {
    site = await tempSite({ ...FILES, ...files });
    const error = await build({ root: site.root, clock }).catch((e: unknown) => e);
    expect(isContentIndexError(error)).toBe(true);
    expect(await site.snapshot()).toEqual({});
    return isContentIndexError(error) ? formatProblems(error.problems) : '';
  }
  const rules = (n: number) =>
    Array.from({ length: n }, (_, i) => `/page-${i}\n  X-Robots-Tag: noindex\n`).join('');

  it('accepts 94 author rules plus the API and discovery rules: exactly 100', async () => {
    site = await tempSite({ ...FILES, _headers: rules(94) });
    await build({ root: site.root, clock });
    expect(headerRules(await text(site, '_headers'))).toBe(100);
  });

  it('refuses a _headers over 100 rules, counting the author’s and the generated ones', async () => {
    expect(await refused({ _headers: rules(95) })).toBe(
      [
        '_headers: public/_headers would have 101 rules (95 yours, 6 generated); Cloudflare Pages applies at most 100 (rule: headers-max-rules)',
        '  hint: merge your rules with splats (/blog/*) so fewer paths need one each',
      ].join('\n'),
    );
  });

  it('refuses a _headers line over 2,000 characters, naming its line', async () => {
    const message = await refused({ _headers: `/*\n  X-Long: ${'a'.repeat(1993)}\n` });
    expect(message).toMatch(/^_headers:2: a line of 2001 characters.*\(rule: headers-max-line-length\)/);
    await site?.dispose();
    site = await tempSite({ ...FILES, _headers: `/*\n  X-Long: ${'a'.repeat(1992)}\n` }); // 2,000: allowed
    await build({ root: site.root, clock });
    expect(longestLine(await text(site, '_headers'))).toBe(2002); // with its two-space indent
  });

  it('refuses an author rule on a path the build writes a rule for (Pages keeps only the last one)', async () => {
    expect(await refused({ _headers: '# mine\n/api/*\n  X-Robots-Tag: noindex\n' })).toMatch(
      /^_headers:2: \/api\/\* is also a rule the build writes.*\(rule: headers-one-rule-per-path\)/,
    );
  });

  it('refuses a 410 rule in _redirects, which Pages rejects', async () => {
    expect(await refused({ _redirects: '/ok /fine 301\n/api/v0/* /api/v1/:splat 410\n' })).toMatch(
      /^_redirects:2: status 410 is not one Cloudflare Pages accepts .*\(rule: redirects-status\)/,
    );
  });

  it('refuses more than 100 dynamic redirects', async () => {
    const dynamic = Array.from({ length: 101 }, (_, i) => `/old-${i}/* /new-${i}/:splat 301`).join('\n');
    expect(await refused({ _redirects: dynamic })).toContain('(rule: redirects-max-rules)');
  });

  it('refuses a _routes.json over 100 rules, or with a rule over 100 characters, or overlapping rules', () => {
    const many = renderRoutesFile({
      include: Array.from({ length: 98 }, (_, i) => `/f${i}`),
      exclude: ['/a', '/b', '/c'],
    });
    expect(formatProblems(many.problems)).toContain(
      '101 rules; Cloudflare Pages allows 100 (rule: routes-max-rules)',
    );
    const long = renderRoutesFile({ include: [`/${'x'.repeat(100)}`], exclude: [] });
    expect(formatProblems(long.problems)).toContain('(rule: routes-max-length)');
    const overlap = renderRoutesFile({ include: ['/api/*', '/api/v1/content.json'], exclude: [] });
    expect(formatProblems(overlap.problems)).toContain('/api/v1/content.json overlaps /api/*');
  });
});
