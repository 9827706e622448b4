import type { D1Data } from './d1-backend.ts';
import type { EmbeddedData, EmbeddedTables } from './embedded.ts';
import { MCP_DATA_FORMAT } from './mcp-data.ts';
import { PackedDataDamaged, unpackEmbedded } from './packed-data.ts';

/**
 * The module the `/mcp` Function imports, written by the build into the project's private folder
 * (`.content-index/worker/mcp-data.mjs`, never published). Wrangler bundles it into the Worker, so its
 * data is part of the deployed code: read once when an isolate starts, never fetched per request. The
 * embedded backend's data is beside it, in a binary module it imports (packed-data.ts): PackedModule.
 */
export type McpModule = EmbeddedData | EmbeddedTables | D1Data;

/** The embedded module as it is written: its data's bytes, with what they are. */
export interface PackedModule {
  format: typeof MCP_DATA_FORMAT;
  backend: 'embedded';
  /** A digest of the bytes: the module's text changes with them, so a watching wrangler reloads. */
  build: string;
  packed: ArrayBuffer | Uint8Array;
}

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
/** The embedded data's bytes, which the module imports (wrangler's default rules bundle `*.bin` as Data). */
export const MCP_PACKED_PATH = '.content-index/worker/mcp-data.bin';
const PACKED_IMPORT = "import packed from './mcp-data.bin';";
const PACKED_META = 'const meta = ';

const HEADER =
  '// Written by `content-index build`: the data the /mcp Function serves. Do not edit; rebuild instead.\n// @ts-nocheck\n';

/**
 * The module's text: one default export. Its large values are string literals (see embedded.ts), which
 * JSON.stringify writes as valid JavaScript; the small structured parts are parsed from JSON, so no key
 * (not even `__proto__`) means anything but itself.
 */
export function renderMcpModule(data: D1Data | DevPointer): string {
  const parts = Object.entries(data).map(([key, value]) => {
    const literal =
      typeof value === 'string' || typeof value === 'number'
        ? JSON.stringify(value)
        : `JSON.parse(${JSON.stringify(JSON.stringify(value))})`;
    return `  ${JSON.stringify(key)}: ${literal},`;
  });
  return `${HEADER}export default {\n${parts.join('\n')}\n};\n`;
}

/** The embedded backend's module: the bytes it imports, and what they are (`build`: their digest). */
export function renderPackedModule(build: string): string {
  const meta = { format: MCP_DATA_FORMAT, backend: 'embedded', build };
  return `${HEADER}${PACKED_IMPORT}\n${PACKED_META}${JSON.stringify(meta)};\nexport default { ...meta, packed };\n`;
}

/**
 * What a packed module's text exports, but its bytes: Node cannot import a binary module, so the
 * commands that read the last build's data (and the tests) read the bytes beside it themselves.
 * `undefined` for any other module (D1's, dev's pointer), which Node imports as it is.
 */
export function packedModuleMeta(text: string): Omit<PackedModule, 'packed'> | undefined {
  if (!text.startsWith(HEADER) || !text.includes(`\n${PACKED_IMPORT}\n`)) return undefined;
  const line = text.split('\n').find((l) => l.startsWith(PACKED_META));
  if (!line?.endsWith(';')) return undefined;
  try {
    return JSON.parse(line.slice(PACKED_META.length, -1)) as Omit<PackedModule, 'packed'>;
  } catch {
    return undefined;
  }
}

export const MCP_MODULE_TYPES = `${HEADER}declare const data: unknown;\nexport default data;\n`;

/**
 * Checks an imported module just enough to fail with a clear message instead of a TypeError: a module
 * written by another release of content-index has another format.
 */
export function parseMcpModule(value: unknown): McpModule | DevPointer {
  const data = value as Partial<McpModule> | Partial<DevPointer> | Partial<PackedModule> | null;
  const otherFormat = rebuild(
    `${MCP_MODULE_PATH} has another format (expected ${MCP_DATA_FORMAT}): it was written by another version of content-index`,
  );
  if (typeof data !== 'object' || data === null || data.format !== MCP_DATA_FORMAT) throw otherFormat;
  if (data.backend === 'dev' && 'url' in data && typeof data.url === 'string') return data as DevPointer;
  if (data.backend === 'embedded' && 'packed' in data) {
    if (!(data.packed instanceof ArrayBuffer || data.packed instanceof Uint8Array)) {
      throw rebuild(`${MCP_MODULE_PATH} is incomplete`);
    }
    let tables: EmbeddedTables;
    try {
      tables = unpackEmbedded(data.packed);
    } catch (error) {
      if (!(error instanceof PackedDataDamaged)) throw error;
      throw rebuild(`${MCP_PACKED_PATH} is damaged (${error.message})`);
    }
    // The bytes beside the module: another build's, if something other than the build put them there.
    if (tables.format !== MCP_DATA_FORMAT) throw otherFormat;
    if (typeof tables.info !== 'object' || tables.info === null) {
      throw rebuild(`${MCP_PACKED_PATH} is incomplete`);
    }
    return tables;
  }
  if (
    !('info' in data) ||
    typeof data.info !== 'object' ||
    (data.backend !== 'embedded' && data.backend !== 'd1')
  ) {
    throw rebuild(`${MCP_MODULE_PATH} is incomplete`);
  }
  return data as McpModule;
}

/** Every way the module can be unusable has the same way out. */
function rebuild(problem: string): Error {
  return new Error(`${problem}; rebuild the site with content-index build`);
}
