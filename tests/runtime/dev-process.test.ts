import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEV_V8_FLAGS, needsDevFlags, runWithDevFlags, STARTED } from '../../build/runtime/dev-process.ts';

it('starts dev again with the V8 flags unless the process has them already', () => {
  expect(needsDevFlags([])).toBe(true);
  expect(needsDevFlags(['--enable-source-maps'])).toBe(true);
  expect(needsDevFlags([DEV_V8_FLAGS[0] as string])).toBe(true);
  expect(needsDevFlags([...DEV_V8_FLAGS])).toBe(false);
});

it('runs dev in the process itself under an inspector or a profiler, which then look at dev', () => {
  for (const flag of [
    '--inspect',
    '--inspect=127.0.0.1:9230',
    '--inspect-brk',
    '--inspect-port=0',
    '--cpu-prof',
    '--cpu-prof-dir=/x',
    '--heap-prof',
    '--prof',
  ])
    expect(needsDevFlags([flag]), flag).toBe(false);
  // A flag that only starts with the same letters is not one of those.
  expect(needsDevFlags(['--profile-something'])).toBe(true);
});

describe('a Node that refuses the flags', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'content-index-dev-process-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs dev in the process itself (undefined), saying why, when the child Node refuses a flag', async () => {
    const script = join(dir, 'ran.mjs');
    await writeFile(
      script,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(dir, 'ran'))}, '');\n`,
    );
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let handedOn: number | undefined;
    let told: string;
    try {
      handedOn = await runWithDevFlags(script, [], ['--no-such-v8-flag-of-content-index']);
    } finally {
      told = said.mock.calls.map(([text]) => String(text)).join('');
      said.mockRestore();
    }
    expect(handedOn).toBeUndefined();
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(told).toContain('does not take --no-such-v8-flag-of-content-index; dev runs without them');
  });

  it("hands on a started child's exit code, Node's code for a bad option included", async () => {
    const script = join(dir, 'exits.mjs');
    await writeFile(script, `process.send(${JSON.stringify(STARTED)}, () => process.exit(9));\n`);
    expect(await runWithDevFlags(script, [])).toBe(9);
  });
});
