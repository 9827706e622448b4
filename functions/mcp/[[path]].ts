// Pages Function for /mcp and /mcp/*: the MCP server (list_content, search_content, content_stats).
// Written by `content-index init`; the handler ships in the content-index package.
export { onRequest } from 'content-index/functions/mcp';
