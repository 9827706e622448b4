import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newLiteralRedirects, redirectsServed } from '../../build/runtime/redirects-probe.ts';

// dev asks wrangler for a changed _redirects' new rules and restarts it when it keeps answering the old
// ones (build/commands/dev.ts, confirmRedirects): which rules it asks for, and what counts as answered.
describe('newLiteralRedirects', () => {
  it('leaves out a rule an earlier one matches first (the same source, or any pattern before it)', () => {
    const text = ['/a /b 301', '/a /c 302', '/blog/* /posts/:splat 301', '/d /e 301'].join('\n');
    expect(newLiteralRedirects('', text)).toEqual([{ from: '/a', to: '/b', status: 301 }]);
  });

  it('takes the rules a request can check as they are, and only the new or changed ones', () => {
    const before = '# old\n/viejo /posts/hola/ 301\n/a /b\n';
    const text = [
      '# Generated',
      '/viejo   /posts/hola/  301',
      '/a /c',
      '/nuevo /posts/redes/ 302',
      '/forzado /x 301!',
      '/blog/* /posts/:splat 301',
      '/tag/:name /tags/:name 302',
      '/q?x=1 /y 301',
      '/rewrite /index.html 200',
      'https://otro.example.com/* /x 301',
    ].join('\n');
    expect(newLiteralRedirects(before, text)).toEqual([
      { from: '/a', to: '/c', status: 302 },
      { from: '/nuevo', to: '/posts/redes/', status: 302 },
      { from: '/forzado', to: '/x', status: 301 },
    ]);
  });
});

describe('redirectsServed', () => {
  let server: Server;
  let origin: string;
  const rules = new Map<string, [number, string]>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      const rule = rules.get(request.url ?? '');
      if (rule) response.writeHead(rule[0], { location: rule[1] }).end();
      else response.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is true only when every rule is answered with its status and target', async () => {
    const wanted = [
      { from: '/nuevo', to: '/posts/redes/', status: 302 },
      { from: '/viejo', to: '/posts/hola/', status: 301 },
    ];
    rules.set('/nuevo', [302, '/posts/redes/']);
    expect(await redirectsServed(origin, wanted)).toBe(false); // /viejo: 404
    rules.set('/viejo', [301, '/posts/otra/']);
    expect(await redirectsServed(origin, wanted)).toBe(false); // another target
    rules.set('/viejo', [308, '/posts/hola/']);
    expect(await redirectsServed(origin, wanted)).toBe(false); // another status
    rules.set('/viejo', [301, `${origin}/posts/hola/`]);
    expect(await redirectsServed(origin, wanted)).toBe(true); // an absolute Location is the same target
  });

  it('is false when nothing answers', async () => {
    expect(await redirectsServed('http://127.0.0.1:9', [{ from: '/a', to: '/b', status: 301 }])).toBe(false);
  });
});
