// The /mcp and /mcp/* Pages Function a site's `functions/mcp/[[path]].ts` re-exports (`content-index
// init` writes that file). The endpoint lives in core/mcp/http.ts, shared with the stdio command.
import { createMcpFetch } from '../core/mcp/http.ts';
import { MCP_DATA_PATH } from '../core/mcp/mcp-data.ts';

export interface McpFunctionEnv {
  ASSETS: { fetch(input: Request | string): Promise<Response> };
}

// Module scope lives as long as the isolate: the data file and search index load once, not per request.
let serve: ((request: Request) => Promise<Response>) | undefined;

export function onRequest({ request, env }: { request: Request; env: McpFunctionEnv }): Promise<Response> {
  serve ??= createMcpFetch({
    loadData: async (first) => {
      const response = await env.ASSETS.fetch(new URL(`/${MCP_DATA_PATH}`, first.url).href);
      if (!response.ok) throw new Error(`${MCP_DATA_PATH}: HTTP ${response.status}`);
      return response.json();
    },
    log: (message) => console.log(message),
  });
  return serve(request);
}
