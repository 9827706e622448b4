import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../build/core/edge/mcp/http.ts';
import { type BuiltSample, buildSample, connectStdio, type StdioConnection } from '../helpers/mcp.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';
import { toolSuite } from './tool-suite.ts';

let sample: BuiltSample;

beforeAll(async () => {
  sample = await buildSample();
});
afterAll(() => sample?.dispose());

toolSuite(
  "content-index mcp over stdio, from the project's last build",
  () => connectStdio(['mcp', '--root', sample.root]),
  () => sample.index,
  '2026-07-28',
);

describe('content-index mcp', () => {
  let connection: StdioConnection | undefined;
  afterAll(() => connection?.close());

  it('serves the sources without a build with --sources, and says so on stderr only', async () => {
    connection = await connectStdio(['mcp', '--sources']);
    const stats = await connection.callTool('content_stats', {});
    expect((stats.structuredContent as { counts: unknown }).counts).toEqual(sample.index.counts);
    expect(connection.stderr()).toContain(
      `content-index mcp: serving ${sample.index.content.length} items from content over stdio`,
    );
  });

  it('serves a site built for D1 from its sources, and says why on stderr', async () => {
    const d1 = await buildSample('d1');
    try {
      const served = await connectStdio(['mcp', '--root', d1.root]);
      const stats = await served.callTool('content_stats', {});
      expect((stats.structuredContent as { counts: unknown }).counts).toEqual(sample.index.counts);
      expect(served.stderr()).toContain(
        'content-index mcp: the last build serves /mcp from D1, which is not reachable from here; building the content in memory',
      );
      await served.close();
    } finally {
      await d1.dispose();
    }
  });

  it.each([
    [['--drafts'], ['--drafts']],
    [['--future'], ['--future']],
    [
      ['--drafts', '--future', '--content', 'content'],
      ['--drafts', '--future', '--content'],
    ],
  ])('refuses %j without --sources, which would be ignored, and serves nothing', async (args, named) => {
    const child = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'mcp', '--root', sample.root, ...args],
      { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end(); // a server that started anyway stops at once
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    for (const flag of named) {
      expect(stderr).toContain(
        `${flag}: applies only with --sources: without it the last build's data is served as that build made it; nothing is served`,
      );
    }
    expect(stderr).toContain(`hint: pass --sources ${named[0]} to serve the content built in memory with it`);
    expect(stderr).not.toContain('serving');
  });

  it('answers a line over the limit, or no JSON-RPC message, with a JSON-RPC error and keeps serving the requests behind it', async () => {
    const child = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'mcp', '--root', sample.root],
      {
        cwd: PROJECT_ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const answers: { id: unknown; result?: { structuredContent?: { total?: number } }; error?: unknown }[] =
      [];
    let buffered = '';
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        answers.push(JSON.parse(buffered.slice(0, newline)));
        buffered = buffered.slice(newline + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const until = async (count: number) => {
      while (answers.length < count) {
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 1000);
        });
        if (child.exitCode !== null) break;
      }
    };
    // A server that died never drains its stdin: the write then ends with the process.
    child.stdin.on('error', () => undefined);
    const send = (message: string) =>
      Promise.race([
        new Promise<void>((resolve) =>
          child.stdin.write(`${message}\n`) ? resolve() : child.stdin.once('drain', resolve),
        ),
        exited.then(() => undefined),
      ]);
    const search = (id: number | string, query: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'search_content', arguments: { query } },
      });
    try {
      await send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-03-26',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      );
      await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      await until(1);
      // Over 10 MiB, which used to end the process (exit 13), with its id first; then one just over the
      // limit with its id last, where it cannot be read cheaply; then an ordinary request.
      await send(search(2, 'x'.repeat(11 << 20)));
      await send(
        `${search(3, 'y'.repeat(MAX_REQUEST_BYTES))
          .replace(/,"id":3/, '')
          .slice(0, -1)},"id":3}`,
      );
      await send(search('four', 'rust'));
      await until(4);
      // A line that is not JSON, a blank one and a batch: answered as HTTP answers them (the blank skipped).
      await send('this is not JSON');
      await send('');
      await send(`[${search(5, 'rust')}]`);
      await send(search('six', 'rust'));
      await until(7);
      expect(answers.slice(4, 6)).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } },
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              'Invalid Request: a batch (a JSON array of messages) is not read over stdio; send one message per line',
          },
        },
      ]);
      expect(answers[6]?.id).toBe('six');
      const tooLarge = {
        code: -32600,
        message: `Invalid Request: a message must not exceed ${MAX_REQUEST_BYTES} bytes (one line of JSON); this one was not read. Send smaller messages.`,
      };
      expect(answers.slice(1, 3)).toEqual([
        { jsonrpc: '2.0', id: 2, error: tooLarge },
        { jsonrpc: '2.0', id: null, error: tooLarge },
      ]);
      expect(answers[3]?.id).toBe('four');
      expect(answers[3]?.result?.structuredContent?.total).toBeGreaterThan(0);
      expect(child.exitCode).toBeNull();
      expect(stderr).toContain(
        `content-index mcp: refused a message of more than ${MAX_REQUEST_BYTES} bytes (id 2)`,
      );
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
  });

  it('fails with a clear message and exit code 1 when there is no built data', async () => {
    const missing = join(sample.out, 'nowhere');
    const child = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'mcp', '--root', missing],
      {
        cwd: PROJECT_ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${join(missing, '.content-index/worker/mcp-data.mjs')}: cannot read the MCP data: not found\n` +
        '  hint: run content-index build first (or pass --root DIR), or pass --sources to serve content/ without building\n' +
        '\n✗ 1 problem.\n',
    );
  });
});
