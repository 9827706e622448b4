import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeLanguage } from '../../build/core/edge/languages.ts';
import type { LoadedMcp } from '../../build/core/edge/mcp/backend.ts';
import {
  BudgetExceeded,
  REQUEST_LIMITS,
  RequestBudget,
  type RequestLimits,
  SearchWorkExceeded,
} from '../../build/core/edge/mcp/budget.ts';
import { createEmbeddedBackend, embeddedData } from '../../build/core/edge/mcp/embedded.ts';
import { createMcpFetch } from '../../build/core/edge/mcp/http.ts';
import type { SearchDocument } from '../../build/core/edge/mcp/search-fields.ts';
import { buildSearchIndex, loadSearchIndex } from '../../build/core/edge/mcp/search-index.ts';
import { searchTerms } from '../../build/core/edge/mcp/text.ts';
import { TOOL_SCHEMAS } from '../../build/core/edge/mcp/tool-schemas.ts';
import { listContent, searchContent } from '../../build/core/edge/mcp/tools.ts';
import { build } from '../../build/index.ts';
import { leadingId } from '../../build/runtime/stdio-lines.ts';
import { GENERATED, JSON_RPC_HEADERS } from '../helpers/mcp.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

const budget = (limits: Partial<RequestLimits>) => new RequestBudget({ ...REQUEST_LIMITS, ...limits });

describe('the search work a request may do', () => {
  // 3,000 items whose descriptions share the same words in three languages: what a word in every item
  // costs, as on the benchmark's synthetic sites.
  const words = [
    'modelo',
    'datos',
    'capas',
    'gradientes',
    'vector',
    'tarea',
    'entrada',
    'salida',
    'pesos',
    'sesgo',
  ];
  const documents: SearchDocument[] = Array.from({ length: 3000 }, (_, id) => ({
    id,
    text: {
      es: { title: `Guía ${id}`, description: words.join(' '), tags: [] },
      en: { title: `Guide ${id}`, description: words.join(' '), tags: [] },
      'pt-br': { title: `Guia ${id}`, description: words.join(' '), tags: [] },
    },
    tags: [],
    technologies: [],
  }));
  const index = loadSearchIndex(buildSearchIndex(documents));
  const languages = () => ['es', 'en', 'pt-br'] as const;

  it('counts every word match scored, and stops past the budget', () => {
    const one = index.search({ words: ['modelo'], limit: 10, languages });
    expect(one.total).toBe(3000);
    // Every item's posting of "model" (the Spanish and Portuguese stem) and of "modelo" (the English
    // form, which no English stemmer shortens), each read for itself and as the other's one-typo variant.
    expect(one.work).toBe(4 * 3000);
    const ten = index.search({ words: searchTerms(words.join(' ')), limit: 100, languages });
    expect(ten.work).toBeGreaterThan(30_000);
    expect(ten.work).toBeGreaterThan(REQUEST_LIMITS.searchWork);
    expect(() =>
      index.search({
        words: searchTerms(words.join(' ')),
        limit: 100,
        languages,
        meter: budget({}).searchMeter(),
      }),
    ).toThrow(SearchWorkExceeded);
  });

  it('finds with one OR pass what every word matches, and the partial matches when nothing has them all', () => {
    const all = index.search({ words: ['modelo', 'guia'], limit: 5, languages });
    expect(all.mode).toBe('all');
    expect(all.total).toBe(3000);
    const any = index.search({ words: ['modelo', 'zzqxj'], limit: 5, languages });
    expect(any.mode).toBe('any');
    expect(any.total).toBe(3000);
    // A repeated word is one word.
    expect(index.search({ words: ['modelo', 'modelo'], limit: 5, languages }).mode).toBe('all');
  });
});

describe('RequestBudget', () => {
  it('refuses the items past the limit, saying how many are left', () => {
    const b = budget({ items: 30 });
    b.claimItems('list_content', 20);
    expect(() => b.claimItems('search_content', 11)).toThrow(
      new BudgetExceeded(
        "Request budget: search_content: this request has already asked for 20 items, and one request may ask for at most 30 (the sum of its calls' limit). Send this call in another request, or lower limit to 10 or less.",
      ),
    );
    b.claimItems('search_content', 10);
    expect(() => b.claimItems('list_content', 1)).toThrow(
      "this request has already asked for 30 items, and one request may ask for at most 30 (the sum of its calls' limit). Send this call in another request.",
    );
  });

  it('refuses a result that would take the request past its bytes, counted in UTF-8', () => {
    const b = budget({ resultBytes: 1000 });
    b.chargeResult('list_content', `"${'é'.repeat(300)}"`); // 602 bytes
    expect(() => b.chargeResult('search_content', `"${'x'.repeat(400)}"`)).toThrow(
      new BudgetExceeded(
        "Request budget: search_content: this result (402 bytes) would bring the request's results past 1000 bytes, the most one request may return. Send this call in another request, or ask for fewer items (limit).",
      ),
    );
    b.chargeResult('search_content', `"${'x'.repeat(396)}"`);
  });
});

describe('the tools under a budget', () => {
  let mcp: LoadedMcp;
  beforeAll(async () => {
    const { mcpPrepared } = await build({ root: PROJECT_ROOT, dryRun: true, clock: () => GENERATED });
    const data = embeddedData(mcpPrepared);
    mcp = { info: data.info, backend: createEmbeddedBackend(data) };
  });

  it('refuses a search that would score more than the work left, and later ones in the request', async () => {
    const onnx = (await mcp.backend.search({ terms: searchTerms('onnx'), limit: 10 })).work;
    const limit = onnx + 1;
    const b = budget({ searchWork: limit });
    const first = await searchContent(mcp, { query: 'onnx' }, b);
    expect(first.total).toBeGreaterThan(0);
    await expect(searchContent(mcp, { query: 'python' }, b)).rejects.toThrow(
      `Request budget: search_content: this search would score more than the 1 word matches this request had left (one request may score ${limit}): its words are in very many items. Use fewer or more specific words, or filter by type or lang; in a batch, send the other searches in separate requests.`,
    );
    await expect(searchContent(mcp, { query: 'onnx' }, b)).rejects.toThrow(
      /^Request budget: search_content: this search would score more than the 0 word matches this request had left \(one request may score \d+\): its words are in very many items\. Use fewer or more specific words, or filter by type or lang; in a batch, send the other searches in separate requests\.$/,
    );
    await expect(searchContent(mcp, { query: 'python' }, budget({ searchWork: 3 }))).rejects.toThrow(
      'Request budget: search_content: this search would score more than the 3 word matches one request may score: its words are in very many items.',
    );
  });

  it('shares one search budget among the calls of a 2025-03-26 batch (issue 24, point 12)', async () => {
    // What one search for the word scores.
    const one = (await mcp.backend.search({ terms: searchTerms('python'), limit: 10 })).work;
    expect(one).toBeGreaterThan(0);
    // Room for two such searches: the third of the batch must be refused, whatever order the SDK runs
    // the calls in (it starts them all before any answers: each used to read the whole budget first).
    const serve = createMcpFetch({
      mcp,
      log: () => undefined,
      limits: { ...REQUEST_LIMITS, searchWork: 2 * one + 1 },
    });
    const batch = [1, 2, 3, 4].map((id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search_content', arguments: { query: 'python' } },
    }));
    const response = await serve(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, Host: 'localhost', 'Mcp-Protocol-Version': '2025-03-26' },
        body: JSON.stringify(batch),
      }),
    );
    expect(response.status).toBe(200);
    const answers = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)) as { id: number; result: { isError?: boolean } });
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
    expect(answers.filter((a) => a.result.isError === true)).toHaveLength(2);
  });

  it('claims the limit asked for, defaults included, before the call runs', async () => {
    const b = budget({ items: 25 });
    await listContent(mcp, {}, b);
    await expect(searchContent(mcp, { query: 'rust' }, b)).rejects.toThrow(
      'this request has already asked for 20 items, and one request may ask for at most 25',
    );
  });
});

describe('lang in any case', () => {
  it('is accepted by the published pattern exactly when the tools (and the build) accept it', () => {
    const lang = (TOOL_SCHEMAS.list_content.input.$defs as Record<string, { pattern: string }>)
      .LanguageArgument;
    const pattern = new RegExp(lang?.pattern ?? '(?!)');
    const spelling = fc
      .tuple(
        fc.constantFrom('es', 'en', 'pt-br', 'pt_br', 'pt', 'br', 'ptbr', 'e', 'pt-', 'fr'),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        fc.constantFrom('', ' ', '-', 'x'),
      )
      .map(
        ([code, upper, extra]) => [...code].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') + extra,
      );
    fc.assert(
      fc.property(fc.oneof(spelling, fc.string()), (value) => {
        expect(pattern.test(value), value).toBe(normalizeLanguage(value) !== undefined);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the id of a message too long to read', () => {
  it('is read from the first bytes when it is a top-level member there', () => {
    expect(leadingId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"xxx')).toBe(7);
    expect(leadingId(' { "id" : "abc\\"d", "method"')).toBe('abc"d');
    expect(leadingId('{"jsonrpc":"2.0","id":-1.5e2,')).toBe(-150);
    expect(leadingId('{"jsonrpc":"2.0","id":null,')).toBeNull();
    // A nested "id" is not the request's; an id after the parameters is not read; nor a batch.
    expect(leadingId('{"method":"x","params":{"id":3,"query":"xxxx')).toBeNull();
    expect(leadingId('{"params":{"q":"}{\\"id\\":4"},"id":5,')).toBe(5);
    expect(leadingId('[{"id":1}')).toBeNull();
    // Cut off in the middle of the value: not guessed.
    expect(leadingId('{"id":12')).toBeNull();
    expect(leadingId('{"id":"ab')).toBeNull();
    expect(leadingId('{"id":true,')).toBeNull();
  });
});
