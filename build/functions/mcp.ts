// What a site's `functions/mcp/[[path]].ts` (written by `content-index init`) builds the /mcp and /mcp/*
// Pages Function from: `export const onRequest = createMcpFunction(data)`, with `data` the module
// `content-index build` writes into the site's private folder (.content-index/worker/mcp-data.mjs). The
// endpoint lives in core/edge/mcp/function.ts and http.ts, shared with the stdio command.
import { createMcpFunction as create, type McpFunctionContext } from '../core/edge/mcp/function.ts';

export type { McpFunctionContext } from '../core/edge/mcp/function.ts';

/**
 * The Function's `onRequest`, made in its global scope: everything that can be done before a request
 * (loading the embedded index, setting the server up, a warm-up) is done there, once per isolate.
 */
export function createMcpFunction(data: unknown): (context: McpFunctionContext) => Promise<Response> {
  return create(data, { log: (message) => console.log(message) });
}
