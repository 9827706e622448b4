import { CURRENT_PROTOCOL_VERSION } from '../build/core/edge/mcp/server.ts';
import type { SearchContentArgs } from '../build/core/edge/mcp/tools.ts';

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

/** A request of the "worst request" measurements: what it is, and exactly what is sent. */
export interface WorstRequest {
  name: 'issue' | 'batch' | 'single' | 'accepted';
  label: string;
  headers: Record<string, string>;
  body: string;
}

/** What a 2025-03-26 client sends (no protocol header): the one revision with JSON-RPC batches. */
const BATCH_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/**
 * Words of the synthetic sites that are in every item (the titles' "Guía", "guide", the opening words
 * every description shares) and in a tenth of them (the topics): ten-word queries of these are the
 * costliest a search can be there.
 */
const COSTLY_WORDS = [
  'guía',
  'modelo',
  'aprende',
  'representación',
  'datos',
  'gradientes',
  'capas',
  'guide',
  'model',
  'learns',
  'representation',
  'gradients',
  'layers',
  'representação',
  'camadas',
  'aprendizaje',
  'automático',
  'neuronales',
  'programación',
  'transformers',
  'embeddings',
  'recuperación',
  'optimización',
  'evaluación',
  'procesamiento',
];

function tenWords(i: number): string {
  return Array.from({ length: 10 }, (_, k) => COSTLY_WORDS[(i + k * 3) % COSTLY_WORDS.length]).join(' ');
}

function batchCall(id: number, args: object) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_content', arguments: args } };
}

/**
 * The requests whose CPU the budget (build/core/edge/mcp/budget.ts) bounds: the one of issue 12 (one batch
 * of 100 ten-word searches with `limit: 100`, about 22 KB here), the largest batch accepted with the
 * same searches, one such search alone (2026-07-28), and the heaviest the budget lets through: a batch
 * of 10 whose first two searches (two words in every item, then one) score about 31,000 matches and
 * return 100 items each, all the items a request may have, so the eight ten-word searches after them are
 * refused before they run.
 */
export function worstRequests(): WorstRequest[] {
  const issue = Array.from({ length: 100 }, (_, i) => batchCall(i, { query: tenWords(i), limit: 100 }));
  return [
    {
      name: 'issue',
      label: '100 ten-word searches, limit 100, one batch',
      headers: BATCH_HEADERS,
      body: JSON.stringify(issue),
    },
    {
      name: 'batch',
      label: 'the same, 10 of them (the largest batch)',
      headers: BATCH_HEADERS,
      body: JSON.stringify(issue.slice(0, 10)),
    },
    {
      name: 'single',
      label: 'one of them alone (2026-07-28)',
      headers: toolCallHeaders('search_content'),
      body: toolCallBody(0, 'search_content', { query: tenWords(0), limit: 100 }),
    },
    {
      name: 'accepted',
      label: `"${WORST_CASE_QUERY.query} modelo" and "${WORST_CASE_QUERY.query}", limit 100, then 8 of them (the heaviest let through)`,
      headers: BATCH_HEADERS,
      body: JSON.stringify([
        batchCall(0, { query: `${WORST_CASE_QUERY.query} modelo`, limit: 100 }),
        batchCall(1, { ...WORST_CASE_QUERY, limit: 100 }),
        ...issue.slice(2, 10),
      ]),
    },
  ];
}
