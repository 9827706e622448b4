import type { McpInfo } from './mcp-data.ts';
import { PROTOCOL_VERSIONS, serverIdentity } from './server.ts';
import { siteLanguages, siteTools } from './site-languages.ts';
import { TOOL_ANNOTATIONS, TOOLS } from './tools.ts';

/** The experimental server-card extension's schema (SEP-2127, modelcontextprotocol/experimental-ext-server-card). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
// Here, not in this module, so that the OpenAPI document names it without loading the MCP SDK.
export { SERVER_CARD_MEDIA_TYPE } from '../http-headers.ts';

/** The tools exactly as `tools/list` lists them: built from the same definitions as the server. */
function toolList(data: McpInfo) {
  return siteTools(siteLanguages(data.site, data.stats.counts)).map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: TOOL_ANNOTATIONS,
  }));
}

/**
 * What a browser or crawler gets from `GET /mcp`: enough to understand the server and to configure a
 * client without reading any documentation. `endpoint` is the origin the request reached.
 */
export function describeServer(data: McpInfo, endpoint: string) {
  const identity = serverIdentity(data);
  const key = identity.title
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return {
    name: identity.name,
    title: identity.title,
    version: identity.version,
    description: identity.description,
    endpoint,
    transport: {
      type: 'streamable-http',
      methods: ['POST'],
      sse: false,
      note: 'Stateless: send JSON-RPC with POST. There is no SSE stream, so GET with Accept: text/event-stream answers 405.',
    },
    protocol_versions: [...PROTOCOL_VERSIONS],
    tools: toolList(data),
    server_card: `${endpoint}/server-card`,
    // The alias follows the latest version, so this never points at a withdrawn (410) route.
    content_index: new URL('api/content.json', data.site.site).href,
    documentation: data.site.documentation,
    generated: data.generated,
    client_configuration: {
      http: { mcpServers: { [key || 'content-index']: { type: 'http', url: endpoint } } },
      stdio: {
        mcpServers: {
          [key || 'content-index']: { command: 'npx', args: ['content-index', 'mcp'] },
        },
      },
    },
  };
}

/** `GET /mcp/server-card`: identity and connection details only, as the extension prescribes; tool names go in `_meta`. */
export function serverCard(data: McpInfo, endpoint: string) {
  const identity = serverIdentity(data);
  const namespace = identity.name.split('/')[0];
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: identity.name,
    version: identity.version,
    title: identity.title.slice(0, 100),
    description: identity.description,
    websiteUrl: identity.websiteUrl,
    remotes: [{ type: 'streamable-http', url: endpoint, supportedProtocolVersions: [...PROTOCOL_VERSIONS] }],
    _meta: { [`${namespace}/tools`]: TOOLS.map((tool) => tool.name) },
  };
}
