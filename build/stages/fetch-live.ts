import { apiPath, MANIFEST_PATH, parseManifest } from '../core/edge/version-manifest.ts';
import { ContentIndexError } from '../core/errors.ts';
import { PLAN_LIMITS } from '../core/output/cloudflare-limits.ts';
import type { LiveSite } from '../core/versions/live-check.ts';
import { formatBytes } from './parse/format-bytes.js';

export interface FetchLiveOptions {
  /** How long one answer may take, redirects and body included, in milliseconds. Default: 30 s. */
  timeoutMs?: number;
  /** The most one answer's body may hold. Default: the largest file Cloudflare Pages serves (25 MiB). */
  maxBytes?: number;
  /** What the problem's hint suggests when the site cannot be read (deploy names its flag). */
  hint?: string;
}

/** Redirects followed within the site's origin; one to another origin is never followed. */
const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 30_000;
/** No file the live site serves can be larger: Pages refuses bigger assets. */
const MAX_BYTES = PLAN_LIMITS.paid.assetBytes;

/** An answer: its status and headers, and its body read within the answer's deadline and the size bound. */
interface Answer {
  status: number;
  statusText: string;
  ok: boolean;
  headers: Headers;
  /** Reads the body (once); `discard` drops it unread. */
  text(): Promise<string>;
  discard(): Promise<void>;
}

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
    await response.discard();
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
      await body.discard();
      continue;
    }
    if (!body.ok) throw unreachable(url, `answered ${body.status} ${body.statusText}`, options);
    const text = await body.text();
    try {
      live.bodies[version.version] = JSON.parse(text);
    } catch {
      throw unreachable(url, 'is not JSON', options);
    }
  }
  return live;
}

function isHtml(response: Answer): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html');
}

/** Whether an HTML answer is the site's home page, which Pages serves for any unknown path. */
async function isFallbackPage(base: URL, page: string, options: FetchLiveOptions): Promise<boolean> {
  const home = await get(new URL('/', base).href, options);
  if (!home.ok || !isHtml(home)) {
    await home.discard();
    return false;
  }
  return (await home.text()) === page;
}

/**
 * GET, following redirects only within the same origin: a redirect elsewhere (an Access login, a
 * maintenance host) is not the site, and following it would read that page as the site's answer. One
 * deadline covers the whole answer, redirects and body included: a server that sends its headers and
 * then drips its body is cut off like one that never answers.
 */
async function get(url: string, options: FetchLiveOptions): Promise<Answer> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS);
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await request(current, signal, options);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) {
      return answer(url, response, signal, options);
    }
    await response.body?.cancel().catch(() => undefined);
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

async function request(url: string, signal: AbortSignal, options: FetchLiveOptions): Promise<Response> {
  try {
    return await fetch(url, {
      // The API is cached at the edge for minutes: ask for what is deployed now.
      headers: { accept: 'application/json', 'cache-control': 'no-cache' },
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw timedOut(url, options, 'did not answer');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? '';
    const why = `could not be fetched (${[code, NETWORK_ERRORS[code] ?? cause?.message ?? (error as Error).message].filter(Boolean).join(': ')})`;
    throw unreachable(url, why, options);
  }
}

/**
 * The body, read as it streams in and no further than the size bound: a larger answer (no index a Pages
 * site serves can be) is cut off there, never held whole in memory; a body that stops coming before
 * the deadline is cut off then. Either says which bound it met.
 */
function answer(url: string, response: Response, signal: AbortSignal, options: FetchLiveOptions): Answer {
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  const discard = () => response.body?.cancel().catch(() => undefined) ?? Promise.resolve();
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers: response.headers,
    discard: async () => {
      await discard();
    },
    async text() {
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declared > maxBytes) {
        await discard();
        throw tooLarge(url, maxBytes, options, `says it is ${formatBytes(declared)}`);
      }
      const reader = response.body?.getReader();
      if (!reader) return '';
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > maxBytes) {
            await reader.cancel().catch(() => undefined);
            throw tooLarge(url, maxBytes, options, `went past ${formatBytes(maxBytes)}`);
          }
          chunks.push(value);
        }
      } catch (error) {
        if (error instanceof ContentIndexError) throw error;
        await reader.cancel().catch(() => undefined);
        if (signal.aborted) throw timedOut(url, options, `sent ${formatBytes(bytes)} and not the rest`);
        throw unreachable(url, `broke off its answer (${(error as Error).message})`, options);
      }
      return new TextDecoder().decode(Buffer.concat(chunks));
    },
  };
}

function timedOut(url: string, options: FetchLiveOptions, what: string): ContentIndexError {
  const seconds = Math.round((options.timeoutMs ?? TIMEOUT_MS) / 100) / 10;
  return unreachable(
    url,
    `${what} within ${seconds} s (the time limit of one answer, body included)`,
    options,
  );
}

function tooLarge(url: string, maxBytes: number, options: FetchLiveOptions, what: string): ContentIndexError {
  return unreachable(
    url,
    `answered a body that ${what}, over the ${formatBytes(maxBytes)} limit of one answer (the largest file Cloudflare Pages serves), so it was not read further`,
    options,
  );
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
