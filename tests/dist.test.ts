import { execFile } from 'node:child_process';
import { cp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requiresLeftOut } from '../scripts/bundled-packages.mjs';
import { type Checkout, copyCheckout } from './helpers/checkout.ts';
import { PROJECT_ROOT } from './helpers/site.ts';

// dist/ in a source checkout: scripts/build-dist.mjs, and the bin that runs what the sources say.

let checkout: Checkout;
beforeAll(async () => {
  checkout = await copyCheckout();
});
afterAll(() => checkout?.dispose());

it('names the schema file and the keyword when ajv’s strict mode refuses an edited schema, without a stack trace', async () => {
  // A field retyped from integer to string with its `minimum` left behind.
  const file = join(checkout.root, 'build/schemas/v1/content-index.schema.json');
  const original = await readFile(file, 'utf8');
  const edited = original.replace(
    '"posts": { "type": "integer", "minimum": 0 }',
    '"posts": { "type": "string", "minimum": 0 }',
  );
  expect(edited).not.toBe(original);
  await writeFile(file, edited);
  try {
    const result = await checkout.run(process.execPath, ['scripts/build-dist.mjs']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '✗ dist/ was not built: build/schemas/v1/content-index.schema.json: ajv\'s strict mode refuses the keyword "minimum" at #/$defs/Counts/properties/posts: missing type "number" for keyword "minimum" (strictTypes)',
    );
    expect(result.stderr).toContain('hint: ');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  } finally {
    await writeFile(file, original);
  }
});

it('refuses to bundle a package that brings no licence to ship beside its code, without a stack trace', async () => {
  // commander as installed, its licence file gone: a package of the checkout's own (they are links).
  const linked = join(checkout.root, 'node_modules', 'commander');
  await rm(linked);
  await cp(join(PROJECT_ROOT, 'node_modules', 'commander'), linked, { recursive: true, dereference: true });
  await rm(join(linked, 'LICENSE'));
  try {
    const result = await checkout.run(process.execPath, ['scripts/build-dist.mjs']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /✗ dist\/ was not built: commander@\d+\.\d+\.\d+: bundled into dist\/, but no licence file comes with the package/,
    );
    expect(result.stderr).toContain(
      'hint: leave the package out of the bundle (scripts/bundled-packages.mjs)',
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
  } finally {
    await rm(linked, { recursive: true, force: true });
    await symlink(join(PROJECT_ROOT, 'node_modules', 'commander'), linked);
  }
});

it("names the requires of a bundled package that the bundle left to run time, and none of the project's own", () => {
  const metafile = {
    inputs: {
      'node_modules/pkg/index.js': {
        bytes: 1,
        imports: [
          { path: 'node_modules/pkg/lib.js', kind: 'require-call' as const },
          { path: 'node:events', kind: 'require-call' as const, external: true },
        ],
      },
      'build/cli.ts': {
        bytes: 1,
        imports: [{ path: 'commander', kind: 'import-statement' as const, external: true }],
      },
    },
    outputs: {},
  };
  expect(requiresLeftOut(metafile)).toEqual(['node_modules/pkg/index.js: node:events']);
});

it('runs what the sources say in a source checkout: dist/ built or rebuilt first, left alone when current, never run stale', async () => {
  const bin = (...args: string[]) => checkout.run(process.execPath, ['bin/content-index.js', ...args]);
  const cli = join(checkout.root, 'build/cli.ts');
  const original = await readFile(cli, 'utf8');
  const described = (text: string) =>
    original.replace(
      "'Build a read-only Content Index API (JSON, OpenAPI, llms.txt, MCP) for Cloudflare Pages'",
      JSON.stringify(text),
    );
  expect(described('x')).not.toBe(original);

  // A clone with no dist/ yet: built, then the command runs.
  const first = await bin('--version');
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toContain('content-index: building dist/ from the sources');
  // Nothing changed: no build, nothing said.
  const again = await bin('--version');
  expect([again.code, again.stderr]).toEqual([0, '']);

  // An edited source: the command runs the edit.
  await writeFile(cli, described('An edited description'));
  const edited = await bin('--help');
  expect(edited.code).toBe(0);
  expect(edited.stderr).toContain('content-index: the sources changed since dist/ was built; rebuilding it');
  expect(edited.stdout).toContain('An edited description');

  // An edit dist/ cannot be built from: refused, naming the command that rebuilds it, the old dist/ not run.
  await writeFile(cli, `${described('A broken edit')}\nconst broken = ;\n`);
  const broken = await bin('--help');
  expect(broken.code).toBe(2);
  expect(broken.stdout).not.toContain('An edited description');
  expect(broken.stderr).toContain('dist/ could not be rebuilt from the sources');
  expect(broken.stderr).toContain('`node scripts/build-dist.mjs`');

  await writeFile(cli, original);
  const restored = await bin('--help');
  expect(restored.code).toBe(0);
  expect(restored.stdout).toContain('Build a read-only Content Index API');

  // Current dist/ is told from the inputs' stamps without reading them, once they are older than the
  // window in which a stamp cannot tell a write from none (dist-inputs.mjs RACY_MS): a run then records
  // them. An edit that keeps the size and sets the modification time back (`sed`, then `touch -d`) still
  // changes the change time, and is run.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2_100));
  await settle();
  expect(await bin('--version')).toMatchObject({ code: 0, stderr: '' });
  // `touch -r`, as a user would: the times copied to the nanosecond, which Node's utimes cannot.
  const times = join(checkout.root, 'cli-times');
  await promisify(execFile)('touch', ['-r', cli, times]);
  const same = original.replace("'Build a read-only", "'Build a READ-only");
  expect(same).not.toBe(original);
  expect(same.length).toBe(original.length);
  await writeFile(cli, same);
  await promisify(execFile)('touch', ['-r', times, cli]);
  await settle();
  const hidden = await bin('--help');
  expect(hidden.code).toBe(0);
  expect(hidden.stderr).toContain('content-index: the sources changed since dist/ was built; rebuilding it');
  expect(hidden.stdout).toContain('Build a READ-only Content Index API');
  await writeFile(cli, original);
});

it('never takes dist/ for stale while another command of the checkout records the stamp', async () => {
  // The commands of a checkout (the test suite starts many at once) share one stamp. A command that
  // finds the same sources under new stamps records them; one that read the stamp half-written took
  // dist/ for stale and rebuilt it under the commands running it.
  expect((await checkout.run(process.execPath, ['bin/content-index.js', '--version'])).code).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 2_100)); // the inputs older than RACY_MS
  const script = (role: 'recorder' | 'asker') => `
    import { readFileSync, renameSync, writeFileSync } from 'node:fs';
    const { distState, STAMP } = await import(${JSON.stringify(pathToFileURL(join(checkout.root, 'scripts/dist-inputs.mjs')).href)});
    const until = Date.now() + 2_500;
    let stale = 0;
    let asked = 0;
    let torn = 0;
    while (Date.now() < until) {
      if (${JSON.stringify(role)} === 'recorder') {
        // New stamps for the same sources (as a checkout or a touch gives): distState records them.
        let stamp;
        try {
          stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
        } catch {
          torn++; // read while being written
          continue;
        }
        writeFileSync(STAMP + '.test', JSON.stringify({ ...stamp, stamps: 'other' }));
        renameSync(STAMP + '.test', STAMP);
      }
      asked++;
      if (!(await distState()).current) stale++;
    }
    console.log(JSON.stringify({ asked, stale, torn }));
  `;
  const run = (role: 'recorder' | 'asker') =>
    checkout.run(process.execPath, ['--input-type=module', '-e', script(role)]);
  const [recorder, asker] = await Promise.all([run('recorder'), run('asker')]);
  expect(recorder.stderr).toBe('');
  expect(asker.stderr).toBe('');
  const [recorded, asked] = [JSON.parse(recorder.stdout), JSON.parse(asker.stdout)];
  // Enough rounds for the two to meet (each round rewrites the stamp), and not one of them stale.
  expect(recorded.asked).toBeGreaterThan(20);
  expect(asked.asked).toBeGreaterThan(20);
  expect([recorded.stale, asked.stale, recorded.torn]).toEqual([0, 0, 0]);
});
