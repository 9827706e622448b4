import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ConformanceTools } from './node22.ts';

/** The official MCP conformance suite's server scenarios that apply to a stateless, tools-only server. */
export const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Runs one scenario against `url`; returns its checks. */
export async function runScenario(
  tools: ConformanceTools,
  url: string,
  scenario: string,
  outputDir: string,
): Promise<Check[]> {
  const output = join(outputDir, scenario);
  // The suite exits non-zero on a failed check; the checks file says which, so read it either way.
  await promisify(execFile)(
    tools.node,
    [tools.cli, 'server', '--url', url, '--scenario', scenario, '--output-dir', output],
    { timeout: 60_000 },
  ).catch(() => undefined);
  const [run] = await readdir(output);
  return JSON.parse(await readFile(join(output, run ?? '', 'checks.json'), 'utf8')) as Check[];
}

/** What a test compares: each check as `id: STATUS (message)`, against the same ids all passing. */
export function verdicts(checks: readonly Check[]): { got: string[]; passing: string[] } {
  return {
    got: checks.map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ''}`),
    passing: checks.map((c) => `${c.id}: SUCCESS`),
  };
}
