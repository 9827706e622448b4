import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/site.ts';

// `npm test` must pass from a clone anywhere: no tracked source may name a path of one machine.
const CODE = /\.(?:[cm]?[jt]s|json|toml|ya?ml)$/;
// An import or a path literal that starts at a machine's root or home.
const ABSOLUTE = [
  /\bfrom\s+['"]\/(?!\/)/,
  /\bimport\(\s*['"]\/(?!\/)/,
  /['"`](?:\/(?:tmp|home|root|work|Users|var\/folders)\/|~\/|[A-Z]:\\\\)/,
];

it('no tracked source file imports or names an absolute path of one machine', async () => {
  const files = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => CODE.test(f) && f !== 'package-lock.json');
  expect(files.length).toBeGreaterThan(50);
  const offenders: string[] = [];
  for (const file of files) {
    const text = await readFile(join(PROJECT_ROOT, file), 'utf8').catch(() => '');
    text.split('\n').forEach((line, i) => {
      if (ABSOLUTE.some((re) => re.test(line)) && !line.includes('portability-allow')) {
        offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  expect(offenders).toEqual([]);
});
