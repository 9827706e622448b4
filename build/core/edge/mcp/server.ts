import {
  type CallToolResult,
  classifyInboundRequest,
  McpServer,
  type McpServerFactory,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import packageJson from '../../../../package.json' with { type: 'json' };
import { REQUEST_LIMITS, RequestBudget, type RequestLimits } from './budget.ts';
import { createFastToolCall, type FastToolCall } from './fast-call.ts';
import type { McpInfo } from './mcp-data.ts';
import { instructionsFor, listed, siteLanguages, siteTools } from './site-languages.ts';
import { warmUpWordClasses } from './snippet.ts';
import { publishedSchema, standardSchema } from './standard-schema.ts';
import { tokenize } from './text.ts';
import { callTool, type LoadedMcp, TOOL_ANNOTATIONS } from './tools.ts';

/**
 * The current revision first, then every earlier revision the SDK implements (its
 * `SUPPORTED_PROTOCOL_VERSIONS`: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05…), served through its
 * stateless fallback. An `initialize` is answered in the revision the client asks for when it is one of
 * these (a client of 2025-03-26, such as the TypeScript SDK 1.12, refuses any other answer), and in the
 * newest of them otherwise. Tools, the only feature served, mean the same in all of them.
 */
export const CURRENT_PROTOCOL_VERSION = '2026-07-28';
export const PROTOCOL_VERSIONS: readonly string[] = [
  CURRENT_PROTOCOL_VERSION,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

export const SERVER_VERSION: string = packageJson.version;

export interface ServerIdentity {
  /** Reverse-DNS of the site plus `/content-index`, as the server card requires (`com.example/content-index`). */
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl: string;
}

export function serverIdentity(data: McpInfo): ServerIdentity {
  const host = new URL(data.site.site).hostname;
  const title = data.site.name ?? host;
  const site = siteLanguages(data.site, data.stats.counts);
  return {
    name: `${host.split('.').reverse().join('.')}/content-index`,
    title,
    version: SERVER_VERSION,
    description: clamp(
      `Search and list the ${listed(site.kinds)} of ${title} in ${listed(site.languages)}.`,
      100,
    ),
    websiteUrl: data.site.site,
  };
}

const LIST_CACHE = { ttlMs: 300_000, cacheScope: 'public' } as const;

/**
 * One factory for every era and transport: `createMcpHandler` calls it per HTTP request and `serveStdio`
 * per connection. The schemas are prepared once here, not per request.
 */
export function createServerFactory(mcp: LoadedMcp, options: ServerOptions = {}): McpServerFactory {
  return prepareServer(mcp, options).factory;
}

export interface ServerOptions {
  /**
   * What a budget (budget.ts) covers: `request`, every call of one server instance, which is what
   * `createMcpHandler` makes per HTTP request; `call` (default), each call alone, for stdio, whose one
   * server instance lives as long as the connection.
   */
  budget?: 'request' | 'call';
  /** The budget's limits (tests set small ones); REQUEST_LIMITS otherwise. */
  limits?: RequestLimits;
}

export interface PreparedServer {
  factory: McpServerFactory;
  /** The common tools/call answered without a server per request (fast-call.ts); HTTP only. */
  fastCall: FastToolCall;
  /**
   * Runs, once, the code a tool call runs, on this build's own data, without a request: the JIT then
   * has it compiled before the first request arrives. See {@link prepareServer}.
   */
  warmUp(options: { data: boolean }): Promise<void>;
}

/**
 * The factory, and a warm-up for the Function to run at startup. A fresh isolate's first call otherwise
 * pays for compiling every function on its path (the SDK's message schemas, the JSON Schema
 * validators, the search), three times what the call itself costs; startup is the cheaper place for it
 * (1 s allowed, against a request's 10 ms of CPU). The runtime allows no request, body or stream there,
 * so the warm-up calls what lies behind them: message classification and parsing, each tool with its
 * argument and result validation. With `data: false` (the D1 backend) no tool that reads data runs:
 * D1 is I/O, which the global scope may not do.
 */
export function prepareServer(mcp: LoadedMcp, options: ServerOptions = {}): PreparedServer {
  const perRequest = options.budget === 'request';
  const validator = new CfWorkerJsonSchemaValidator();
  const identity = serverIdentity(mcp.info);
  const languages = siteLanguages(mcp.info.site, mcp.info.stats.counts);
  const instructions = instructionsFor(languages);
  const tools = siteTools(languages).map((tool) => ({
    tool,
    input: standardSchema<Record<string, unknown>>(tool.inputSchema),
    // Answers are published with their schema but not checked per call (standard-schema.ts).
    output: publishedSchema<Record<string, unknown>>(tool.outputSchema),
  }));
  const fastCall = createFastToolCall({
    mcp,
    tools,
    revision: CURRENT_PROTOCOL_VERSION,
    serverInfo: identity,
    ...(options.limits !== undefined && { limits: options.limits }),
  });
  const factory: McpServerFactory = () => {
    const requestBudget = perRequest ? new RequestBudget(options.limits) : undefined;
    const server = new McpServer(identity, {
      // The tool list changes only with a redeploy, and a stateless server has no stream to say so on:
      // left unset, the SDK would advertise listChanged: true.
      capabilities: { tools: { listChanged: false } },
      instructions,
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
          const budget = requestBudget ?? new RequestBudget(options.limits);
          const { result, text } = await callTool(tool, mcp, args, budget);
          return { content: [{ type: 'text', text }], structuredContent: result };
        },
      );
    }
    return server;
  };
  return {
    factory,
    fastCall,
    async warmUp({ data }) {
      warmUpWordClasses();
      await factory({} as Parameters<McpServerFactory>[0]);
      for (const [name, args, limits] of warmUpCalls(mcp, data)) {
        const prepared = tools.find((t) => t.tool.name === name);
        if (!prepared) continue;
        const message = {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args, _meta: WARM_UP_META },
        };
        for (const protocolVersionHeader of [CURRENT_PROTOCOL_VERSION, undefined]) {
          classifyInboundRequest({
            httpMethod: 'POST',
            body: message,
            ...(protocolVersionHeader && {
              protocolVersionHeader,
              mcpMethodHeader: 'tools/call',
              mcpNameHeader: name,
            }),
          } as Parameters<typeof classifyInboundRequest>[0]);
        }
        parseJSONRPCMessage(message);
        // The ordinary call's own path (fast-call.ts), for the calls with the request's usual limits; the
        // tool runs again below with the SDK's checks, which also left the first request cheaper than
        // one run alone did (11 against 13 ms of CPU at 1,000 items, measured side by side).
        if (!limits) {
          await fastCall.answer(message, {
            protocolVersion: CURRENT_PROTOCOL_VERSION,
            method: 'tools/call',
            name,
            accept: 'application/json, text/event-stream',
          });
        }
        await specTypeSchemas.CallToolRequest['~standard'].validate(message);
        const input = await prepared.input['~standard'].validate(args);
        if ('issues' in input && input.issues) continue;
        try {
          const budget = new RequestBudget({ ...REQUEST_LIMITS, ...limits });
          const { result, text } = await callTool(
            prepared.tool,
            mcp,
            (input as { value: Record<string, unknown> }).value,
            budget,
          );
          await specTypeSchemas.CallToolResult['~standard'].validate({
            content: [{ type: 'text', text }],
            structuredContent: result,
          });
          JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });
        } catch {
          // A warm-up call that fails (an argument error, a budget's refusal) has still run its code.
        }
      }
    },
  };
}

const WARM_UP_META = {
  'io.modelcontextprotocol/protocolVersion': CURRENT_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'content-index-warm-up', version: SERVER_VERSION },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * Calls shaped like real ones, on words of the site itself (the newest item's title): a whole word, a
 * prefix, a typo, two words of which one matches nothing, filters; listings with filters and a page;
 * and the budget's refusals (a search past its work, a listing past its items), with small limits.
 */
function warmUpCalls(
  mcp: LoadedMcp,
  data: boolean,
): [string, Record<string, unknown>, Partial<RequestLimits>?][] {
  const calls: [string, Record<string, unknown>, Partial<RequestLimits>?][] = [['content_stats', {}]];
  if (!data) return calls;
  const words = tokenize(mcp.info.stats.newest?.title ?? '').sort((a, b) => b.length - a.length);
  const word = words[0] ?? 'content';
  const typo = word.length >= 5 ? `${word.slice(0, 2)}${word.slice(3)}` : word;
  calls.push(
    ['list_content', { limit: 3 }],
    ['list_content', { type: 'post', lang: 'en', limit: 2 }],
    ['list_content', { technology: 'python', limit: 2 }],
    ['search_content', { query: word }],
    ['search_content', { query: word.slice(0, 4) }],
    ['search_content', { query: typo, lang: 'en' }],
    ['search_content', { query: `${word} ${words[1] ?? ''} zzqxj`, type: 'post', limit: 5 }],
    ['search_content', { query: 'de la' }],
    ['search_content', { query: word }, { searchWork: 1 }],
    ['list_content', {}, { items: 1 }],
  );
  return calls;
}

function clamp(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
