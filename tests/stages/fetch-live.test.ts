import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isContentIndexError } from '../../build/core/errors.ts';
import { fetchLive } from '../../build/stages/fetch-live.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// The live check against a hostile or broken site: every answer is bounded in time (body included) and
// in size, and meeting either bound is a problem that says which, never an internal error.

let server: Server;
let base: string;
/** Bytes the server managed to send of the endless body, when the client hung up. */
let sentOfEndless = 0;
let endlessDone: Promise<number>;
let finishEndless: (bytes: number) => void = () => undefined;

beforeAll(async () => {
  endlessDone = new Promise((resolve) => {
    finishEndless = resolve;
  });
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path.startsWith('/drip/')) return drip(response);
    if (path.startsWith('/endless/')) return endless(response);
    if (path.startsWith('/declared/')) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
      response.write('{');
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** Headers at once, then one byte every 100 ms, for ever. */
function drip(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{');
  const timer = setInterval(() => response.write(' '), 100);
  response.on('close', () => clearInterval(timer));
}

/** As fast as the client reads, with no end: 64 KiB pieces of a JSON array. */
function endless(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  const piece = Buffer.from(`[${'0,'.repeat(32 * 1024 - 1)}`);
  let sent = 0;
  const pump = () => {
    while (!response.destroyed && response.write(piece)) sent += piece.length;
  };
  response.on('drain', pump);
  response.on('close', () => {
    sentOfEndless = sent;
    finishEndless(sent);
  });
  pump();
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(isContentIndexError(error), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

it('cuts off a body that drips past the deadline, saying how much came within how long', async () => {
  const started = Date.now();
  const message = await failure(fetchLive(`${base}/drip/`, { timeoutMs: 1000 }));
  expect(Date.now() - started).toBeLessThan(5000);
  expect(message).toContain(`${base}/drip/api/versions.json`);
  expect(message).toMatch(
    /sent \d+ B and not the rest within 1 s \(the time limit of one answer, body included\)/,
  );
});

it('stops reading a body past the size bound, holding no more than that, and says so', async () => {
  const message = await failure(fetchLive(`${base}/endless/`, { maxBytes: 4 * 1024 * 1024 }));
  expect(message).toContain('answered a body that went past 4.0 MiB, over the 4.0 MiB limit of one answer');
  await endlessDone;
  // The server was stopped soon after the bound (socket buffers aside), not read to its end.
  expect(sentOfEndless).toBeLessThan(64 * 1024 * 1024);
  // A body that declares itself too large is not read at all.
  const declared = await failure(fetchLive(`${base}/declared/`));
  expect(declared).toContain('answered a body that says it is 1024.0 MiB, over the 25.0 MiB limit');
});

let site: TempSite | undefined;
afterAll(() => site?.dispose());

it('check --live reports a site that never ends its answer as a problem, not an internal error', async () => {
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  const result = await site.cli('check', '--live', `${base}/endless/`);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('over the 25.0 MiB limit of one answer');
  expect(result.stderr).not.toContain('internal error');
});
