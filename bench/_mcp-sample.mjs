/**
 * One MCP measurement in a fresh process: fresh module state and a cold JIT, what a new isolate has.
 * bench/mcp.ts runs it as `node bench/_mcp-sample.mjs <cold|warm> <worker.js> <public/> <requests.json> [calls]`
 * and reads its figures, as JSON, from stdout.
 *
 * `worker.js` is the project's Functions as wrangler compiles them for Cloudflare (bench/_built-site.ts),
 * so the code measured is the deployed code: the Pages router, functions/mcp/[[path]].ts and the core it
 * bundles. `env.ASSETS` serves `public/` from disk, as the platform serves the Function the built files.
 * Plain JavaScript on purpose: no TypeScript loader in the process, so nothing of its cost is counted.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [mode, workerFile, publicDir, requestsFile, calls = '2000'] = process.argv.slice(2);
if ((mode !== 'cold' && mode !== 'warm') || !workerFile || !publicDir || !requestsFile) {
  throw new Error('usage: _mcp-sample.mjs <cold|warm> <worker.js> <public/> <requests.json> [calls]');
}
/** @type {{ url: string, headers: Record<string, string>, bodies: string[], worst: string }} */
const plan = JSON.parse(await readFile(requestsFile, 'utf8'));

let assetMs = 0;
const env = {
  ASSETS: {
    /** @param {Request | string} input */
    async fetch(input) {
      const started = performance.now();
      const { pathname } = new URL(typeof input === 'string' ? input : input.url);
      const bytes = await readFile(join(publicDir, pathname));
      assetMs += performance.now() - started;
      return new Response(bytes, { headers: { 'Content-Type': 'application/json' } });
    },
  },
};
const ctx = { waitUntil() {}, passThroughOnException() {} };

/**
 * @param {number} i
 * @param {string | undefined} body
 */
function request(i, body = plan.bodies[i % plan.bodies.length]) {
  const request = new Request(plan.url, { method: 'POST', headers: plan.headers, body });
  // Node's Request leaves Host to the connection; workerd's carries it, and the Function checks it.
  request.headers.set('Host', new URL(plan.url).host);
  return request;
}

/**
 * A failed call would make the figures meaningless: stop at the first one.
 * @param {Response} response
 * @param {string} body
 */
function check(response, body) {
  const message = response.status === 200 ? JSON.parse(body) : undefined;
  if (!message?.result || message.result.isError) {
    throw new Error(`search_content failed: ${response.status} ${body.slice(0, 500)}`);
  }
}

// The runtime's own Request/Response/streams machinery is built into workerd; Node loads it lazily, so
// it is loaded here, before anything is timed. The Function's own modules stay unevaluated until then.
await new Response(await request(0).text()).json();
{
  // The same for streamed bodies: a reader, a streaming decode, a released lock, a cloned request.
  const reader = /** @type {ReadableStream<Uint8Array>} */ (request(0).clone().body).getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    decoder.decode(chunk.value, { stream: true });
  }
  reader.releaseLock();
  await new Response(new Blob(['{}']).stream()).text();
}
// The Function's one log line ("loaded N items") costs a terminal write here, nothing on the platform.
console.log = () => {};
const worker = (await import(pathToFileURL(workerFile).href)).default;

// With --expose-gc (cold samples): what the isolate keeps once the data is loaded. Collected before
// and after, outside the timed span.
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const first = request(0);
const started = performance.now();
const firstResponse = await worker.fetch(first, env, ctx);
const firstBody = await firstResponse.text();
const firstCallMs = performance.now() - started;
check(firstResponse, firstBody);

if (mode === 'cold') {
  globalThis.gc?.();
  const retainedBytes = process.memoryUsage().heapUsed - heapBefore;
  process.stdout.write(`${JSON.stringify({ firstCallMs, assetMs, retainedBytes })}\n`);
} else {
  // Warm-up: a warm isolate has long paid the JIT.
  for (let i = 1; i <= 200; i++) {
    const response = await worker.fetch(request(i), env, ctx);
    check(response, await response.text());
  }
  /** @param {Request} next */
  const timed = async (next) => {
    const started = performance.now();
    const response = await worker.fetch(next, env, ctx);
    const body = await response.text();
    const ms = performance.now() - started;
    check(response, body);
    return ms;
  };
  const timings = [];
  for (let i = 0; i < Number(calls); i++) timings.push(await timed(request(i)));
  const worst = [];
  for (let i = 0; i < 50; i++) worst.push(await timed(request(i, plan.worst)));
  process.stdout.write(`${JSON.stringify({ timings, worst })}\n`);
}
