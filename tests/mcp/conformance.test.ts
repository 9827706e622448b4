import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltSample, buildSample } from '../helpers/mcp.ts';
import { type ConformanceTools, conformanceTools } from '../helpers/node22.ts';
import { type PagesDev, startPagesDev } from '../helpers/pages-dev.ts';

/** The official MCP conformance suite (Node 22) against the Function served by wrangler pages dev. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let sample: BuiltSample;
let server: PagesDev;
let tools: ConformanceTools;
let results: string;

beforeAll(async () => {
  [sample, tools] = await Promise.all([buildSample(), conformanceTools()]);
  server = await startPagesDev(sample.out);
  results = await mkdtemp(join(tmpdir(), 'content-index-conformance-'));
}, 360_000);
afterAll(async () => {
  await server?.stop();
  await sample?.dispose();
  if (results) await rm(results, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  it(`passes the ${scenario} scenario`, async () => {
    const output = join(results, scenario);
    // The suite exits non-zero on a failed check; the checks file says which, so read it either way.
    await promisify(execFile)(
      tools.node,
      [tools.cli, 'server', '--url', `${server.url}/mcp`, '--scenario', scenario, '--output-dir', output],
      { timeout: 60_000 },
    ).catch(() => undefined);
    const [run] = await readdir(output);
    const checks = JSON.parse(await readFile(join(output, run ?? '', 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ''}`)).toEqual(
      checks.map((c) => `${c.id}: SUCCESS`),
    );
  });
}
