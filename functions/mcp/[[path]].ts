// Cloudflare Pages Function for /mcp and /mcp/*: the MCP server. Thin on purpose; the endpoint lives
// in build/core/mcp/http.ts so the stdio command and the tests share it.
import { createMcpFetch } from '../../build/core/mcp/http.ts';
import { MCP_DATA_PATH } from '../../build/core/mcp/mcp-data.ts';

interface Env {
  ASSETS: { fetch(input: Request | string): Promise<Response> };
}

interface PagesContext {
  request: Request;
  env: Env;
}

// Module scope lives as long as the isolate: the data file and search index load once, not per request.
let serve: ((request: Request) => Promise<Response>) | undefined;

export function onRequest({ request, env }: PagesContext): Promise<Response> {
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
