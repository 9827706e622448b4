import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { ContentIndexError } from '../core/errors.ts';
import { MCP_DATA_PATH, type McpData, parseMcpData } from '../core/mcp/mcp-data.ts';
import { createServerFactory } from '../core/mcp/server.ts';
import { loadMcp } from '../core/mcp/tools.ts';
import { type BuildOptions, build, type Logger } from '../index.ts';

export interface McpStdioOptions {
  root?: string;
  /** Built output folder to read `mcp/data.json` from. Default: `public`. */
  publicDir?: string;
  /** Build the content in memory instead of reading a built output folder. */
  sources?: Omit<BuildOptions, 'root' | 'dryRun' | 'logger'>;
  stdin: Readable;
  stdout: Writable;
  /** Human messages; never stdout, which carries the protocol. */
  logger: Logger;
}

/** Serves the MCP tools over stdio until the client closes stdin. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const { data, from } = options.sources ? await fromSources(options) : await fromPublic(options);
  const handle = serveStdio(createServerFactory(loadMcp(data)), {
    transport: new StdioServerTransport(options.stdin, options.stdout),
    onerror: (error) => options.logger.warn(`content-index mcp: ${error.message}`),
  });
  options.logger.info(`content-index mcp: serving ${data.entries.length} items from ${from} over stdio`);
  await new Promise<void>((done) => {
    options.stdin.once('end', done);
    options.stdin.once('close', done);
  });
  await handle.close();
}

async function fromPublic(options: McpStdioOptions): Promise<{ data: McpData; from: string }> {
  const root = resolve(options.root ?? '.');
  const file = resolve(root, options.publicDir ?? 'public', MCP_DATA_PATH);
  const inside = relative(root, file);
  const shown = inside.startsWith('..') ? file : inside;
  try {
    return { data: parseMcpData(JSON.parse(await readFile(file, 'utf8'))), from: shown };
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message;
    throw new ContentIndexError([
      {
        code: 'source_unreadable',
        file: shown,
        message: `cannot read the MCP data: ${reason}`,
        hint: 'run content-index build first (or pass --public DIR), or pass --sources to serve content/ without building',
      },
    ]);
  }
}

async function fromSources(options: McpStdioOptions): Promise<{ data: McpData; from: string }> {
  const result = await build({ ...options.sources, root: options.root, dryRun: true });
  // A dry run still renders every file: the data the Function would serve is among them.
  const file = result.files.find((f) => f.path === MCP_DATA_PATH);
  if (!file) throw new Error(`the build rendered no ${MCP_DATA_PATH}`);
  return { data: parseMcpData(JSON.parse(file.content)), from: options.sources?.content ?? 'content' };
}
