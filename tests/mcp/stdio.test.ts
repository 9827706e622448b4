import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
