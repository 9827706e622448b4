import {
  apiHeaders,
  cacheControl,
  deprecationHeaders,
  PROBLEM_CONTENT_TYPE,
  preflightHeaders,
  successorLink,
} from './http-headers.ts';
import { type CachePolicy, versionState } from './lifecycle.ts';
import { PROBLEM_TYPES, type ProblemName, problemTypeUri } from './problem-types.ts';
import { MANIFEST_PATH, parseManifest, type VersionManifest } from './version-manifest.ts';

/**
 * What the Pages Function on `/api/*` does, kept here so it is plain, testable TypeScript. It runs only
 * where `_routes.json` sends it (deprecated, withdrawn and unknown versions) and decides at request
 * time, from `api/versions.json`, so a sunset turns into 410 Gone at its instant without a rebuild.
 * No ajv here: workerd forbids the code generation it relies on.
 */

export interface AssetFetcher {
  fetch(input: Request | string): Promise<Response>;
}

export interface ServeContext {
  /** The static files of the deployment (`env.ASSETS`). */
  assets: AssetFetcher;
  /** The request time. */
  now: Date;
}

/** RFC 9457 problem details, with the extension members of `build/schemas/problem.schema.json`. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  version?: string;
  withdrawn_at?: string;
  current_version?: string;
  current_url?: string;
}

/**
 * The Function's clock. Production uses the real one; tests pass an instant with
 * `wrangler pages dev --binding CONTENT_INDEX_TEST_NOW=2027-11-01T00:00:00Z`.
 */
export function requestClock(testNow: string | undefined): Date {
  const injected = testNow ? Date.parse(testNow) : Number.NaN;
  return Number.isNaN(injected) ? new Date() : new Date(injected);
}

/** What the API answers; OPTIONS is only ever a CORS preflight. */
export const API_METHODS = 'GET, HEAD, OPTIONS';

export async function serveApi(request: Request, ctx: ServeContext): Promise<Response> {
  const url = new URL(request.url);
  // Answered before anything is read: a preflight only asks whether the real request may be sent.
  if (request.method === 'OPTIONS')
    return new Response(null, { status: 204, headers: preflightHeaders(API_METHODS) });
  const manifest = await loadManifest(ctx.assets, url);
  if (!manifest) {
    return problem(request, undefined, {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: `/${MANIFEST_PATH} is missing or unreadable; rebuild and redeploy the site`,
      instance: url.pathname,
    });
  }
  const policy: CachePolicy = {
    maxAge: manifest.cache_control.max_age,
    staleWhileRevalidate: manifest.cache_control.stale_while_revalidate,
  };
  const pointer = { current_version: manifest.current, current_url: manifest.current_url };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    const response = problem(request, policy, {
      type: 'about:blank',
      title: 'Method Not Allowed',
      status: 405,
      detail: 'The Content Index API is read-only: only GET (and HEAD) requests exist.',
      instance: url.pathname,
    });
    response.headers.set('Allow', API_METHODS);
    return response;
  }
  const [, name, ...rest] = url.pathname.split('/').filter(Boolean);
  if (name === undefined || (rest.length === 0 && !/^v\d+$/.test(name))) {
    // A file directly under /api/ (the alias, the manifest): static, but the Function was asked anyway.
    return passThrough(request, ctx, policy, manifest, url);
  }
  const version = manifest.versions.find((v) => v.version === name);
  if (!version) {
    return problem(request, policy, {
      type: problemType(manifest, 'version-unknown'),
      title: PROBLEM_TYPES['version-unknown'].title,
      status: 404,
      detail: `There is no version ${name} of this API. The current version is ${manifest.current}: ${manifest.current_url}`,
      instance: url.pathname,
      version: name,
      ...pointer,
    });
  }
  const deprecated = instant(version.deprecated_at);
  const sunset = instant(version.sunset_at);
  const state = versionState({ deprecated, sunset }, ctx.now);
  if (state === 'withdrawn' && sunset) {
    const response = problem(request, policy, {
      type: problemType(manifest, 'version-withdrawn'),
      title: PROBLEM_TYPES['version-withdrawn'].title,
      status: 410,
      detail: `Version ${name} was withdrawn on ${version.sunset_at}. Use ${manifest.current}: ${manifest.current_url}`,
      instance: url.pathname,
      version: name,
      withdrawn_at: version.sunset_at ?? '',
      ...pointer,
    });
    response.headers.set('Link', successorLink(manifest.current_url));
    return response;
  }
  if (!version.routes.includes(url.pathname)) {
    // A file's address with a stray slash goes to the file, as it does while the version is current
    // (the static files' `_redirects` rules, which never reach a Function's paths).
    const bare = url.pathname.replace(/\/+$/, '');
    if (bare !== url.pathname && version.routes.includes(bare)) return toFile(`${bare}${url.search}`, policy);
    return notFound(request, policy, manifest, url);
  }
  const asset = await ctx.assets.fetch(request);
  if (asset.status !== 200 && asset.status !== 304) return notFound(request, policy, manifest, url);
  const headers = new Headers(asset.headers);
  setAll(headers, apiHeaders(policy));
  if (state === 'deprecated' && deprecated && sunset) {
    // No cache may keep answering 200 past the sunset instant.
    headers.set('Cache-Control', cacheControl(policy, (sunset.getTime() - ctx.now.getTime()) / 1000));
    setAll(
      headers,
      deprecationHeaders({
        deprecated,
        sunset,
        successorUrl: manifest.current_url,
        documentation: version.documentation,
      }),
    );
  }
  return new Response(asset.body, { status: asset.status, headers });
}

/** 308 to the file's own address: the same method, and for caches a permanent answer. */
function toFile(location: string, policy: CachePolicy): Response {
  const headers = new Headers(apiHeaders(policy));
  headers.delete('Content-Type');
  headers.set('Location', location);
  return new Response(null, { status: 308, headers });
}

async function passThrough(
  request: Request,
  ctx: ServeContext,
  policy: CachePolicy,
  manifest: VersionManifest,
  url: URL,
): Promise<Response> {
  // Only the files the build writes there: anything else would be the site's HTML fallback page,
  // which the generated `/api/*` headers would label as JSON.
  if (url.pathname !== '/api/content.json' && url.pathname !== `/${MANIFEST_PATH}`) {
    return notFound(request, policy, manifest, url);
  }
  const asset = await ctx.assets.fetch(request);
  if (asset.status !== 200 && asset.status !== 304) return notFound(request, policy, manifest, url);
  const headers = new Headers(asset.headers);
  setAll(headers, apiHeaders(policy));
  return new Response(asset.body, { status: asset.status, headers });
}

function notFound(request: Request, policy: CachePolicy, manifest: VersionManifest, url: URL): Response {
  return problem(request, policy, {
    type: problemType(manifest, 'not-found'),
    title: PROBLEM_TYPES['not-found'].title,
    status: 404,
    detail: `Nothing is published at ${url.pathname}. The index is at ${manifest.current_url}`,
    instance: url.pathname,
    current_version: manifest.current,
    current_url: manifest.current_url,
  });
}

async function loadManifest(assets: AssetFetcher, url: URL): Promise<VersionManifest | undefined> {
  try {
    const response = await assets.fetch(new URL(`/${MANIFEST_PATH}`, url).href);
    if (!response.ok) return undefined;
    return parseManifest(await response.json());
  } catch {
    return undefined;
  }
}

function problem(request: Request, policy: CachePolicy | undefined, body: ProblemBody): Response {
  const headers = new Headers(policy ? apiHeaders(policy, PROBLEM_CONTENT_TYPE) : {});
  if (!policy) {
    headers.set('Content-Type', PROBLEM_CONTENT_TYPE);
    headers.set('Cache-Control', 'no-store');
  }
  const text = `${JSON.stringify(body)}\n`;
  return new Response(request.method === 'HEAD' ? null : text, { status: body.status, headers });
}

/** Problem types are anchors on the API reference page, which explains each one. */
function problemType(manifest: VersionManifest, name: ProblemName): string {
  return problemTypeUri(manifest.reference ?? manifest.documentation, name);
}

function instant(value: string | null): Date | undefined {
  return value ? new Date(value) : undefined;
}

function setAll(headers: Headers, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
}
