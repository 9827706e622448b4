import { ContentIndexError } from './errors.ts';
import { type AuthorFile, type HeaderRule, renderHeadersFile } from './headers-file.ts';
import { apiHeaders, deprecationHeaders } from './http-headers.ts';
import { versionState } from './lifecycle.ts';
import type { OutputFile } from './outputs.ts';
import { type RedirectRule, renderRedirectsFile } from './redirects-file.ts';
import { renderRoutesFile } from './routes-file.ts';
import { MANIFEST_PATH, type VersionManifest } from './version-manifest.ts';

export interface ServingContext {
  manifest: VersionManifest;
  /** The build time: which versions are deprecated now. */
  generated: Date;
  /** The author's `_headers` and `_redirects` at the project root. */
  author?: { headers?: AuthorFile; redirects?: AuthorFile };
  /** `_headers` rules other outputs contribute. */
  headerRules?: readonly HeaderRule[];
  /** `_redirects` rules other outputs contribute. */
  redirectRules?: readonly RedirectRule[];
  /** Further paths that run a Function. */
  functionRoutes?: readonly string[];
}

/** Always routed to Functions: the MCP server's Function lives at /mcp. */
export const FUNCTION_ROUTES = ['/api/*', '/mcp', '/mcp/*'] as const;

/**
 * `_headers`, `_routes.json` and (when there is a rule) `_redirects`. Throws ContentIndexError when a
 * file would break a Cloudflare Pages limit.
 */
export function renderServing(ctx: ServingContext): OutputFile[] {
  const { manifest } = ctx;
  const cache = {
    maxAge: manifest.cache_control.max_age,
    staleWhileRevalidate: manifest.cache_control.stale_while_revalidate,
  };
  const apiRules: HeaderRule[] = [{ path: '/api/*', headers: apiHeaders(cache) }];
  for (const version of manifest.versions) {
    const deprecated = version.deprecated_at ? new Date(version.deprecated_at) : undefined;
    const sunset = version.sunset_at ? new Date(version.sunset_at) : undefined;
    if (!deprecated || !sunset || versionState({ deprecated, sunset }, ctx.generated) !== 'deprecated')
      continue;
    // Static copies of what the Function sends: they matter only where Functions do not run.
    apiRules.push({
      path: `/api/${version.version}/*`,
      headers: deprecationHeaders({
        deprecated,
        sunset,
        successorUrl: manifest.current_url,
        documentation: version.documentation,
      }),
    });
  }
  const headers = renderHeadersFile(ctx.author?.headers, [
    { title: 'Contributed by the other outputs of content-index:', rules: ctx.headerRules ?? [] },
    { title: 'API routes, from headers.config.ts:', rules: apiRules },
  ]);
  const routes = renderRoutesFile({
    include: [...FUNCTION_ROUTES, ...(ctx.functionRoutes ?? [])],
    exclude: ['/api/content.json', `/${MANIFEST_PATH}`, `/api/${manifest.current}/*`],
  });
  const redirects = renderRedirectsFile(ctx.author?.redirects, ctx.redirectRules ?? []);
  const problems = [...headers.problems, ...routes.problems, ...redirects.problems];
  if (problems.length > 0) throw new ContentIndexError(problems);
  const files: OutputFile[] = [
    { path: '_headers', content: headers.content },
    { path: '_routes.json', content: routes.content },
  ];
  if (redirects.content !== undefined) files.push({ path: '_redirects', content: redirects.content });
  return files;
}
