import { createServer } from 'node:net';
import WebSocket from 'ws';

/**
 * `wrangler pages dev` turns DevTools' network recording on in workerd: its inspector proxy sends
 * `Network.enable` each time it connects to the runtime (at the start and after every reload of the
 * Worker). The runtime then keeps a copy of every response body for a DevTools window that may ask for
 * it, and the proxy keeps every event for one that may connect later. Nothing of this exists on
 * Cloudflare. At 1,000 items that is 0.5 MB per index response served: the dev server slows down
 * (a GET of the 373 KB index took a median of 36–55 ms with it, 16 ms without) and, after a few
 * thousand responses, workerd runs out of heap.
 *
 * So `content-index dev` is the DevTools client of its own wrangler: it connects to the inspector,
 * turns the network domain off, turns it off again whenever events of it come back (a reload turned it
 * on), and drops every other message. With a client attached, the proxy also turns the debugger on at
 * each reload, and a `debugger` statement would then pause a Function with nobody to resume it: the
 * debugger's events are answered by turning it off too. wrangler lets one DevTools client in at a
 * time; while dev holds the inspector, a DevTools window that connects is refused.
 */
export interface QuietInspector {
  /** Network and Debugger events that reached the client, each domain turned off again on its first. */
  readonly events: { network: number; debugger: number };
  close(): void;
}

const DOMAINS = ['Network', 'Debugger'] as const;
type Domain = (typeof DOMAINS)[number];
/** A request the runtime has not answered by then (a reload took it) is sent again at the next event. */
const RESEND_MS = 1000;
/** wrangler refuses a client while it still counts the last one, which it learns of a moment later. */
const REFUSALS = 5;
const REFUSED_RETRY_MS = 200;

/** Resolves once the runtime acknowledged `Network.disable`; rejects when the inspector refuses. */
export async function quietNetworkRecording(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 30_000,
): Promise<QuietInspector> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect(port, host, timeoutMs);
    } catch (error) {
      if (!(error instanceof RefusedError) || attempt >= REFUSALS) throw error;
      await new Promise((resolve) => setTimeout(resolve, REFUSED_RETRY_MS));
    }
  }
}

class RefusedError extends Error {}

function connect(port: number, host: string, timeoutMs: number): Promise<QuietInspector> {
  return new Promise((resolve, reject) => {
    // The inspector proxy accepts DevTools from local origins only.
    const socket = new WebSocket(`ws://${host}:${port}/`, { headers: { Origin: `http://${host}` } });
    let next = 0;
    const pending = new Map<Domain, { id: number; at: number }>();
    const events = { network: 0, debugger: 0 };
    let settled = false;
    const timer = setTimeout(
      () => fail(new Error('the inspector did not answer Network.disable')),
      timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.terminate();
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    const disable = (domain: Domain) => {
      // One request at a time per domain: a burst of events after a reload asks once.
      const asked = pending.get(domain);
      if (asked && Date.now() - asked.at < RESEND_MS) return;
      const id = ++next;
      pending.set(domain, { id, at: Date.now() });
      socket.send(JSON.stringify({ id, method: `${domain}.disable` }));
    };
    socket.on('open', () => disable('Network'));
    socket.on('message', (data) => {
      let message: { id?: unknown; method?: unknown };
      try {
        message = JSON.parse(String(data)) as typeof message;
      } catch {
        return;
      }
      if (message.id !== undefined) {
        for (const domain of DOMAINS) if (pending.get(domain)?.id === message.id) pending.delete(domain);
        if (!settled && !pending.has('Network')) {
          settled = true;
          clearTimeout(timer);
          resolve({
            events,
            // No close handshake: wrangler's proxy does not answer one, and ws would wait 30 s for it.
            close: () => socket.terminate(),
          });
        }
        return;
      }
      if (typeof message.method !== 'string') return;
      const domain = DOMAINS.find((d) => (message.method as string).startsWith(`${d}.`));
      if (domain === undefined) return;
      events[domain === 'Network' ? 'network' : 'debugger']++;
      disable(domain);
    });
    socket.on('close', (code, reason) => {
      if (settled) return;
      const why = `the inspector closed the connection (${code} ${String(reason)})`;
      fail(code === 1013 ? new RefusedError(why) : new Error(why));
    });
    socket.on('error', (error) => fail(error));
  });
}

/** A loopback port free at the time of asking, for wrangler's inspector. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port')),
      );
    });
  });
}
