import { type SiteConfig, siteName } from '../config/site-config.ts';
import { PROBLEM_NAMES, PROBLEM_TYPES } from '../edge/problem-types.ts';
import { DISCOVERY_PATHS, schemaPath } from './addresses.ts';
import { escapeHtml } from './html.ts';

/** The renderer's files, copied into `docs/` by the build (see build/stages/docs-assets.ts). */
export const DOCS_SCRIPT = 'redoc.standalone.js';

/**
 * Only this origin may be contacted: the page works offline from the CDN and leaks no reader to a third
 * party even if a renderer update adds a remote asset. Redoc injects its styles at run time
 * (`'unsafe-inline'` styles) and runs its search index in a blob worker.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * `docs/index.html` (or `apiReference`'s folder): Redoc renders `/openapi.json`. Every address is relative, so the page also works
 * on a preview deployment; the links above the reference do not need JavaScript.
 */
export function docsPage(config: SiteConfig, version: string): string {
  const name = escapeHtml(siteName(config));
  // The page is `apiReference.path` deep (`docs/`: one folder) below the site's root.
  const toRoot = '../'.repeat(config.apiReference.path.split('/').length - 1);
  const up = (path: string) => escapeHtml(`${toRoot}${path}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${DOCS_CSP}">
<title>${name} Content Index API reference</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/json" href="${up(DISCOVERY_PATHS.openapi)}" title="OpenAPI description">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; }
  .links { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; padding: 0.6rem 1.25rem; font-size: 0.9rem; border-bottom: 1px solid #ddd; }
  .links strong { margin-right: auto; }
  .problems { padding: 0.4rem 1.25rem 0.6rem; font-size: 0.85rem; border-bottom: 1px solid #ddd; }
  .problems h2 { font-size: 0.95rem; margin: 0.3rem 0; }
  .problems p, .problems dl { margin: 0.3rem 0; }
  .problems dt { font-weight: 600; margin-top: 0.3rem; }
  .problems dd { margin-left: 1.25rem; }
  .problems :target { background: #fff3bf; }
</style>
</head>
<body>
<nav class="links" aria-label="Machine-readable documents">
  <strong>${name} Content Index API</strong>
  <a href="${up(DISCOVERY_PATHS.openapi)}">OpenAPI</a>
  <a href="${up(schemaPath(version))}">JSON Schema (${escapeHtml(version)})</a>
  <a href="${up('llms.txt')}">llms.txt</a>
  <a href="${up(DISCOVERY_PATHS.mcp)}">MCP server</a>
  <a href="${up(DISCOVERY_PATHS.aiPlugin)}">ai-plugin.json</a>
</nav>
${problemsSection()}
<redoc spec-url="${up(DISCOVERY_PATHS.openapi)}" expand-responses="200"></redoc>
<noscript><p>The interactive reference needs JavaScript; the <a href="${up(DISCOVERY_PATHS.openapi)}">OpenAPI description</a> has the same content.</p></noscript>
<script src="${DOCS_SCRIPT}"></script>
</body>
</html>
`;
}

/**
 * The problem types, as plain HTML above the reference: every problem body's `type` is this page's
 * address plus `#` and an id here. Outside the renderer, the anchors exist before any script runs, and
 * the renderer, which fills the page below them, cannot move the place a link lands on.
 */
function problemsSection(): string {
  const entries = PROBLEM_NAMES.map((name) => {
    const { status, title, explanation } = PROBLEM_TYPES[name];
    return `  <dt id="${name}"><code>#${name}</code>: ${status} ${escapeHtml(title)}</dt>\n  <dd>${escapeHtml(explanation)}</dd>`;
  });
  return `<section class="problems" aria-labelledby="problems-title">
<h2 id="problems-title">Errors</h2>
<p>Every error under <code>/api/</code> is JSON: a problem body (RFC 9457, <code>application/problem+json</code>) whose <code>type</code> is one of the addresses below and which names the current version and the address of its index.</p>
<dl>
${entries.join('\n')}
</dl>
</section>`;
}
