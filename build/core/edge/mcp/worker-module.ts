import type { D1Data } from './d1-backend.ts';
import type { EmbeddedData } from './embedded.ts';
import { MCP_DATA_FORMAT } from './mcp-data.ts';

/**
 * The module the `/mcp` Function imports, written by the build into the project's private folder
 * (`.content-index/worker/mcp-data.mjs`, never published). Wrangler bundles it into the Worker, so its
 * data is part of the deployed code: evaluated once when an isolate starts, never fetched per request.
 */
export type McpModule = EmbeddedData | D1Data;

/**
 * `content-index dev`'s module: where the current data is, not the data. dev writes it once and serves
 * each build's data from a loopback server, because wrangler rebuilds and reloads the Function whenever
 * the module changes and holds every request meanwhile (about a second per save).
 */
export interface DevPointer {
  format: typeof MCP_DATA_FORMAT;
  backend: 'dev';
  /** http://127.0.0.1:<port>/… on dev's machine. */
  url: string;
}

/** Relative to the project root; the Function imports it by this fixed relative path. */
export const MCP_MODULE_PATH = '.content-index/worker/mcp-data.mjs';
/** Beside it, so TypeScript reads a one-line declaration instead of parsing megabytes of data. */
export const MCP_MODULE_TYPES_PATH = '.content-index/worker/mcp-data.d.mts';

const HEADER =
  '// Written by `content-index build`: the data the /mcp Function serves. Do not edit; rebuild instead.\n// @ts-nocheck\n';

/**
 * The module's text: one default export. Its large values are string literals (see embedded.ts), which
 * JSON.stringify writes as valid JavaScript; the small structured parts are parsed from JSON, so no key
 * (not even `__proto__`) means anything but itself.
 */
export function renderMcpModule(data: McpModule | DevPointer): string {
  const parts = Object.entries(data).map(([key, value]) => {
    const literal =
      typeof value === 'string' || typeof value === 'number'
        ? JSON.stringify(value)
        : `JSON.parse(${JSON.stringify(JSON.stringify(value))})`;
    return `  ${JSON.stringify(key)}: ${literal},`;
  });
  return `${HEADER}export default {\n${parts.join('\n')}\n};\n`;
}

export const MCP_MODULE_TYPES = `${HEADER}declare const data: unknown;\nexport default data;\n`;

/**
 * Checks an imported module just enough to fail with a clear message instead of a TypeError: a module
 * written by another release of content-index has another format.
 */
export function parseMcpModule(value: unknown): McpModule | DevPointer {
  const data = value as Partial<McpModule> | Partial<DevPointer> | null;
  if (typeof data !== 'object' || data === null || data.format !== MCP_DATA_FORMAT) {
    throw new Error(
      `${MCP_MODULE_PATH} has another format (expected ${MCP_DATA_FORMAT}): it was written by another version of content-index; rebuild the site with content-index build`,
    );
  }
  if (data.backend === 'dev' && 'url' in data && typeof data.url === 'string') return data as DevPointer;
  if (
    !('info' in data) ||
    typeof data.info !== 'object' ||
    (data.backend !== 'embedded' && data.backend !== 'd1')
  ) {
    throw new Error(`${MCP_MODULE_PATH} is incomplete; rebuild the site with content-index build`);
  }
  return data as McpModule;
}
