import type { StandardSchemaV1 } from '@modelcontextprotocol/server';
import { RequestBudget, type RequestLimits } from './budget.ts';
import { callTool, type LoadedMcp, type ToolDefinition } from './tools.ts';

/**
 * The request agents send most, answered without the SDK's per-request server: one `tools/call` of the
 * current revision (2026-07-28), stateless, its envelope plain. The SDK's `createMcpHandler` builds a new
 * `McpServer` for every request, by contract, and V8 keeps much of each one past the young generation's
 * collections (a tool's registration is an object literal with a getter and a setter made of fresh
 * closures, which gives every instance a map of its own in old space, holding the closures and, through
 * them, the server, its transport and the call's result). Measured at 1,000 items: 34 KB per call
 * surviving young collections, a scavenge of 16–22 ms every ~50 calls and a warm p99 of 17 ms of CPU,
 * where a call itself takes under 1 ms.
 *
 * Only a request whose every part is the ordinary one is answered here; anything else (another
 * revision, a header that does not match the body, an envelope with more than the client's name and
 * capabilities, arguments the tool's schema refuses) returns `undefined` and goes to the SDK, which
 * gives the protocol's answer or error. What is answered here is the SDK's answer byte for byte
 * (tests/mcp/fast-call.test.ts sends the same requests through both), so that a change in the SDK's
 * wire format fails a test instead of splitting the endpoint in two.
 */
export interface FastToolCall {
  /** The response body for `message`, or `undefined` when the SDK must answer it. */
  answer(message: unknown, headers: FastCallHeaders): Promise<string | undefined>;
}

export interface FastCallHeaders {
  protocolVersion: string | null;
  method: string | null;
  name: string | null;
  accept: string | null;
}

export interface FastTool {
  tool: ToolDefinition;
  input: StandardSchemaV1<Record<string, unknown>>;
}

export interface FastCallOptions {
  mcp: LoadedMcp;
  tools: readonly FastTool[];
  /** The revision answered here (the current one); the SDK answers every other. */
  revision: string;
  /** The server's identity, as the SDK puts it in every result's `_meta`. */
  serverInfo: unknown;
  limits?: RequestLimits;
}

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

export function createFastToolCall(options: FastCallOptions): FastToolCall {
  const { mcp, revision, limits } = options;
  const tools = new Map(options.tools.map((entry) => [entry.tool.name, entry]));
  // The end of every result, after its content: the SDK's order of keys.
  const resultEnd = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_KEY]: options.serverInfo })}},"jsonrpc":"2.0","id":`;
  return {
    async answer(message, headers) {
      if (headers.protocolVersion !== revision || headers.method !== 'tools/call') return undefined;
      if (!acceptsJson(headers.accept)) return undefined;
      const call = plainCall(message, revision);
      if (!call || headers.name !== call.name) return undefined;
      const entry = tools.get(call.name);
      if (!entry) return undefined;
      let input: Awaited<ReturnType<FastTool['input']['~standard']['validate']>>;
      try {
        input = await entry.input['~standard'].validate(call.arguments ?? {});
      } catch {
        // The SDK validates inside its handler, and answers what fails there.
        return undefined;
      }
      if (input.issues) return undefined;
      let content: string;
      try {
        const { text } = await callTool(entry.tool, mcp, input.value, new RequestBudget(limits));
        // `text` is the result's JSON, which is also its structured content's.
        content = `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}`;
      } catch (error) {
        // As the SDK's McpServer answers a tool that throws: the message, as a tool error.
        const reason = error instanceof Error ? error.message : String(error);
        content = `{"content":[{"type":"text","text":${JSON.stringify(reason)}}],"isError":true`;
      }
      return `{"result":${content}${resultEnd}${JSON.stringify(call.id)}}`;
    },
  };
}

interface PlainCall {
  id: string | number;
  name: string;
  arguments?: unknown;
}

/** `message` as a tools/call with nothing out of the ordinary, or undefined. */
function plainCall(message: unknown, revision: string): PlainCall | undefined {
  if (!isPlainObject(message) || !onlyKeys(message, MESSAGE_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAMS_KEYS)) return undefined;
  if (typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  if (!plainEnvelope(params._meta, revision)) return undefined;
  return { id, name: params.name, arguments: params.arguments };
}

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_KEY, CLIENT_INFO_KEY, CLIENT_CAPABILITIES_KEY]);
const CLIENT_INFO_KEYS = new Set(['name', 'title', 'version', 'description', 'websiteUrl']);

/**
 * The per-request envelope of the revision: the version, the client's name and its capabilities, and
 * nothing else (a progress token, for one, asks for a stream the SDK would open).
 */
function plainEnvelope(meta: unknown, revision: string): boolean {
  if (!isPlainObject(meta) || !onlyKeys(meta, ENVELOPE_KEYS)) return false;
  if (meta[PROTOCOL_VERSION_KEY] !== revision) return false;
  const client = meta[CLIENT_INFO_KEY];
  if (!isPlainObject(client) || !onlyKeys(client, CLIENT_INFO_KEYS)) return false;
  if (typeof client.name !== 'string' || typeof client.version !== 'string') return false;
  if (!Object.values(client).every((value) => typeof value === 'string')) return false;
  return plainCapabilities(meta[CLIENT_CAPABILITIES_KEY]);
}

/**
 * Client capabilities the SDK's schema of the revision accepts (its `ClientCapabilities2026Schema`):
 * `experimental` and `extensions` map names to objects; `sampling`'s `context` and `tools`, and
 * `elicitation`'s `form` and `url`, are objects; `roots.listChanged` and `form.applyDefaults` are
 * booleans; other names are not read. Any other shape is the SDK's to refuse.
 */
function plainCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const { experimental, extensions, sampling, elicitation, roots } = value;
  for (const map of [experimental, extensions]) {
    if (map !== undefined && !(isPlainObject(map) && Object.values(map).every(isPlainObject))) return false;
  }
  if (sampling !== undefined) {
    if (!isPlainObject(sampling) || !optionalObject(sampling.context) || !optionalObject(sampling.tools))
      return false;
  }
  if (elicitation !== undefined) {
    if (!isPlainObject(elicitation) || !optionalObject(elicitation.url)) return false;
    const { form } = elicitation;
    if (form !== undefined && !(isPlainObject(form) && optionalBoolean(form.applyDefaults))) return false;
  }
  return roots === undefined || (isPlainObject(roots) && optionalBoolean(roots.listChanged));
}

function optionalObject(value: unknown): boolean {
  return value === undefined || isPlainObject(value);
}

function optionalBoolean(value: unknown): boolean {
  return value === undefined || typeof value === 'boolean';
}

/** The SDK answers `tools/call` as JSON to a client that accepts it. */
function acceptsJson(accept: string | null): boolean {
  return accept !== null && /(^|,)\s*application\/json\s*(;|,|$)/i.test(accept);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
