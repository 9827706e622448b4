import { apiHeaders, deprecationHeaders } from '../edge/http-headers.ts';
import { versionState } from '../edge/lifecycle.ts';
import { apiPath, MANIFEST_PATH, VERSION_FILES, type VersionManifest } from '../edge/version-manifest.ts';
import { ContentIndexError } from '../errors.ts';
import { type AuthorFile, type HeaderRule, renderHeadersFile } from './headers-file.ts';
import type { OutputFile } from './outputs.ts';
import { type RedirectRule, renderRedirectsFile } from './redirects-file.ts';
import { renderRoutesFile } from './routes-file.ts';

export interface ServingContext {
  manifest: VersionManifest;
  /** The build's clock: which versions are deprecated now. */
  now: Date;
  /** The author's `_headers` and `_redirects` (the project root's, the site generator's copies), in order. */
  author?: { headers: readonly AuthorFile[]; redirects: readonly AuthorFile[] };
  /** `_headers` rules other outputs contribute. */
  headerRules?: readonly HeaderRule[];
  /** `_redirects` rules other outputs contribute. */
  redirectRules?: readonly RedirectRule[];
  /** Further paths that run a Function. */
  functionRoutes?: readonly string[];
  /** Every other file the build publishes (discovery documents, the API reference and its renderer). */
  files?: readonly string[];
}

/** Always routed to Functions: the MCP server's Function lives at /mcp. */
export const FUNCTION_ROUTES = ['/api/*', '/mcp', '/mcp/*'] as const;

/**
 * The API files served as plain static files, without running the Function: the current version's
 * files, the alias and the manifest. Exact paths, never a splat: any other path under `/api/` (a typo
 * next to the current version's files included) must reach the Function, which answers a JSON 404,
 * because the static handler would answer it with the site's own 404 page or, on a single-page site,
 * with its home page.
 */
export function staticApiPaths(manifest: VersionManifest): string[] {
  return [
    '/api/content.json',
    `/${MANIFEST_PATH}`,
    ...VERSION_FILES.map((file) => apiPath(manifest.current, file)),
  ];
}

/** Files Pages reads as configuration, never serves. */
const ROUTING_FILES = new Set(['_headers', '_redirects', '_routes.json']);

/**
 * A file's address with a stray slash (`/openapi.json/`, `/llms.txt/`) is sent to the file. The static
 * handler has no answer of its own for it: `wrangler pages dev` looks for a folder of that name and
 * answers 502 (ENOTDIR), and `_routes.json` matches `/api/v1/content.json/` as it matches the file, so
 * that address would never reach the Function either. An `index.html` goes to its folder, its address.
 * Under `/api/` only the static files: every other path there is the Function's, which `_redirects`
 * does not reach. Static rules (exact paths), one per file the build writes: a few dozen of Pages' 2,000.
 */
function trailingSlashRedirects(manifest: VersionManifest, files: readonly string[]): RedirectRule[] {
  const rules = staticApiPaths(manifest).map((path) => ({ from: `${path}/`, to: path, status: 308 }));
  for (const file of [...files].sort()) {
    if (ROUTING_FILES.has(file) || file.startsWith('api/')) continue;
    const index = file === 'index.html' || file.endsWith('/index.html');
    rules.push({
      from: `/${file}/`,
      to: index ? `/${file.slice(0, -'index.html'.length)}` : `/${file}`,
      status: 308,
    });
  }
  return rules;
}

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
    if (!deprecated || !sunset || versionState({ deprecated, sunset }, ctx.now) !== 'deprecated') continue;
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
  const headers = renderHeadersFile(ctx.author?.headers ?? [], [
    { title: 'Contributed by the other outputs of content-index:', rules: ctx.headerRules ?? [] },
    { title: 'API routes, from headers.config.ts:', rules: apiRules },
  ]);
  const routes = renderRoutesFile({
    include: [...FUNCTION_ROUTES, ...(ctx.functionRoutes ?? [])],
    exclude: staticApiPaths(manifest),
  });
  const redirects = renderRedirectsFile(
    ctx.author?.redirects ?? [],
    ctx.redirectRules ?? [],
    trailingSlashRedirects(manifest, ctx.files ?? []),
  );
  const problems = [...headers.problems, ...routes.problems, ...redirects.problems];
  if (problems.length > 0) throw new ContentIndexError(problems);
  const files: OutputFile[] = [
    { path: '_headers', content: headers.content },
    { path: '_routes.json', content: routes.content },
  ];
  if (redirects.content !== undefined) files.push({ path: '_redirects', content: redirects.content });
  return files;
}
