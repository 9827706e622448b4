import { apiPath, MANIFEST_PATH, parseManifest } from '../core/edge/version-manifest.ts';
import { ContentIndexError } from '../core/errors.ts';
import type { LiveSite } from '../core/versions/live-check.ts';

export interface FetchLiveOptions {
  /** How long one request may take, in milliseconds. Default: 15 s. */
  timeoutMs?: number;
  /** What the problem's hint suggests when the site cannot be read (deploy names its flag). */
  hint?: string;
}

/** Redirects followed within the site's origin; one to another origin is never followed. */
const MAX_REDIRECTS = 5;

/**
 * Reads what the live site publishes: `/api/versions.json` and the index body of every version it
 * lists. Nothing is live yet (a first deploy) when it answers 404 there, or the site's own page for
 * unknown paths: Pages answers those with the home page (200 text/html) on a site without a 404.html,
 * so an HTML answer counts only when it is the same page as `/`. Anything else that is not a manifest
 * (no connection, a timeout, a 5xx, a redirect to another origin such as a login or maintenance host,
 * any other page) is an error, because a check that could not look must not pass.
 */
export async function fetchLive(address: string, options: FetchLiveOptions = {}): Promise<LiveSite> {
  let base: URL;
  try {
    base = new URL(address.endsWith('/') ? address : `${address}/`);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ContentIndexError([
      {
        code: 'live_unreachable',
        file: address,
        message: 'is not an http(s) address of a site',
        hint: 'pass the address the site is served at, e.g. https://example.com/',
      },
    ]);
  }
  const live: LiveSite = { url: base.href, manifest: null, bodies: {} };
  const manifestUrl = new URL(MANIFEST_PATH, base).href;
  const response = await get(manifestUrl, options);
  if (response.status === 404) {
    await response.body?.cancel();
    return live; // nothing live yet: the host's not-found page
  }
  if (!response.ok)
    throw unreachable(manifestUrl, `answered ${response.status} ${response.statusText}`, options);
  const text = await response.text();
  if (isHtml(response)) {
    if (await isFallbackPage(base, text, options)) return live; // nothing live yet: the home page for any path
    throw unreachable(
      manifestUrl,
      'answered an HTML page (200 text/html) other than the site’s own page for unknown paths (its home page): a login, maintenance or error page may stand in front of the site',
      options,
    );
  }
  let manifest: ReturnType<typeof parseManifest>;
  try {
    manifest = parseManifest(JSON.parse(text));
  } catch {
    manifest = undefined;
  }
  if (!manifest) throw unreachable(manifestUrl, 'is not a versions manifest', options);
  live.manifest = manifest;
  for (const version of manifest.versions) {
    const url = new URL(apiPath(version.version).slice(1), base).href;
    const body = await get(url, options);
    // 410: withdrawn there; 404: listed but not served (a broken deploy): neither has fields to keep.
    if (body.status === 410 || body.status === 404) {
      await body.body?.cancel();
      continue;
    }
    if (!body.ok) throw unreachable(url, `answered ${body.status} ${body.statusText}`, options);
    try {
      live.bodies[version.version] = JSON.parse(await body.text());
    } catch {
      throw unreachable(url, 'is not JSON', options);
    }
  }
  return live;
}

function isHtml(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html');
}

/** Whether an HTML answer is the site's home page, which Pages serves for any unknown path. */
async function isFallbackPage(base: URL, page: string, options: FetchLiveOptions): Promise<boolean> {
  const home = await get(new URL('/', base).href, options);
  if (!home.ok || !isHtml(home)) {
    await home.body?.cancel();
    return false;
  }
  return (await home.text()) === page;
}

/**
 * GET, following redirects only within the same origin: a redirect elsewhere (an Access login, a
 * maintenance host) is not the site, and following it would read that page as the site's answer.
 */
async function get(url: string, options: FetchLiveOptions): Promise<Response> {
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await request(current, options);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw unreachable(
        url,
        `redirects (${response.status}) to an address that is not one: ${location}`,
        options,
      );
    }
    if (next.origin !== new URL(current).origin)
      throw unreachable(
        url,
        `redirects (${response.status}) to ${next.origin}, another origin, which is not followed: a login, maintenance or other host stands in front of the site`,
        options,
      );
    if (hops >= MAX_REDIRECTS) throw unreachable(url, `redirects more than ${MAX_REDIRECTS} times`, options);
    current = next.href;
  }
}

async function request(url: string, options: FetchLiveOptions): Promise<Response> {
  try {
    return await fetch(url, {
      // The API is cached at the edge for minutes: ask for what is deployed now.
      headers: { accept: 'application/json', 'cache-control': 'no-cache' },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? '';
    const why =
      (error as Error).name === 'TimeoutError'
        ? `did not answer within ${Math.round((options.timeoutMs ?? 15_000) / 1000)} s`
        : `could not be fetched (${[code, NETWORK_ERRORS[code] ?? cause?.message ?? (error as Error).message].filter(Boolean).join(': ')})`;
    throw unreachable(url, why, options);
  }
}

const NETWORK_ERRORS: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ECONNREFUSED: 'nothing answers at that address',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
};

function unreachable(url: string, why: string, options: FetchLiveOptions): ContentIndexError {
  return new ContentIndexError([
    {
      code: 'live_unreachable',
      file: url,
      message: `${why}; nothing could be checked against the live site`,
      hint: options.hint ?? 'check the address and that the site is up, then run the check again',
    },
  ]);
}
