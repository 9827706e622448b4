import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { quietNetworkRecording } from '../../build/runtime/devtools-quiet.ts';
import { type PagesDev, startPagesDev } from '../helpers/pages-dev.ts';

// `content-index dev` is the DevTools client of its own `wrangler pages dev`, to turn off the network
// recording wrangler turns on (build/runtime/devtools-quiet.ts). Here against a real wrangler: a static
// file and a Function, whose edit makes wrangler reload the Worker and turn the recording on again.
let dir: string;
let server: PagesDev;

const FUNCTION = (text: string) => `export const onRequest = () => new Response(${JSON.stringify(text)});\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-devtools-'));
  await mkdir(join(dir, 'public'));
  await mkdir(join(dir, 'functions'));
  await writeFile(join(dir, 'public/index.json'), JSON.stringify({ words: 'x'.repeat(50_000) }));
  await writeFile(join(dir, 'functions/hola.js'), FUNCTION('uno'));
  server = await startPagesDev(join(dir, 'public'), [], dir);
});
afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<string> {
  return (await fetch(`${server.url}${path}`)).text();
}

/** A DevTools client of our own for a moment: the Network events one GET makes reach it. */
async function networkEventsOfOneGet(): Promise<string[]> {
  const socket = new WebSocket(`ws://127.0.0.1:${server.inspectorPort}/`, {
    headers: { Origin: 'http://127.0.0.1' },
  });
  const events: string[] = [];
  socket.on('message', (data) => {
    const text = String(data);
    const method = text.startsWith('{') ? (JSON.parse(text) as { method?: string }).method : undefined;
    if (method?.startsWith('Network.')) events.push(method);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  await get('/index.json');
  const deadline = Date.now() + 5000;
  while (!events.includes('Network.loadingFinished') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  // No close handshake: wrangler's proxy does not answer one, and ws would wait 30 s for it.
  const closed = new Promise((r) => socket.once('close', r));
  socket.terminate();
  await closed;
  return events;
}

async function until(what: string, done: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A GET that gives up, so that a paused Function fails the test instead of hanging it. */
async function getWithin(path: string, ms: number): Promise<string> {
  return (await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(ms) })).text();
}

it('turns off the recording wrangler turned on, and again after wrangler reloads the Worker', async () => {
  // Without it, each response reaches DevTools, body kept for it.
  expect(await networkEventsOfOneGet()).toEqual(
    expect.arrayContaining(['Network.responseReceived', 'Network.loadingFinished']),
  );

  const quiet = await quietNetworkRecording(server.inspectorPort);
  try {
    // What reached it before the runtime turned the recording off: the proxy's backlog of our GET's
    // events, replayed to a client that connects, and events on their way.
    const atQuiet = quiet.events.network;
    for (let i = 0; i < 5; i++) await get('/index.json');
    expect(await get('/hola')).toBe('uno');
    await new Promise((r) => setTimeout(r, 300));
    expect(quiet.events.network).toBe(atQuiet);

    // An edited Function: wrangler rebuilds it, reconnects to the runtime and sends Network.enable (and,
    // a DevTools client being attached, Debugger.enable), some time after it serves the new code.
    await writeFile(join(dir, 'functions/hola.js'), FUNCTION('dos'));
    await until('the Function reloaded', async () => (await get('/hola')) === 'dos');
    await until('the recording on again', async () => {
      await get('/index.json');
      return quiet.events.network > atQuiet;
    });
    // Off again at its first events: from some GET on, responses make none.
    let seen = -1;
    await until('the recording off again', async () => {
      const before = quiet.events.network;
      await get('/index.json');
      await new Promise((r) => setTimeout(r, 200));
      const quietNow = quiet.events.network === before && before === seen;
      seen = quiet.events.network;
      return quietNow;
    });
    for (let i = 0; i < 5; i++) await get('/index.json');
    await new Promise((r) => setTimeout(r, 300));
    expect(quiet.events.network).toBe(seen);

    // The debugger wrangler turned on for its client is off: a `debugger` statement does not pause.
    expect(quiet.events.debugger).toBeGreaterThan(0);
    await writeFile(
      join(dir, 'functions/hola.js'),
      `export const onRequest = () => {\n  debugger;\n  return new Response('tres');\n};\n`,
    );
    await until('the Function with a debugger statement answering', async () => {
      const text = await getWithin('/hola', 5000).catch(() => 'paused');
      if (text === 'paused')
        throw new Error(`a request paused on the debugger statement:\n${server.output()}`);
      return text === 'tres';
    });
    for (let i = 0; i < 3; i++) expect(await getWithin('/hola', 5000)).toBe('tres');
  } finally {
    quiet.close();
  }
});

it('is refused while another DevTools client holds the inspector, and says so', async () => {
  const first = await quietNetworkRecording(server.inspectorPort);
  try {
    await expect(quietNetworkRecording(server.inspectorPort)).rejects.toThrow(/Too many clients/);
  } finally {
    first.close();
  }
});
