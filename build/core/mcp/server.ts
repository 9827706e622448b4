import { type CallToolResult, McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import packageJson from '../../../package.json' with { type: 'json' };
import type { McpData } from './mcp-data.ts';
import { standardSchema } from './standard-schema.ts';
import { type LoadedMcp, TOOL_ANNOTATIONS, TOOLS } from './tools.ts';

/** The current revision first, then the 2025 revisions served through the SDK's stateless fallback. */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18'] as const;

export const SERVER_VERSION: string = packageJson.version;

export interface ServerIdentity {
  /** Reverse-DNS of the site plus `/content-index`, as the server card requires (`com.example/content-index`). */
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl: string;
}

export function serverIdentity(data: McpData): ServerIdentity {
  const host = new URL(data.site.site).hostname;
  const title = data.site.name ?? host;
  return {
    name: `${host.split('.').reverse().join('.')}/content-index`,
    title,
    version: SERVER_VERSION,
    description: clamp(`Search and list the posts, projects and tips of ${title} in es, en and pt-br.`, 100),
    websiteUrl: data.site.site,
  };
}

const INSTRUCTIONS =
  'Read-only access to the content index of a trilingual site (es canonical, en, pt-br). Use search_content to find items by topic, list_content to browse or filter them, content_stats for an overview.';

const LIST_CACHE = { ttlMs: 300_000, cacheScope: 'public' } as const;

/**
 * One factory for every era and transport: `createMcpHandler` calls it per HTTP request and `serveStdio`
 * per connection. The schemas are prepared once here, not per request.
 */
export function createServerFactory(mcp: LoadedMcp): McpServerFactory {
  const validator = new CfWorkerJsonSchemaValidator();
  const identity = serverIdentity(mcp.data);
  const tools = TOOLS.map((tool) => ({
    tool,
    input: standardSchema<Record<string, unknown>>(tool.inputSchema),
    // Answers are checked against the output schema, but not its `format`s: every address and date in
    // them comes from the build, which validated them against the same published schema. cfworker's
    // `uri` check compiles a 3 KB regular expression on first use, a fifth of a cold call at 1,000 items.
    output: standardSchema<Record<string, unknown>>(tool.outputSchema, { formats: false }),
  }));
  return () => {
    const server = new McpServer(identity, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: [...PROTOCOL_VERSIONS],
      jsonSchemaValidator: validator,
      // The tool list and the server identity change only with a redeploy, and are the same for everyone.
      cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
    });
    for (const { tool, input, output } of tools) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: input,
          outputSchema: output,
          annotations: TOOL_ANNOTATIONS,
        },
        async (args: Record<string, unknown>): Promise<CallToolResult> => {
          const result = tool.run(mcp, args);
          return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
        },
      );
    }
    return server;
  };
}

function clamp(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
