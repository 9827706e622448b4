/**
 * One MCP measurement in a fresh process: fresh module state and a cold JIT, what a new isolate has.
 * bench/mcp.ts runs it as `node bench/_mcp-sample.mjs <cold|warm|worst> <worker.js> <requests.json>
 * [calls] [<wrangler.toml> <state>]` and reads its figures, as JSON, from stdout. `worst`: after the
 * warm-up, each of the plan's worst requests `calls` times (CPU, status, size, calls refused); with D1,
 * against D1's answers recorded from the local D1 once and then replayed, so that only the Function's
 * CPU is counted.
 *
 * `worker.js` is a site's Functions as wrangler compiles them for Cloudflare (bench/_built-site.ts), so
 * the code measured is the deployed code: the Pages router, functions/mcp/[[path]].ts, the core it
 * bundles and the site's data module. For a D1 site, `env` carries the binding as wrangler's
 * getPlatformProxy gives it: the local D1 (the same state `wrangler pages dev --persist-to` uses), made
 * before anything is timed. Its calls cross to workerd through a proxy whose JavaScript runs on this
 * thread; the CPU spent inside them is reported apart (`firstCallBindingCpuMs`), as on the platform the
 * binding is the runtime's and its query time is I/O.
 * Plain JavaScript on purpose: no TypeScript loader in the process, so nothing of its cost is counted.
 *
 * CPU time is `process.cpuUsage()` around the work, which (unlike a thread's own counters, updated only
 * at scheduler ticks) is exact to the microsecond. bench/mcp.ts runs the sample under V8's
 * `--single-threaded`, so that the work V8 otherwise does on helper threads (concurrent compilation and
 * marking) is done, and counted, on the one thread: an upper bound of what a Worker's isolate is billed.
 */
import { readFile } from 'node:fs/promises';
import nodeModule from 'node:module';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [mode, workerFile, requestsFile, calls = '2000', wranglerToml, d1State] = process.argv.slice(2);
/** The calls after the first before anything else is measured (warm and worst modes). */
const WARM_UP_CALLS = 200;
/**
 * Warm mode: the calls made before the warm span. A warm isolate has long paid the JIT: on the
 * 5,000-item site, V8 compiled with TurboFan 228 times in calls 500 to 2,200; 2 of the 2,000 calls
 * after the 5,000th came after a compilation, none of those after the 10,000th (docs/performance.md,
 * stop 66). 6,000: past the first, short of the second, for the bench's time (each warm sample some 7 s).
 */
const SETTLED_AFTER = 6000;
if ((mode !== 'cold' && mode !== 'warm' && mode !== 'worst') || !workerFile || !requestsFile) {
  throw new Error(
    'usage: _mcp-sample.mjs <cold|warm|worst> <worker.js> <requests.json> [calls] [<wrangler.toml> <state>]',
  );
}
/**
 * @type {{ url: string, headers: Record<string, string>, bodies: string[], worst: string,
 *   worstRequests: { name: string, headers: Record<string, string>, body: string }[] }}
 */
const plan = JSON.parse(await readFile(requestsFile, 'utf8'));

// The Worker's binary modules (the embedded /mcp data, `*.bin`): workerd hands the module an
// ArrayBuffer of them; Node imports no such module, so a hook gives it one, read from the file when the
// Worker's modules are evaluated (inside the timed startup, as workerd's copy of the bytes is).
const BINARY_MODULE = `import { readFileSync } from 'node:fs';
const bytes = readFileSync(new URL(import.meta.url));
export default bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  ? bytes.buffer
  : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);`;
/** Node 22.15+'s in-thread hooks (@types/node here is Node 20's). */
const registerHooks = /** @type {any} */ (nodeModule).registerHooks;
if (typeof registerHooks === 'function') {
  registerHooks({
    /** @param {string} url @param {unknown} context @param {(url: string, context: unknown) => unknown} next */
    load: (url, context, next) =>
      url.endsWith('.bin')
        ? { format: 'module', shortCircuit: true, source: BINARY_MODULE }
        : next(url, context),
  });
} else {
  // Node before 22.15: the same hook, on the loader's thread.
  const hooks = `export async function load(url, context, next) {
    return url.endsWith('.bin') ? { format: 'module', shortCircuit: true, source: ${JSON.stringify(BINARY_MODULE)} } : next(url, context);
  }`;
  nodeModule.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

// As on the platform: zod never compiles parsers with new Function there.
/** @type {any} */ (globalThis).__zod_globalConfig = { jitless: true };

/** @type {Record<string, unknown>} */
const env = {
  ASSETS: {
    fetch() {
      throw new Error('the /mcp Function must not fetch assets');
    },
  },
};
/** @type {{ dispose(): Promise<void> } | undefined} */
let proxy;
/** D1 answers recorded, then replayed (worst-request mode). */
const d1Answers = { recording: false, replaying: false, recorded: new Map() };
/** CPU spent inside the D1 binding's calls (the proxy's serialisation and transport): reported apart. */
let bindingCpuMs = 0;
if (wranglerToml && d1State) {
  const { getPlatformProxy } = await import('wrangler');
  const platform = await getPlatformProxy({ configPath: wranglerToml, persist: { path: `${d1State}/v3` } });
  Object.assign(env, platform.env);
  /**
   * @template T
   * @param {() => T} work
   */
  const inBinding = (work) => {
    const started = threadCpuMs();
    try {
      return work();
    } finally {
      bindingCpuMs += threadCpuMs() - started;
    }
  };
  /**
   * Worst-request mode records each statement's answer from the local D1, then replays it: the
   * Function's own CPU is then measured with no binding in the way (concurrent calls of a batch would
   * otherwise count each other's time inside the proxy).
   * @param {any} statement
   * @param {string} sql
   * @param {unknown[]} values
   */
  const measured = (statement, sql, values) => ({
    /** @param {unknown[]} bound */
    bind: (...bound) =>
      measured(
        inBinding(() => statement.bind(...bound)),
        sql,
        bound,
      ),
    all: async () => {
      const started = threadCpuMs();
      try {
        const result = await statement.all();
        if (d1Answers.recording) d1Answers.recorded.set(JSON.stringify([sql, values]), result);
        return result;
      } finally {
        bindingCpuMs += threadCpuMs() - started;
      }
    },
  });
  /**
   * @param {string} sql
   * @param {unknown[]} values
   * @returns {any}
   */
  const replayed = (sql, values) => ({
    /** @param {unknown[]} bound */
    bind: (...bound) => replayed(sql, bound),
    all: async () => {
      const result = d1Answers.recorded.get(JSON.stringify([sql, values]));
      if (!result) throw new Error(`no recorded D1 answer for ${sql.slice(0, 200)}`);
      return result;
    },
  });
  const db = /** @type {any} */ (platform.env).CONTENT_INDEX_DB;
  env.CONTENT_INDEX_DB = {
    prepare: (/** @type {string} */ sql) =>
      d1Answers.replaying
        ? replayed(sql, [])
        : measured(
            inBinding(() => db.prepare(sql)),
            sql,
            [],
          ),
  };
  proxy = platform;
  // The proxy's own first round trip is not the Function's: made here, untimed.
  await /** @type {any} */ (platform.env).CONTENT_INDEX_DB.prepare('SELECT ?1').bind(1).all();
}
const ctx = { waitUntil() {}, passThroughOnException() {} };

/**
 * On the platform each request is a task of its own. V8 keeps what a WeakRef was made or read for until
 * the microtask queue is next empty, and FinalizationRegistry callbacks run as tasks of their own: a
 * loop of calls that resolve as microtasks never empties it, so it kept every call's Request clones
 * alive (Node's Request links each clone to its original through both), the heap grew by some 1.6 KB a
 * call for good and each scavenge copied more. So every call starts on a turn of the event loop.
 */
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

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

/** Milliseconds of CPU the process has used so far (one thread: see above). */
const threadCpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

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
  // And the stream and header classes the SDK answers with.
  const headers = new Headers({ 'content-type': 'application/json' });
  headers.set('x-a', 'b');
  headers.get('x-a');
  await new Response(new Response('{}').body?.pipeThrough(new TransformStream()), {
    status: 200,
    headers,
  }).text();
  const stream = new TransformStream();
  const writer = stream.writable.getWriter();
  writer.write(new TextEncoder().encode('{}'));
  writer.close();
  await new Response(stream.readable, { headers }).text();
  new AbortController().abort();
}
// The Function's one log line costs a terminal write here, nothing on the platform.
console.log = () => {};

/**
 * MCP_SAMPLE_PROFILE=startup|first|warm: that span runs under V8's sampling profiler (through the
 * inspector, connected before anything is timed), and the output carries the profile with the span's
 * bounds on the monotonic clock, so that the profiler's own start and stop are left out. For a target
 * missed (bench/mcp.ts); the figures of such a run are not the ones reported.
 */
const profiled = process.env.MCP_SAMPLE_PROFILE;
/** @type {import('node:inspector/promises').Session | undefined} */
let session;
if (profiled) {
  const { Session } = await import('node:inspector/promises');
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
}
/** @type {{ profile?: unknown, span?: { fromUs: number, toUs: number } }} */
const profileOut = {};
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** @param {string} span */
async function profileFrom(span) {
  if (profiled !== span || !session) return;
  await session.post('Profiler.start');
  profileOut.span = { fromUs: monotonicUs(), toUs: 0 };
}
/** @param {string} span */
async function profileTo(span) {
  if (profiled !== span || !session || !profileOut.span) return;
  profileOut.span.toUs = monotonicUs();
  profileOut.profile = (await session.post('Profiler.stop')).profile;
}

// Startup: the Worker's global scope (every module evaluated, the embedded index loaded), then the heap
// it keeps, collected (--expose-gc) outside the timed span.
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
await profileFrom('startup');
const startupCpu = threadCpuMs();
const startupStarted = performance.now();
const worker = (await import(pathToFileURL(workerFile).href)).default;
// The runtime delivers the first request only after the global scope's microtasks (the warm-up) ran.
await nextTask();
const startupMs = performance.now() - startupStarted;
const startupCpuMs = threadCpuMs() - startupCpu;
await profileTo('startup');
globalThis.gc?.();
const heapAfterStartup = process.memoryUsage().heapUsed;

/** Calls made so far (timed ones). */
let made = 0;

/**
 * Each call waits for the event loop's next turn first, outside what is timed (see nextTask); a
 * profiled span of calls has those turns in it too.
 * @param {Request} next
 */
async function timed(next) {
  await nextTask();
  made++;
  bindingCpuMs = 0;
  const cpu = threadCpuMs();
  const started = performance.now();
  const response = await worker.fetch(next, env, ctx);
  const body = await response.text();
  const ms = performance.now() - started;
  const cpuTime = threadCpuMs() - cpu;
  check(response, body);
  return { ms, cpuMs: cpuTime, bindingCpuMs };
}

await profileFrom('first');
const first = await timed(request(0));
await profileTo('first');

if (mode === 'worst') {
  for (let i = 1; i <= WARM_UP_CALLS; i++) await timed(request(i));
  /** @type {Record<string, { cpuMs: number[], status: number, bytes: number, answers: number, refused: number }>} */
  const figures = {};
  for (const worst of plan.worstRequests) {
    const runs = [];
    let last = { status: 0, body: '' };
    if (proxy) {
      // Once against the local D1, answers recorded; the timed runs replay them.
      d1Answers.recording = true;
      const next = new Request(plan.url, { method: 'POST', headers: worst.headers, body: worst.body });
      next.headers.set('Host', new URL(plan.url).host);
      await (await worker.fetch(next, env, ctx)).text();
      d1Answers.recording = false;
      d1Answers.replaying = true;
    }
    for (let i = 0; i < Number(calls); i++) {
      await nextTask();
      const next = new Request(plan.url, { method: 'POST', headers: worst.headers, body: worst.body });
      next.headers.set('Host', new URL(plan.url).host);
      bindingCpuMs = 0;
      const cpu = threadCpuMs();
      const response = await worker.fetch(next, env, ctx);
      const body = await response.text();
      runs.push(threadCpuMs() - cpu - bindingCpuMs);
      last = { status: response.status, body };
    }
    d1Answers.replaying = false;
    figures[worst.name] = {
      cpuMs: runs,
      status: last.status,
      bytes: new TextEncoder().encode(last.body).length,
      answers: (last.body.match(/"jsonrpc":"2\.0"/g) ?? []).length,
      refused: (last.body.match(/Request budget: /g) ?? []).length,
    };
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else if (mode === 'cold') {
  process.stdout.write(
    `${JSON.stringify({
      startupMs,
      startupCpuMs,
      heapAfterStartupBytes: heapAfterStartup,
      heapStartupBytes: heapAfterStartup - heapBefore,
      firstCallMs: first.ms,
      firstCallCpuMs: first.cpuMs,
      firstCallBindingCpuMs: first.bindingCpuMs,
      ...profileOut,
    })}\n`,
  );
} else {
  for (let i = 1; i <= WARM_UP_CALLS; i++) await timed(request(i));
  // While the JIT is still at work: under --single-threaded, each function V8 optimises is compiled
  // inside the call that made it hot (in workerd, mostly on a thread beside the request's).
  const warmingCpu = [];
  const warming = { from: made + 1, to: made + Number(calls) };
  for (let i = 0; i < Number(calls); i++) warmingCpu.push((await timed(request(i))).cpuMs);
  while (made < SETTLED_AFTER) await timed(request(made));
  const settled = { from: made + 1, to: made + Number(calls) };
  const timings = [];
  const cpu = [];
  await profileFrom('warm');
  for (let i = 0; i < Number(calls); i++) {
    const call = await timed(request(i));
    timings.push(call.ms);
    cpu.push(call.cpuMs);
  }
  await profileTo('warm');
  const worst = [];
  for (let i = 0; i < 50; i++) worst.push((await timed(request(i, plan.worst))).ms);
  process.stdout.write(
    `${JSON.stringify({ timings, cpu, warmingCpu, warming, settled, worst, ...profileOut })}\n`,
  );
}
await proxy?.dispose();
