import { type SiteConfig, siteDescription, siteName } from '../config/site-config.ts';
import { MANIFEST_PATH } from '../edge/version-manifest.ts';
import { DISCOVERY_PATHS, INDEX_ALIAS_PATH, indexPath, schemaPath } from './addresses.ts';
import type { ApiVersion } from './api-versions.ts';
import { escapeHtml } from './html.ts';

/** Where the page is written when `landingPage: true`: the site's root address. */
export const LANDING_PAGE_PATH = 'index.html';

/**
 * Marks the page as the build's own. The build replaces or removes an `index.html` only when it carries
 * this line, so an author's home page is never overwritten, and a page left from `landingPage: true` goes
 * once the option is off.
 */
export const LANDING_PAGE_MARKER = '<meta name="generator" content="content-index">';

/**
 * The page needs no script; inline styles only. `data:` images for its empty favicon (`data:,`), which
 * spares the browser a request for /favicon.ico: without it that icon is blocked and logged as an error.
 */
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

const LANGUAGE_NAMES = { es: 'Spanish', en: 'English', 'pt-br': 'Brazilian Portuguese' } as const;

export interface LandingPageContext {
  config: SiteConfig;
  versions: readonly ApiVersion[];
  tools: readonly { name: string; title?: string }[];
  items: number;
}

/**
 * `index.html`: what this address serves, for a person who opens it in a browser. Addresses are relative
 * (`./api/…`), so the page works on `wrangler pages dev` and preview deployments too; the absolute
 * addresses an integration uses are shown beside them. Nothing in it depends on the time of the build.
 */
export function landingPage(ctx: LandingPageContext): string {
  const { config } = ctx;
  // The page is in English: the site's English name and description, else its canonical ones.
  const name = escapeHtml(siteName(config, 'en'));
  const english = siteDescription(config, 'en');
  const description = english ?? config.description;
  const descriptionLang =
    english || config.canonicalLanguage === 'en' ? '' : ` lang="${config.canonicalLanguage}"`;
  const link = (path: string) => `<a href="./${escapeHtml(path)}">/${escapeHtml(path)}</a>`;
  const absolute = (path: string) => `<code>${escapeHtml(new URL(path, config.site).href)}</code>`;
  const row = (path: string, what: string) =>
    `<tr><td>${link(path)}</td><td>${what}<br>${absolute(path)}</td></tr>`;
  const versionRows = ctx.versions.map((version) => {
    if (version.state === 'withdrawn') {
      return `<tr><td><code>/${escapeHtml(indexPath(version.name))}</code></td><td>${escapeHtml(version.name)}, withdrawn${version.sunset ? ` on ${escapeHtml(version.sunset.slice(0, 10))}` : ''}: answers 410 Gone</td></tr>`;
    }
    const state =
      version.state === 'current'
        ? 'current'
        : `deprecated${version.sunset ? `, served until ${escapeHtml(version.sunset.slice(0, 10))}` : ''}`;
    return [
      row(indexPath(version.name), `The whole index, version ${escapeHtml(version.name)} (${state})`),
      row(schemaPath(version.name), `Its JSON Schema`),
    ].join('\n');
  });
  const tools = ctx.tools
    .map((tool) => `<code>${escapeHtml(tool.name)}</code>${tool.title ? ` (${escapeHtml(tool.title)})` : ''}`)
    .join(', ');
  const mcpUrl = new URL(DISCOVERY_PATHS.mcp, config.site).href;
  const clientConfig = JSON.stringify({ mcpServers: { [slugOf(config)]: { url: mcpUrl } } }, null, 2);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
${LANDING_PAGE_MARKER}
<title>${name}: Content Index API</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/json" href="./${INDEX_ALIAS_PATH}" title="Content index">
<style>
  body { margin: 0 auto; max-width: 60rem; padding: 1rem 1.25rem 3rem; font: 1rem/1.5 system-ui, sans-serif; }
  table { border-collapse: collapse; width: 100%; }
  td { border-top: 1px solid #ddd; padding: 0.45rem 0.75rem 0.45rem 0; vertical-align: top; }
  td:first-child { white-space: nowrap; }
  td code { font-size: 0.8rem; color: #555; }
  pre { background: #f5f5f5; padding: 0.75rem; overflow-x: auto; }
</style>
</head>
<body>
<h1>${name}</h1>
${description ? `<p${descriptionLang}>${escapeHtml(description)}</p>\n` : ''}<p>A read-only Content Index API: ${ctx.items} ${ctx.items === 1 ? 'item' : 'items'} (posts, projects and tips) in ${config.languages.map((l) => LANGUAGE_NAMES[l]).join(', ')}, as JSON files any client can fetch, described for machines and people, and an MCP server for AI agents.</p>

<h2>The index</h2>
<table>
${row(INDEX_ALIAS_PATH, 'The whole index in one request, always the latest version')}
${versionRows.join('\n')}
${row(MANIFEST_PATH, 'Every version with its publication, deprecation and sunset dates')}
</table>

<h2>Descriptions</h2>
<table>
${row(config.apiReference.path, 'The API reference, to read')}
${row(DISCOVERY_PATHS.openapi, 'The same as OpenAPI 3.1, for client generators')}
${config.languages.map((lang) => row(config.llmsTxt[lang] as string, `The content for language models (llms.txt), ${LANGUAGE_NAMES[lang]}`)).join('\n')}
${row(DISCOVERY_PATHS.aiPlugin, 'The AI plugin manifest')}
</table>

<h2>MCP server</h2>
<p>${link(DISCOVERY_PATHS.mcp)} speaks the Model Context Protocol over Streamable HTTP, with the tools ${tools}. A client that takes a configuration file connects with:</p>
<pre>${escapeHtml(clientConfig)}</pre>
</body>
</html>
`;
}

/** A key for the client configuration: the site's host, as agents list servers by name. */
function slugOf(config: SiteConfig): string {
  return new URL(config.site).hostname.replace(/[^a-z0-9]+/gi, '-');
}
