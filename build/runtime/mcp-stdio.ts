import { relative, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { LoadedMcp } from '../core/edge/mcp/backend.ts';
import { createEmbeddedBackend, type EmbeddedData, embeddedData } from '../core/edge/mcp/embedded.ts';
import { MAX_REQUEST_BYTES } from '../core/edge/mcp/http.ts';
import { createServerFactory } from '../core/edge/mcp/server.ts';
import { MCP_MODULE_PATH, parseMcpModule } from '../core/edge/mcp/worker-module.ts';
import { ContentIndexError } from '../core/errors.ts';
import { type BuildOptions, build, type Logger } from '../index.ts';
import { FragmentStore, StoreDamage } from '../stages/fragment-store.ts';
import { readHugoPublication } from './hugo-rules.ts';
import { readMcpModule } from './read-mcp-module.ts';
import { LineLimit } from './stdio-lines.ts';

export interface McpStdioOptions {
  /** The project whose last build is served. Default: the current folder. */
  root?: string;
  /** Build the content in memory instead of serving the last build. */
  sources?: Omit<BuildOptions, 'root' | 'dryRun' | 'logger'>;
  stdin: Readable;
  stdout: Writable;
  /** Human messages; never stdout, which carries the protocol. */
  logger: Logger;
}

/** Serves the MCP tools over stdio until the client closes stdin. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  const { mcp, from } = options.sources
    ? await fromSources(options, options.sources)
    : await fromLastBuild(options);
  // Lines over the limit are answered here and never reach the transport, which would close on them;
  // so are lines it would drop unanswered (not JSON, a batch).
  const lines = options.stdin.pipe(
    new LineLimit(
      MAX_REQUEST_BYTES,
      (id) => {
        options.logger.warn(
          `content-index mcp: refused a message of more than ${MAX_REQUEST_BYTES} bytes (id ${JSON.stringify(id)})`,
        );
        options.stdout.write(`${JSON.stringify(oversizedError(id))}\n`);
      },
      (error) => {
        options.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error })}\n`);
      },
    ),
  );
  const handle = serveStdio(createServerFactory(mcp), {
    transport: new StdioServerTransport(lines, options.stdout),
    onerror: (error) => options.logger.warn(`content-index mcp: ${error.message}`),
  });
  options.logger.info(
    `content-index mcp: serving ${mcp.info.stats.counts.total} items from ${from} over stdio`,
  );
  await new Promise<void>((done) => {
    options.stdin.once('end', done);
    options.stdin.once('close', done);
  });
  await handle.close();
}

/** The answer to a message over the limit: the protocol's invalid-request error, with its id when it was read. */
export function oversizedError(id: string | number | null) {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32600,
      message: `Invalid Request: a message must not exceed ${MAX_REQUEST_BYTES} bytes (one line of JSON); this one was not read. Send smaller messages.`,
    },
  };
}

/**
 * The data module the last build wrote for the Function. A site on the D1 backend has no items in it
 * (they are in D1), so its content is built in memory instead.
 */
async function fromLastBuild(options: McpStdioOptions): Promise<{ mcp: LoadedMcp; from: string }> {
  const root = resolve(options.root ?? '.');
  const file = resolve(root, MCP_MODULE_PATH);
  const inside = relative(process.cwd(), file);
  const shown = inside.startsWith('..') ? file : inside;
  let module: unknown;
  try {
    module = await readMcpModule(file);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (error as Error).message;
    throw new ContentIndexError([
      {
        code: 'source_unreadable',
        file: shown,
        message: `cannot read the MCP data: ${reason}`,
        hint: 'run content-index build first (or pass --root DIR), or pass --sources to serve content/ without building',
      },
    ]);
  }
  let data: ReturnType<typeof parseMcpModule>;
  try {
    data = parseMcpModule(module);
  } catch (error) {
    throw new ContentIndexError([
      { code: 'source_unreadable', file: shown, message: (error as Error).message },
    ]);
  }
  if (data.backend === 'd1' || data.backend === 'dev') {
    options.logger.info(
      data.backend === 'd1'
        ? 'content-index mcp: the last build serves /mcp from D1, which is not reachable from here; building the content in memory'
        : 'content-index mcp: content-index dev is serving this project (its data is not in the module); building the content in memory',
    );
    return fromSources(options, {});
  }
  return { mcp: { info: data.info, backend: createEmbeddedBackend(data) }, from: shown };
}

async function fromSources(
  options: McpStdioOptions,
  sources: NonNullable<McpStdioOptions['sources']>,
): Promise<{ mcp: LoadedMcp; from: string }> {
  // A dry run still renders everything, the MCP material included, and writes nothing.
  const hugo = await readHugoPublication(resolve(options.root ?? '.'));
  const run = (store?: FragmentStore) =>
    build({
      ...sources,
      root: options.root,
      dryRun: true,
      deployment: false,
      ...(hugo && { hugo }),
      ...(store && { store }),
    });
  let result = await run();
  let data: EmbeddedData;
  try {
    data = embeddedData(result.mcpPrepared);
  } catch (error) {
    // The kept items' bodies are read back from the item store only now, after the build: bytes of it
    // that are not what it wrote are found here, and the content is built again without it.
    if (!(error instanceof StoreDamage)) throw error;
    result = await run(FragmentStore.memory());
    data = embeddedData(result.mcpPrepared);
  }
  return {
    mcp: { info: data.info, backend: createEmbeddedBackend(data) },
    from: sources.content ?? result.config.content.dir,
  };
}
