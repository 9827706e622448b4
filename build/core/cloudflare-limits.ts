/**
 * Cloudflare Pages' documented limits on the routing files. Past them Pages silently ignores rules
 * (or refuses the deploy), so the build refuses first.
 */
export const PAGES_LIMITS = {
  /** `_headers`: rules (a path line and its header lines). */
  headerRules: 100,
  /** `_headers`: characters per line. */
  headerLineLength: 2000,
  /** `_redirects`: rules without splats or placeholders. */
  staticRedirects: 2000,
  /** `_redirects`: rules with a splat or a placeholder. */
  dynamicRedirects: 100,
  /** `_redirects`: characters per rule. */
  redirectLineLength: 1000,
  /** `_routes.json`: include and exclude rules together. */
  routeRules: 100,
  /** `_routes.json`: characters per rule. */
  routeLength: 100,
} as const;

/** The statuses a `_redirects` rule may carry; a 410 rule is rejected (hence the Function). */
export const REDIRECT_STATUSES: readonly number[] = [200, 301, 302, 303, 307, 308];
