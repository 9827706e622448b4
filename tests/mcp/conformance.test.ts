import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runScenario, SCENARIOS, verdicts } from '../helpers/conformance.ts';
import { type BuiltSample, buildSample } from '../helpers/mcp.ts';
import { type ConformanceTools, conformanceTools } from '../helpers/node22.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';

/**
 * The official MCP conformance suite (Node 22) against the Function served by wrangler pages dev, with
 * the embedded backend; tests/mcp/d1.test.ts runs the same scenarios against the D1 backend.
 */
let sample: BuiltSample;
let server: PagesDev;
let tools: ConformanceTools;
let results: string;

beforeAll(async () => {
  [sample, tools] = await Promise.all([buildSample(), conformanceTools()]);
  server = await startProjectPagesDev(sample.out, [], sample.root);
  results = await mkdtemp(join(tmpdir(), 'content-index-conformance-'));
}, 360_000);
afterAll(async () => {
  await server?.stop();
  await sample?.dispose();
  if (results) await rm(results, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  it(`passes the ${scenario} scenario`, async () => {
    const checks = await runScenario(tools, `${server.url}/mcp`, scenario, results);
    expect(checks.length).toBeGreaterThan(0);
    const { got, passing } = verdicts(checks);
    expect(got).toEqual(passing);
  });
}
