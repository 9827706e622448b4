/**
 * Warm `search_content` one level below the HTTP handler: the tool function the Function's server calls
 * (`searchContent` and the JSON text of its result, as server.ts sends it), without the SDK's JSON-RPC
 * handling, argument and output validation, or Request/Response. Run by bench/mcp.ts in a fresh process
 * as `node --import tsx bench/_mcp-tool-sample.ts <public/mcp/data.json> [calls]`; prints `{ timings }`.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parseMcpData } from '../build/core/mcp/mcp-data.ts';
import { loadMcp, searchContent } from '../build/core/mcp/tools.ts';
import { SEARCH_QUERIES } from './_mcp-requests.ts';

const [file, calls = '2000'] = process.argv.slice(2);
if (!file) throw new Error('usage: _mcp-tool-sample.ts <data.json> [calls]');
const mcp = loadMcp(parseMcpData(JSON.parse(await readFile(file, 'utf8'))));
const call = (i: number) =>
  JSON.stringify(searchContent(mcp, SEARCH_QUERIES[i % SEARCH_QUERIES.length] ?? { query: 'x' }));
for (let i = 0; i < 200; i++) call(i);
const timings: number[] = [];
for (let i = 0; i < Number(calls); i++) {
  const started = performance.now();
  call(i);
  timings.push(performance.now() - started);
}
process.stdout.write(`${JSON.stringify({ timings })}\n`);
