import { expect, it } from 'vitest';
import { DEV_V8_FLAGS, needsDevFlags } from '../../build/runtime/dev-process.ts';

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
