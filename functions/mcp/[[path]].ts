// Pages Function for /mcp and /mcp/*: the MCP server (list_content, search_content, content_stats).
// Written by `content-index init`; the handler ships in the content-index package, and its data is the
// module `content-index build` writes into the site's private folder, which wrangler bundles in.
import { createMcpFunction } from 'content-index/functions/mcp';
// If wrangler cannot resolve this import, the site has not been built yet: run the build first.
import data from '../../.content-index/worker/mcp-data.mjs';

export const onRequest = createMcpFunction(data);
