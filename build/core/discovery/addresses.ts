/**
 * Where each discovery document lives, relative to the site address (and to the output folder, which is
 * published at the site address). One table, so every document links to the same places.
 */
export const DISCOVERY_PATHS = {
  openapi: 'openapi.json',
  aiPlugin: '.well-known/ai-plugin.json',
  /** A Pages Function (the MCP server), not a file the build writes. */
  mcp: 'mcp',
} as const;

/** Where the API reference page goes unless `apiReference` in the configuration moves it. */
export const DEFAULT_API_REFERENCE = '/docs/';

// One llms.txt per language of the site, where that language's pages live (a file covers the pages
// under its folder, llms.txt v2): the configuration's `llmsTxt` (resolve-site-config.ts).

export const INDEX_ALIAS_PATH = 'api/content.json';

export function indexPath(version: string): string {
  return `api/${version}/content.json`;
}

export function schemaPath(version: string): string {
  return `api/${version}/schema.json`;
}

/** `path` is relative to the site; the site address always ends with `/`. */
export function addressOf(site: string, path: string): string {
  return new URL(path, site).href;
}
