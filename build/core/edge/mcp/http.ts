import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpHttpHandler,
  originValidationResponse,
  readRequestBody,
  validateHostHeader,
} from '@modelcontextprotocol/server';
import type { LoadedMcp } from './backend.ts';
import { REQUEST_LIMITS, type RequestLimits } from './budget.ts';
import { describeServer, SERVER_CARD_MEDIA_TYPE, serverCard } from './describe.ts';
import type { FastToolCall } from './fast-call.ts';
import { prepareServer } from './server.ts';

export interface McpHttpOptions {
  /**
   * The data and backend to serve: ready now (embedded: the Function prepares it at startup, and the
   * server is set up here, before any request), or made from the first request's environment (D1: the
   * binding lives in `env`). A throw is answered 503, with the message logged, and tried again on the
   * next request.
   */
  mcp: LoadedMcp | ((request: Request, env: Record<string, unknown>) => LoadedMcp | Promise<LoadedMcp>);
  log(message: string): void;
  /**
   * With the data ready now, run the tools once before the first request (server.ts `warmUp`; `data:
   * false` leaves out those that read data): the Function does, at startup. Default: no warm-up (tests
   * and stdio have no use for it).
   */
  warmUp?: { data: boolean; done?: () => void };
  /** The per-request budget's limits (tests set small ones); REQUEST_LIMITS otherwise. */
  limits?: RequestLimits;
  /**
   * `false`: the SDK answers every request, the ordinary tools/call included (fast-call.ts); the tests
   * compare the two. Default true.
   */
  fastCall?: boolean;
}

export const MCP_PATH = '/mcp';

const SDK_ONLY: FastToolCall = { answer: async () => undefined };

/**
 * The largest request body the endpoint reads: 256 KiB. The biggest message a client has reason to send
 * here is a batch of tool calls with 200-character queries: even 100 of them (ten times what the budget
 * runs, budget.ts) are well under 64 KiB. The SDK's own default, 4 MiB, takes tens of milliseconds of
 * CPU to parse: more than a free-plan request's whole budget. A larger declared Content-Length is
 * refused unread (413); a streamed body is read only up to the limit. The stdio command holds a line to
 * the same limit.
 */
export const MAX_REQUEST_BYTES = 256 * 1024;
const CARD_PATH = '/mcp/server-card';

/** A reason the endpoint cannot serve that a client may read (the data or the database is not there yet). */
export class McpUnavailable extends Error {}

interface Ready {
  mcp: LoadedMcp;
  handler: McpHttpHandler;
  fastCall: FastToolCall;
}

/**
 * The whole `/mcp` endpoint as a fetch handler, for the Pages Function to mount. The server is set up on
 * the first request and kept for the isolate's lifetime; a failed set-up is not kept, so the next
 * request tries again.
 */
export function createMcpFetch(
  options: McpHttpOptions,
): (request: Request, env?: Record<string, unknown>) => Promise<Response> {
  const setUp = (mcp: LoadedMcp): Ready => {
    const server = prepareServer(mcp, {
      budget: 'request',
      ...(options.limits !== undefined && { limits: options.limits }),
    });
    if (options.warmUp && typeof options.mcp !== 'function') {
      const { done } = options.warmUp;
      server.warmUp(options.warmUp).then(done, (error: unknown) => {
        options.log(
          `content-index mcp: warm-up failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        done?.();
      });
    }
    return {
      mcp,
      fastCall: options.fastCall === false ? SDK_ONLY : server.fastCall,
      handler: createMcpHandler(server.factory, {
        onerror: (error) => options.log(`content-index mcp: ${error.message}`),
        maxRequestBodySize: MAX_REQUEST_BYTES,
      }),
    };
  };
  const { mcp } = options;
  let ready: Ready | Promise<Ready> | undefined = typeof mcp === 'function' ? undefined : setUp(mcp);
  const prepare = (request: Request, env: Record<string, unknown>): Ready | Promise<Ready> => {
    if (ready !== undefined || typeof mcp !== 'function') return ready as Ready;
    const pending = (async () => setUp(await mcp(request, env)))();
    ready = pending;
    pending.then(
      (done) => {
        ready = done;
      },
      () => {
        ready = undefined;
      },
    );
    return pending;
  };

  return async (request, env = {}) => {
    let state: Ready;
    try {
      state = await prepare(request, env);
    } catch (error) {
      options.log(`content-index mcp: ${error instanceof Error ? error.message : String(error)}`);
      return unavailable(
        error instanceof McpUnavailable ? error.message : 'The MCP server cannot serve right now.',
      );
    }
    // A refusal carries no CORS headers: the page that caused it has no business reading it.
    const refused = checkHostAndOrigin(request, state.mcp.info.site.hosts);
    if (refused) return withHeaders(refused, SECURITY_HEADERS);
    return withHeaders(await route(request, state), { ...CORS_HEADERS, ...SECURITY_HEADERS });
  };
}

/**
 * DNS-rebinding defence. A `Host` must be the site's, a configured one, or loopback; public hosts take
 * any `Origin` (the content is public and read-only), while a loopback host refuses pages from other
 * origins, which is what a rebinding attack looks like.
 */
function checkHostAndOrigin(request: Request, hosts: readonly string[]): Response | undefined {
  const loopback = localhostAllowedHostnames();
  const host = validateHostHeader(request.headers.get('host'), loopback);
  if (host.ok) return originValidationResponse(request, localhostAllowedOrigins());
  const name = host.hostname;
  if (name && hosts.some((allowed) => matchesHost(name, allowed))) return undefined;
  return hostHeaderValidationResponse(request, [...loopback, ...hosts.filter((h) => !h.startsWith('*.'))]);
}

function matchesHost(hostname: string, allowed: string): boolean {
  return allowed.startsWith('*.') ? hostname.endsWith(allowed.slice(1)) : hostname === allowed;
}

async function route(request: Request, ready: Ready): Promise<Response> {
  const { mcp, handler } = ready;
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const endpoint = `${url.origin}${MCP_PATH}`;
  if (request.method === 'OPTIONS')
    return preflight(request, path === CARD_PATH ? CARD_METHODS : MCP_METHODS);
  if (path === CARD_PATH) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed(CARD_METHODS);
    return json(serverCard(mcp.info, endpoint), 200, {
      'Content-Type': `${SERVER_CARD_MEDIA_TYPE}; charset=utf-8`,
      'Cache-Control': 'public, max-age=3600',
    });
  }
  if (path !== MCP_PATH) {
    return json({ error: 'not_found', message: `Nothing here; the MCP endpoint is ${endpoint}` }, 404);
  }
  // A GET that asks for an event stream is an MCP client; the SDK answers it (405: there is no stream).
  const wantsStream = (request.headers.get('accept') ?? '').includes('text/event-stream');
  if ((request.method === 'GET' || request.method === 'HEAD') && !wantsStream) {
    return json(describeServer(mcp.info, endpoint), 200, { 'Cache-Control': 'public, max-age=300' });
  }
  if (request.method === 'POST' && isJsonContentType(request.headers.get('content-type'))) {
    return post(request, ready);
  }
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'POST') {
    // DELETE (a session's end) included: a stateless server has no session to end.
    return withHeaders(
      rpcError(405, -32000, `Method Not Allowed: ${MCP_PATH} answers ${MCP_METHODS} (it keeps no sessions)`),
      { Allow: MCP_METHODS },
    );
  }
  const answered = await handler.fetch(request);
  // The SDK's own 405 (a GET asking for an event stream, which this server does not offer) names only
  // POST; the endpoint's methods are the same whatever was refused.
  return answered.status === 405 ? withHeaders(answered, { Allow: MCP_METHODS }) : answered;
}

/**
 * What `/mcp` answers, said the same way by the preflight, every 405's `Allow` and docs/mcp.md: GET
 * (and HEAD) describe the server, POST carries the protocol, OPTIONS is the CORS preflight.
 */
export const MCP_METHODS = 'GET, HEAD, POST, OPTIONS';
const CARD_METHODS = 'GET, HEAD, OPTIONS';

/**
 * A JSON POST: its body read here (within the size limit) so that a batch can be refused as a whole
 * before any of it runs (budget.ts `batch`; the SDK's own limit is 100), then handed to the SDK parsed,
 * which spares it reading and parsing the body again, unless it is the ordinary tools/call of the
 * current revision, answered as the SDK would without a server per request (fast-call.ts). A body that
 * is not JSON goes to the SDK as it came, for the SDK's own parse error.
 */
async function post(request: Request, { handler, fastCall }: Ready): Promise<Response> {
  let text: string;
  try {
    const body = await readRequestBody(request, MAX_REQUEST_BYTES);
    if (body.tooLarge) {
      return rpcError(
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${MAX_REQUEST_BYTES} bytes`,
      );
    }
    text = body.text;
  } catch {
    return rpcError(400, -32700, 'Parse error: the request body could not be read');
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(text);
  } catch {
    return handler.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body: text }));
  }
  const { batch } = REQUEST_LIMITS;
  const revision = request.headers.get('mcp-protocol-version');
  if (Array.isArray(parsedBody) && revision !== null && !BATCH_REVISIONS.has(revision)) {
    return rpcError(
      400,
      -32600,
      `Invalid Request: protocol revision ${revision} has no JSON-RPC batches (only 2025-03-26 had them); none was run. Send one message per request.`,
    );
  }
  if (Array.isArray(parsedBody) && parsedBody.length > batch) {
    return rpcError(
      400,
      -32600,
      `Invalid Request: Batch must not exceed ${batch} messages (this one has ${parsedBody.length}); none was run. Send them in several requests.`,
    );
  }
  const headers = request.headers;
  const answer = await fastCall.answer(parsedBody, {
    protocolVersion: headers.get('mcp-protocol-version'),
    method: headers.get('mcp-method'),
    name: headers.get('mcp-name'),
    accept: headers.get('accept'),
  });
  if (answer !== undefined) {
    return new Response(answer, { status: 200, headers: { 'content-type': 'application/json' } });
  }
  return handler.fetch(request, { parsedBody });
}

/**
 * The revisions whose clients may send a JSON-RPC batch: 2025-03-26 added them, 2025-06-18 removed them
 * (and 2024-11-05, JSON-RPC's own rule). A request without the header is taken for 2025-03-26, as the
 * specification says.
 */
const BATCH_REVISIONS = new Set(['2024-11-05', '2025-03-26']);

function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

function preflight(request: Request, methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': methods,
      // MCP clients send protocol headers (Mcp-Protocol-Version, Mcp-Method, Mcp-Param-*…); allow what is asked.
      'Access-Control-Allow-Headers':
        request.headers.get('access-control-request-headers') ??
        'Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
      'Access-Control-Max-Age': '86400',
    },
  });
}

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
};

/** On every answer, refusals and errors included: a browser must never guess another type for it. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff' };

function withHeaders(response: Response, extra: Record<string, string>): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function methodNotAllowed(allow: string): Response {
  return json({ error: 'method_not_allowed', message: `Use ${allow}` }, 405, { Allow: allow });
}

/** 503 with a JSON body a client can read, never a 500: the endpoint cannot serve, and says why. */
export function unavailable(message: string, retryAfterSeconds = 60): Response {
  return json({ error: 'mcp_unavailable', message }, 503, { 'Retry-After': String(retryAfterSeconds) });
}

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body, null, 2)}\n`, {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...SECURITY_HEADERS, ...headers },
  });
}
