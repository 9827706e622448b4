import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MCP_PACKED_PATH, packedModuleMeta } from '../core/edge/mcp/worker-module.ts';

/**
 * The default export of the data module a build wrote (`file`: its mcp-data.mjs), as the Function gets
 * it: the embedded backend's module imports its bytes as a binary module, which Node cannot import, so
 * those bytes are read from beside it; any other module (D1's, dev's pointer) is imported. Throws the
 * file system's error (ENOENT) when either file is missing.
 */
export async function readMcpModule(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  const meta = packedModuleMeta(text);
  if (meta) return { ...meta, packed: await readFile(join(dirname(file), basename(MCP_PACKED_PATH))) };
  // A query of its own: a module rewritten since this process imported it is imported again.
  return (await import(`${pathToFileURL(file).href}?t=${Date.now()}`)).default;
}
