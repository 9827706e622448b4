import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

/**
 * `wrangler pages dev` enables the DevTools network domain in workerd, which reports every response,
 * body included, and wrangler keeps those reports for a DevTools client that may connect later; with
 * none connected it keeps them all. Under load that is about 0.5 MB per 373 KiB index response, and
 * workerd's heap runs out after some 2,800 of them (the dev server then dies: connection resets and
 * refusals). Nothing of this exists on Cloudflare. So the load test connects to wrangler's inspector
 * port as DevTools and sends `Network.disable`, then keeps the connection open and discards what comes.
 *
 * The WebSocket is spoken by hand (an HTTP upgrade and one masked text frame): only one message is sent.
 */
export async function quietDevTools(inspectorPort: number): Promise<{ close(): void }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: inspectorPort,
      path: '/',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Version': '13',
        // The inspector proxy only accepts local DevTools origins.
        Origin: 'http://127.0.0.1',
      },
    });
    req.on('upgrade', (_response, upgraded: Socket) => resolve(upgraded));
    req.on('response', (response) =>
      reject(new Error(`inspector refused DevTools: HTTP ${response.statusCode}`)),
    );
    req.on('error', reject);
    req.end();
  });
  const acknowledged = new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('inspector did not answer Network.disable')), 30_000);
    socket.on('data', (chunk: Buffer) => {
      // Only the answer to our one command matters; every other message is dropped.
      seen = (seen + chunk.toString('latin1')).slice(-4096);
      if (/"id":1[,}]/.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  socket.write(maskedTextFrame(JSON.stringify({ id: 1, method: 'Network.disable' })));
  await acknowledged;
  return { close: () => socket.destroy() };
}

/** A client-to-server WebSocket text frame (RFC 6455 section 5.2), for payloads under 126 bytes. */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length >= 126) throw new Error('frame too long for this helper');
  const mask = randomBytes(4);
  const masked = payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}
