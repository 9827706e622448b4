import type { LoadedMcp, McpBackend } from './backend.ts';
import { createD1Backend, type D1Data, type D1DatabaseLike, rehearsalBackend } from './d1-backend.ts';
import { GENERATIONS_TABLE } from './d1-sql.ts';
import { createEmbeddedBackend, embeddedTables, sampleBody } from './embedded.ts';
import { createMcpFetch, McpUnavailable, unavailable } from './http.ts';
import { warmUpSnippets } from './snippet.ts';
import { type DevPointer, type McpModule, parseMcpModule } from './worker-module.ts';

export interface McpFunctionContext {
  request: Request;
  env: Record<string, unknown>;
}

export interface McpFunctionOptions {
  log?(message: string): void;
}

/**
 * The `/mcp` Pages Function: `export const onRequest = createMcpFunction(data)`, where `data` is the
 * module the build wrote. Called in the Function's global scope, so everything that can be done before
 * a request is done at startup: the embedded backend's search index is loaded here, once per isolate,
 * the server is set up and its code run once (a warm-up), and the first request only answers.
 *
 * It never throws: a module it cannot use (written by another release) makes every `/mcp` request a 503
 * that says what to do, and leaves the Worker's other Functions (`/api`) unharmed.
 */
export function createMcpFunction(
  module: unknown,
  options: McpFunctionOptions = {},
): (context: McpFunctionContext) => Promise<Response> {
  const log = options.log ?? (() => undefined);
  let data: McpModule | DevPointer;
  try {
    data = parseMcpModule(module);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`content-index mcp: ${message}`);
    return async () => {
      log(`content-index mcp: ${message}`);
      return unavailable(message);
    };
  }
  if (data.backend === 'dev') return devFunction(data.url, options);
  if (data.backend === 'embedded') {
    const tables = embeddedTables(data);
    const mcp: LoadedMcp = { info: tables.info, backend: createEmbeddedBackend(tables) };
    const body = sampleBody(tables);
    if (body) warmUpSnippets(body.text, body.lang);
    log(`content-index mcp: ${data.info.stats.counts.total} items embedded`);
    const serve = createMcpFetch({ mcp, log, warmUp: { data: true } });
    return ({ request, env }) => serve(request, env);
  }
  return d1Function(data, log);
}

/**
 * Under `content-index dev`: the data of dev's last build, asked for on each request (a loopback call
 * answered 304 while nothing changed), and the server set up again when it changed.
 */
function devFunction(
  url: string,
  options: McpFunctionOptions,
): (context: McpFunctionContext) => Promise<Response> {
  let current: { etag: string; serve: (context: McpFunctionContext) => Promise<Response> } | undefined;
  return async (context) => {
    let response: Response;
    try {
      response = await fetch(url, { headers: current ? { 'If-None-Match': current.etag } : {} });
    } catch {
      return unavailable(
        'content-index dev is not running: its last build served /mcp here; run content-index dev, or content-index build for a module of its own',
      );
    }
    if (response.status === 200) {
      current = {
        etag: response.headers.get('etag') ?? '',
        serve: createMcpFunction(await response.json(), options),
      };
    } else if (response.status !== 304 || !current) {
      return unavailable(`content-index dev answered ${response.status} for the /mcp data`);
    }
    return current.serve(context);
  };
}

/**
 * The D1 backend is bound through the request's `env`, which the global scope does not have: the server
 * is set up at startup around a backend that reaches D1 on first use, warmed up against a stand-in (D1
 * is I/O, which the global scope may not do), and each request first checks that the binding is there.
 */
function d1Function(
  data: D1Data,
  log: (message: string) => void,
): (context: McpFunctionContext) => Promise<Response> {
  const { binding, database } = data.d1;
  let db: D1DatabaseLike | undefined;
  let real: McpBackend | undefined;
  // Until the warm-up is over, the tools run against a stand-in. The runtime runs the global scope's
  // microtasks, the whole warm-up, before the first request; a request that came sooner (a caller in
  // the same process) waits for it rather than be answered from the stand-in's data.
  let rehearsal: McpBackend | undefined = rehearsalBackend(data);
  let rehearsed = (): void => undefined;
  const warmedUp = new Promise<void>((resolve) => {
    rehearsed = resolve;
  });
  const backend = (): McpBackend => {
    if (rehearsal) return rehearsal;
    if (!db) throw new McpUnavailable(`The D1 binding ${binding} is missing`);
    if (!real) {
      real = createD1Backend(db, data);
      log(`content-index mcp: ${data.info.stats.counts.total} items in D1 database ${database}`);
    }
    return real;
  };
  const mcp: LoadedMcp = {
    info: data.info,
    backend: {
      kind: 'd1',
      list: (query) => backend().list(query),
      search: (query) => backend().search(query),
    },
  };
  const serve = createMcpFetch({
    mcp,
    log,
    warmUp: {
      data: true,
      done: () => {
        rehearsal = undefined;
        rehearsed();
      },
    },
  });
  const missing = `The D1 binding ${binding} (database ${database}) is missing from this deployment: add it to wrangler.toml as [[d1_databases]] binding = "${binding}", database_name = "${database}", and deploy again.`;
  let imported = false;
  return async ({ request, env }) => {
    if (rehearsal) await warmedUp;
    const bound = env[binding] as D1DatabaseLike | undefined;
    if (typeof bound?.prepare !== 'function') {
      log(`content-index mcp: ${missing}`);
      return unavailable(missing);
    }
    db ??= bound;
    // Served only once this build's tables are in the database: until its import is done (a deploy
    // imports before it publishes; `content-index dev` imports into local D1 beside the server), a
    // client is told to come back rather than given tool errors. Asked until the answer is yes, once
    // per isolate after that: the tables of a generation never go while its Function is deployed.
    if (!imported && request.method !== 'OPTIONS') {
      const why = await tablesMissing(db, data.d1);
      if (why) {
        log(`content-index mcp: ${why}`);
        return unavailable(why, IMPORT_RETRY_SECONDS);
      }
      imported = true;
    }
    return serve(request, env);
  };
}

/** How soon a client may ask again while the tables are being imported (a local import takes seconds). */
const IMPORT_RETRY_SECONDS = 5;

/**
 * Why the generation's tables cannot be served (not completely imported yet, the database failing), or
 * undefined. Its row in the generations table is what an import writes last (d1-sql.ts).
 */
async function tablesMissing(db: D1DatabaseLike, target: D1Data['d1']): Promise<string | undefined> {
  const missing = `The search tables of this build (${target.generation}) are not in the D1 database ${target.database} yet: a deploy imports them before it publishes, content-index dev imports them into the local database as it builds (wait for its "✓ D1 (local)" line), and content-index d1 import --local does it by hand.`;
  try {
    const { results } = await db
      .prepare(`SELECT state FROM ${GENERATIONS_TABLE} WHERE id = ?1`)
      .bind(target.generation)
      .all();
    return results.length > 0 ? undefined : missing;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/no such table/i.test(message)) return missing;
    return `The D1 database ${target.database} could not be read: ${message}`;
  }
}
