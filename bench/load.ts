/**
 * The load test of `npm run bench`: `wrangler pages dev` (workerd, the Pages runtime) serving a built
 * synthetic site of 1,000 items on a loopback port, hit by autocannon with
 *
 * - 20,000 GETs of the index routes (`/api/v1/content.json` and `/api/content.json` in turn), 50 at a time;
 * - 2,000 MCP `tools/call` POSTs of `search_content` (stateless, as a 2026-07-28 client sends them, over
 *   the queries of bench/_mcp-requests.ts), 20 at a time.
 *
 * Each run is bounded: a fixed number of requests, a 10 s timeout per request, and a deadline after
 * which it is stopped and reported as incomplete. Every response is checked: errors (connection errors
 * and timeouts), non-2xx statuses, and answers that are not what was asked for (an index body that is
 * not the index, an MCP answer that is not a tool result) are counted, and a run passes only with none.
 *
 * wrangler's DevTools network recording is turned off first, as `content-index dev` does
 * (build/runtime/devtools-quiet.ts): left on, it keeps every response body and the dev server runs out
 * of memory after some 2,800 index responses.
 *
 * `npx tsx bench/load.ts` runs it alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { type QuietInspector, quietNetworkRecording } from '../build/runtime/devtools-quiet.ts';
import { startProjectPagesDev } from '../tests/helpers/pages-dev.ts';
import { builtSyntheticSite } from './_built-site.ts';
import { SEARCH_QUERIES, toolCallBody, toolCallHeaders } from './_mcp-requests.ts';

export interface LoadRun {
  name: string;
  requests: number;
  connections: number;
  /** Completed responses; less than `requests` only when the deadline stopped the run. */
  completed: number;
  durationS: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /** 2xx answers whose body was not the expected one. */
  wrongBodies: number;
  ok: boolean;
}

export interface LoadFigures {
  items: number;
  runs: LoadRun[];
}

const DEADLINE_MS = 180_000;

interface Plan {
  name: string;
  requests: number;
  connections: number;
  sequence: autocannon.Request[];
  /** Whether a 2xx body is the expected answer. */
  expect(body: string): boolean;
}

function run(url: string, plan: Plan): Promise<LoadRun> {
  let wrongBodies = 0;
  const sequence = plan.sequence.map((request) => ({
    ...request,
    onResponse: (status: number, body: string) => {
      if (status >= 200 && status < 300 && !plan.expect(body)) wrongBodies++;
    },
  }));
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: plan.connections,
        amount: plan.requests,
        timeout: 10,
        requests: sequence,
      },
      (error, result) => {
        clearTimeout(deadline);
        if (error) return reject(error);
        const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
        resolve({
          name: plan.name,
          requests: plan.requests,
          connections: plan.connections,
          completed,
          durationS: result.duration,
          requestsPerSecond: completed / result.duration,
          latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          wrongBodies,
          ok: completed === plan.requests && result.errors === 0 && result.non2xx === 0 && wrongBodies === 0,
        });
      },
    );
    const deadline = setTimeout(() => instance.stop(), DEADLINE_MS);
  });
}

/** The index body: the complete JSON document (a truncated or HTML answer would not parse). */
function isIndex(items: number) {
  return (body: string) => {
    try {
      return (JSON.parse(body) as { content?: unknown[] }).content?.length === items;
    } catch {
      return false;
    }
  };
}

/** A `tools/call` result that is not a tool error, as JSON or as a one-event SSE stream. */
function isToolResult(body: string): boolean {
  const data = body.startsWith('{') ? body : /^data: (.*)$/m.exec(body)?.[1];
  try {
    const message = JSON.parse(data ?? '') as { result?: { isError?: boolean; structuredContent?: unknown } };
    return message.result?.structuredContent !== undefined && message.result.isError !== true;
  } catch {
    return false;
  }
}

export async function loadTest(workdir: string, items = 1000): Promise<LoadFigures> {
  // Served embedded, as before bodies were searched: with them a 1,000-item module is past the embedded
  // ceiling (docs/mcp.md), and this test is of the static files and /mcp under load, not of D1.
  const publicDir = await builtSyntheticSite(join(workdir, `load-site-${items}`), items, {
    config: { mcp: { bodies: false } },
  });
  const server = await startProjectPagesDev(publicDir, [], join(publicDir, '..'));
  let devtools: QuietInspector | undefined;
  try {
    devtools = await quietNetworkRecording(server.inspectorPort);
    const plans: Plan[] = [
      {
        name: 'index routes',
        requests: 20_000,
        connections: 50,
        sequence: [
          { method: 'GET', path: '/api/v1/content.json' },
          { method: 'GET', path: '/api/content.json' },
        ],
        expect: isIndex(items),
      },
      {
        name: 'MCP tools/call search_content',
        requests: 2_000,
        connections: 20,
        sequence: SEARCH_QUERIES.map((args, i) => ({
          method: 'POST',
          path: '/mcp',
          headers: toolCallHeaders('search_content'),
          body: toolCallBody(i + 1, 'search_content', args),
        })),
        expect: isToolResult,
      },
    ];
    const runs: LoadRun[] = [];
    for (const plan of plans) {
      // One request first, so the Function's first-request work (the MCP data load) is not timed.
      await fetch(`${server.url}${plan.sequence[0]?.path ?? '/'}`, {
        method: plan.sequence[0]?.method ?? 'GET',
        headers: (plan.sequence[0]?.headers ?? {}) as Record<string, string>,
        body: plan.sequence[0]?.body as string | undefined,
      }).then((r) => r.arrayBuffer());
      runs.push(await run(server.url, plan));
    }
    return { items, runs };
  } finally {
    devtools?.close();
    await server.stop();
  }
}

/** Table rows for bench/run.ts: one line per run. */
export function loadLines(figures: LoadFigures): string[] {
  return figures.runs.map(
    (r) =>
      `load, ${figures.items} items, ${r.name}: ${r.completed}/${r.requests} requests at concurrency ${r.connections} ` +
      `in ${r.durationS.toFixed(1)} s, ${r.requestsPerSecond.toFixed(0)} req/s, latency p50 ${r.latencyMs.p50} ms ` +
      `p99 ${r.latencyMs.p99} ms; errors ${r.errors} (timeouts ${r.timeouts}), non-2xx ${r.non2xx}, ` +
      `wrong bodies ${r.wrongBodies}: ${r.ok ? 'ok' : 'FAILED'}`,
  );
}

if (process.argv[1] === import.meta.filename) {
  const workdir = await mkdtemp(join(tmpdir(), 'content-index-bench-load-'));
  try {
    const figures = await loadTest(workdir);
    for (const line of loadLines(figures)) console.log(line);
    if (figures.runs.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
