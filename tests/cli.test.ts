import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from './helpers/site.ts';

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'bin', 'content-index.js');

let site: TempSite;
beforeAll(async () => {
  site = await tempSite({
    'content/posts/bien.es.md': md({ title: 'Bien' }),
    'content/posts/mal.es.md': md({ title: 'Mal', draft: 'sí' }),
  });
});
afterAll(() => site.dispose());

async function bin(...args: string[]) {
  return binWith({}, ...args);
}

async function binWith(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: site.root,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

it('the installed bin exits 1 on invalid content, prints the problem and no stack trace', async () => {
  const result = await bin('build');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('content/posts/mal.es.md:3: draft: must be true or false, got "sí"');
  expect(result.stderr).not.toMatch(/^\s+at /m);
});

it('prints the stack trace with --debug', async () => {
  const result = await bin('build', '--debug');
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^\s+at /m);
});

it('exits 0 and reports what it wrote once the content is fixed', async () => {
  await site.write('content/posts/mal.es.md', md({ title: 'Mal', draft: false }));
  const result = await bin('build');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/✓ 2 items → \d+ files in /);
  expect(result.stdout).toContain('posts 2 · projects 0 · tips 0');
});

it('rejects unknown options with a usage error', async () => {
  const result = await bin('build', '--nope');
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain("unknown option '--nope'");
});

it('gives the same build through the prebuilt dist/ the bin runs and through the TypeScript sources', async () => {
  const bundled = await bin('build', '--json', '--out', 'out-bundled');
  const sources = await site.cli('build', '--json', '--out', 'out-sources');
  expect(bundled.code).toBe(0);
  expect(sources.code).toBe(0);
  const files = (r: { stdout: string }) =>
    (JSON.parse(r.stdout) as { files: { path: string; bytes: number }[] }).files.map((f) => [
      f.path,
      f.bytes,
    ]);
  expect(files(bundled)).toEqual(files(sources));
  // Byte for byte: `generated` comes from the content, not from the time of the build.
  expect(await snapshotDir(join(site.root, 'out-bundled'))).toEqual(
    await snapshotDir(join(site.root, 'out-sources')),
  );
});

it('says how to build dist/ when a source checkout has none, without a stack trace', async () => {
  const checkout = join(site.root, 'checkout');
  await mkdir(join(checkout, 'bin'), { recursive: true });
  await copyFile(BIN, join(checkout, 'bin', 'content-index.js'));
  const result = await run(process.execPath, [join(checkout, 'bin', 'content-index.js'), 'build']).catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect((result as { code?: number }).code).toBe(2);
  expect(result.stderr).toContain('content-index: dist/cli.js is missing');
  expect(result.stderr).toContain('`npm ci` builds it');
  expect(result.stderr).not.toMatch(/^\s+at /m);
});

it('prints its version with --version and -v', async () => {
  const { version } = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  for (const flag of ['--version', '-v']) {
    const result = await bin(flag);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  }
});

it('says in one line what failed when a command meets an internal error, and prints the stack with --debug', async () => {
  // A copy of the package as it is installed (bin/ and dist/, no sources) whose v1 schema file is gone:
  // `schema snapshot v1` fails reading it, which is no mistake of the user's.
  const pkg = join(site.root, 'installed');
  await mkdir(join(pkg, 'bin'), { recursive: true });
  await copyFile(BIN, join(pkg, 'bin', 'content-index.js'));
  await cp(join(PROJECT_ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  await rm(join(pkg, 'dist', 'schemas', 'v1', 'content-index.schema.json'));
  const runIt = (...args: string[]) =>
    run(process.execPath, [join(pkg, 'bin', 'content-index.js'), ...args], { cwd: site.root }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const plain = await runIt('schema', 'snapshot', 'v1');
  expect((plain as { code?: number }).code).toBe(2);
  expect(plain.stderr).toMatch(
    /^✗ internal error in `content-index schema snapshot`: ENOENT: .*content-index\.schema\.json/m,
  );
  expect(plain.stderr).toContain('rerun with --debug for the stack trace');
  expect(plain.stderr).not.toMatch(/^\s+at /m);
  const debug = await runIt('schema', 'snapshot', 'v1', '--debug');
  expect((debug as { code?: number }).code).toBe(2);
  expect(debug.stderr).toMatch(/^\s+at /m);
});
