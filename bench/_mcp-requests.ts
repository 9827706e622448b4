import { CURRENT_PROTOCOL_VERSION } from '../build/core/mcp/server.ts';
import type { SearchContentArgs } from '../build/core/mcp/tools.ts';

/**
 * What the MCP benchmarks send: the stateless `tools/call` POST a 2026-07-28 client sends (as captured
 * from `@modelcontextprotocol/client`: the per-request `_meta` envelope and the standard headers), over
 * a set of queries shaped like real ones against the synthetic sites of `generate-site.ts`.
 */
export const PROTOCOL_VERSION = CURRENT_PROTOCOL_VERSION;

/**
 * Accents given and left out, prefixes, typos, several words, common words, filters, and words that
 * match nothing (the costliest path: every word together, then apart). The synthetic sites use ten
 * topics, twelve tags and ten technologies, so each of these words is in 5 to 25% of the items, more
 * than most words on a real site.
 *
 * Left out: the words the generator puts in every item ("Guía de … nº N", and the same twelve words
 * opening every description: modelo, datos, capas…), or that reach them by prefix or typo (modelos).
 * No word of a real site is in every item apart from common words, which are not indexed (see
 * stop-words.ts); {@link WORST_CASE_QUERY} measures what such a word costs.
 */
export const SEARCH_QUERIES: readonly SearchContentArgs[] = [
  { query: 'programación' },
  { query: 'programacion' },
  { query: 'aprendizaje automatico' },
  { query: 'machine learning' },
  { query: 'aprendizado de máquina', lang: 'pt-br' },
  { query: 'redes neuronales pytorch' },
  { query: 'neural networks', type: 'post' },
  { query: 'embed' },
  { query: 'optim' },
  { query: 'transformrs' },
  { query: 'recuperacion aumentada' },
  { query: 'visão computacional' },
  { query: 'vision por computadora', type: 'project' },
  { query: 'otimizacao' },
  { query: 'evaluación', limit: 5 },
  { query: 'language procesing' },
  { query: 'rust' },
  { query: 'programación en python' },
  { query: 'kubernetes' },
  { query: 'rag en producción' },
  { query: 'PyTorch TensorFlow', type: 'project' },
  { query: 'tutorial gpu' },
  { query: 'nlp', lang: 'en' },
  { query: 'mlops rendimiento', limit: 20 },
];

/** A word in every Spanish and Portuguese title of the synthetic sites: the worst a query can do. */
export const WORST_CASE_QUERY: SearchContentArgs = { query: 'guía' };

export const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'Mcp-Protocol-Version': PROTOCOL_VERSION,
  'Mcp-Method': 'tools/call',
} as const;

export function toolCallHeaders(tool: string): Record<string, string> {
  return { ...MCP_HEADERS, 'Mcp-Name': tool };
}

export function toolCallBody(id: number, tool: string, args: object): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'content-index-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The `search_content` call as the Function receives it (the runtime builds the Request; Host is the site's). */
export function searchRequest(endpoint: string, id: number, args: SearchContentArgs): Request {
  const request = new Request(endpoint, {
    method: 'POST',
    headers: toolCallHeaders('search_content'),
    body: toolCallBody(id, 'search_content', args),
  });
  // Node's fetch leaves Host to the connection; the handler checks it, as workerd's request carries it.
  request.headers.set('Host', new URL(endpoint).host);
  return request;
}
