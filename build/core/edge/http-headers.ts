import type { CachePolicy } from './lifecycle.ts';

/**
 * The headers of API responses, computed once for both places that send them: the generated `_headers`
 * (static files) and the Pages Function (responses it builds, to which `_headers` does not apply).
 */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';
/** GET /mcp/server-card's media type (the experimental server-card extension). */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/** RFC 9745: an RFC 9651 structured-field Date, `@` and the Unix time in seconds. */
export function structuredFieldDate(date: Date): string {
  return `@${Math.floor(date.getTime() / 1000)}`;
}

/** RFC 8594 / RFC 9110 IMF-fixdate, e.g. `Mon, 01 Nov 2027 00:00:00 GMT`. */
export function httpDate(date: Date): string {
  return date.toUTCString();
}

/**
 * `capSeconds` keeps a cache from answering past an instant the response must not outlive (a sunset):
 * freshness plus the stale window never reach beyond it.
 */
export function cacheControl(policy: CachePolicy, capSeconds?: number): string {
  let maxAge = policy.maxAge;
  let stale = policy.staleWhileRevalidate;
  if (capSeconds !== undefined) {
    const cap = Math.max(0, Math.floor(capSeconds));
    maxAge = Math.min(maxAge, cap);
    stale = Math.min(stale, cap - maxAge);
  }
  return stale > 0
    ? `public, max-age=${maxAge}, stale-while-revalidate=${stale}`
    : `public, max-age=${maxAge}`;
}

/**
 * The response headers a script on another origin may read besides the CORS-safelisted ones: the
 * validator it revalidates with and the lifecycle signals of a deprecated version.
 */
export const EXPOSED_HEADERS = 'ETag, Deprecation, Sunset, Link';

/** Headers every API response carries (the body is JSON; any origin may read it; no sniffing). */
export function apiHeaders(policy: CachePolicy, contentType = JSON_CONTENT_TYPE): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': cacheControl(policy),
  };
}

/**
 * The answer to a CORS preflight on a path a Function serves. Any request header is allowed (`*`):
 * the API is public, read-only and takes no credentials, so no header a client adds can change what it
 * may read. A day of `Max-Age` spares a browser one preflight per request.
 */
export function preflightHeaders(methods: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': methods,
    'Access-Control-Allow-Headers': '*',
    'Access-Control-Max-Age': '86400',
    Allow: methods,
  };
}

export interface DeprecationNotice {
  deprecated: Date;
  sunset: Date;
  /** Address of the version to move to. */
  successorUrl: string;
  /** Human documentation of the change. */
  documentation: string;
}

/** RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and the RFC 8288 links both recommend. */
export function deprecationHeaders(notice: DeprecationNotice): Record<string, string> {
  return {
    Deprecation: structuredFieldDate(notice.deprecated),
    Sunset: httpDate(notice.sunset),
    Link: `${successorLink(notice.successorUrl)}, <${notice.documentation}>; rel="deprecation"; type="text/html"`,
  };
}

export function successorLink(url: string): string {
  return `<${url}>; rel="successor-version"`;
}
