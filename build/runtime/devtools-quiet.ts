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
 * on), and drops every other message. wrangler lets one DevTools client in at a time; while dev holds
 * the inspector, a DevTools window that connects is refused.
 */
export interface QuietInspector {
  /** Network events that reached the client, each answered by turning the domain off again. */
  readonly networkEvents: number;
  close(): void;
}

/** Resolves once the runtime acknowledged `Network.disable`; rejects when the inspector refuses. */
export function quietNetworkRecording(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 30_000,
): Promise<QuietInspector> {
  return new Promise((resolve, reject) => {
    // The inspector proxy accepts DevTools from local origins only.
    const socket = new WebSocket(`ws://${host}:${port}/`, { headers: { Origin: `http://${host}` } });
    let next = 0;
    let pending: number | undefined;
    let networkEvents = 0;
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
    const disable = () => {
      // One request at a time: a burst of events after a reload asks once.
      if (pending !== undefined) return;
      pending = ++next;
      socket.send(JSON.stringify({ id: pending, method: 'Network.disable' }));
    };
    socket.on('open', disable);
    socket.on('message', (data) => {
      let message: { id?: unknown; method?: unknown };
      try {
        message = JSON.parse(String(data)) as typeof message;
      } catch {
        return;
      }
      if (message.id !== undefined && message.id === pending) {
        pending = undefined;
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve({
            get networkEvents() {
              return networkEvents;
            },
            // No close handshake: wrangler's proxy does not answer one, and ws would wait 30 s for it.
            close: () => socket.terminate(),
          });
        }
      } else if (typeof message.method === 'string' && message.method.startsWith('Network.')) {
        networkEvents++;
        disable();
      }
    });
    socket.on('close', (code, reason) => {
      if (!settled) fail(new Error(`the inspector closed the connection (${code} ${String(reason)})`));
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
