import { execFile } from 'node:child_process';
import {
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build as esbuild } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundledMarks } from './helpers/bundled.ts';
import { connectV2Http } from './helpers/mcp.ts';
import { type PagesDev, startPagesDev } from './helpers/pages-dev.ts';
import { md, PROJECT_ROOT, snapshotDir } from './helpers/site.ts';

// The package as a user gets it: packed, installed from the tarball into a Hugo site outside this
// repository (the registry is the only network: the npm cache first), set up with `content-index init`,
// built, and served by the site's own `wrangler pages dev`.
const run = promisify(execFile);

/** npm and the CLI as a user's shell runs them: none of the variables `npm test` sets for this project. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) || /^npm_config_(cache|userconfig|registry)$/i.test(key)) env[key] = value;
  }
  delete env.NODE_ENV; // vitest's "test" must not reach npm or the build
  return { ...env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' };
}

async function sh(command: string, args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: userEnv(), maxBuffer: 16 << 20 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const HUGO_HOME = '<!doctype html><title>Hugo</title><h1>The site’s own home page</h1>\n';

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** What the package is packed from in a clone (package.json's files, and what npm always adds). */
const PACKED_FROM = ['package.json', 'bin', 'dist', 'docs', 'README.md', 'ARCHITECTURE.md', 'LICENSE'];

let work: string;
let packedManifest: { scripts?: Record<string, string>; [key: string]: unknown };
let site: string;
let packed: Packed;
let install: { code: number; stdout: string; stderr: string };
let server: PagesDev | undefined;
const cli = (...args: string[]) =>
  sh(process.execPath, [join(site, 'node_modules/.bin/content-index'), ...args], site);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'content-index-package-'));
  // `npm pack` as in a clone, scripts and all (prepack cleans package.json, postpack puts it back), in a
  // copy of the repository: the other test files read this repository's package.json meanwhile. dist/
  // is current (the global setup), so prepack's build-dist.mjs finds nothing to do.
  const clone = join(work, 'clone');
  for (const path of [...PACKED_FROM, 'scripts', 'build', 'tsconfig.json']) {
    await cp(join(PROJECT_ROOT, path), join(clone, path), { recursive: true });
  }
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const pack = await sh(npm, ['pack', '--json', '--pack-destination', work], clone);
  expect(pack.code, pack.stderr).toBe(0);
  [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as [Packed];
  packedManifest = JSON.parse(
    (await run('tar', ['-xzOf', join(work, packed.filename), 'package/package.json'])).stdout,
  );
  expect(await readFile(join(clone, 'package.json'), 'utf8')).toBe(
    await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8'),
  );

  site = join(work, 'hugo-site');
  const files: Record<string, string> = {
    'hugo.toml':
      "baseURL = 'https://blog.example.org/'\ntitle = 'Mi blog'\ndefaultContentLanguage = 'es'\n[languages.es]\n[languages.en]\n",
    'content/posts/hola.es.md': md({ title: 'Hola mundo', date: '2025-02-01', tags: ['ia'] }),
    'content/posts/hola.en.md': md({ title: 'Hello world', date: '2025-02-01' }),
    'content/tips/atajo.es.md': md({ title: 'Un atajo', date: '2025-03-01' }),
    'layouts/_default/single.html': '{{ .Content }}\n',
    // What `hugo` left in the output folder: the build adds to it and never replaces it, and checks every
    // address of the index against it (each is a page hugo wrote).
    'public/index.html': HUGO_HOME,
    ...Object.fromEntries(
      ['posts', 'posts/hola', 'en/posts/hola', 'tips', 'tips/atajo'].map((page) => [
        `public/${page}/index.html`,
        `<!doctype html><title>${page}</title>\n`,
      ]),
    ),
    '.gitignore': 'public/\nresources/_gen/\n',
    // A Pages site has wrangler already; pinned to the line that runs on Node 20.
    'package.json': `${JSON.stringify({ name: 'mi-blog', private: true, scripts: { build: 'hugo' }, devDependencies: { wrangler: '4.86.0' } }, null, 2)}\n`,
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(site, path)), { recursive: true });
    await writeFile(join(site, path), content);
  }
  install = await sh(
    npm,
    // --ignore-scripts: what npm 11 does by default for dependencies, on the npm 10 of older Node lines too.
    [
      'install',
      '--save-dev',
      join(work, packed.filename),
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ],
    site,
  );
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

it('packs prebuilt JavaScript, type declarations and what it serves, and no TypeScript source', () => {
  const paths = packed.files.map((f) => f.path);
  expect(paths).toEqual(
    expect.arrayContaining([
      'package.json',
      'README.md',
      'bin/content-index.js',
      'dist/cli.js',
      'dist/index.js',
      'dist/parse-worker.js',
      'dist/d1-rows-worker.js',
      'dist/stamp-worker.js',
      'dist/types/index.d.ts',
      'dist/functions/api.js',
      'dist/functions/mcp.js',
      'dist/types/functions/mcp.d.ts',
      'dist/schemas/snapshots/v1.schema.json',
      'dist/vendor/redoc/redoc.standalone.js',
      'dist/vendor/redoc/LICENSE-redoc.txt',
      // The reference the README, the messages and the files init writes point at.
      'docs/configuration.md',
      'docs/existing-site.md',
      'docs/mcp.md',
    ]),
  );
  expect(paths.filter((p) => /\.[cm]?ts$/.test(p) && !p.endsWith('.d.ts'))).toEqual([]);
  expect(
    paths.filter(
      (p) =>
        !/^(bin\/content-index\.js|dist\/.+|docs\/[a-z-]+\.md|package\.json|README\.md|ARCHITECTURE\.md|LICENSE)$/.test(
          p,
        ),
    ),
  ).toEqual([]);
  console.info(
    `package: ${packed.filename} ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${paths.length} files`,
  );
});

it('packs a package.json whose scripts all work in an installed copy: none that runs what is not shipped', () => {
  // The repository's scripts run scripts/, tests/ and dev tools, none of which ship: npm 11 would list
  // `prepare` as an install script to approve, and `npm run build` in node_modules/content-index would fail.
  const shipped = new Set(packed.files.map((f) => f.path));
  const broken = Object.entries(packedManifest.scripts ?? {}).filter(([, command]) =>
    [...command.matchAll(/(?:^|\s)((?:\.\/)?[\w.-]+\/[\w./-]+\.[cm]?[jt]s)\b/g)].some(
      ([, file]) => !shipped.has((file as string).replace(/^\.\//, '')),
    ),
  );
  expect(broken).toEqual([]);
  expect(
    Object.keys(packedManifest.scripts ?? {}).filter((name) => /^(pre|post)?(install|prepare)$/.test(name)),
  ).toEqual([]);
  expect(packedManifest.devDependencies).toBeUndefined();
  expect(packedManifest['clean-package']).toBeUndefined();
  // The manifest is otherwise the repository's: what an installed copy runs is unchanged.
  expect(packedManifest).toMatchObject({
    name: 'content-index',
    bin: { 'content-index': 'bin/content-index.js' },
  });
});

it('every relative link of the shipped README and docs leads to a file the package ships', async () => {
  const shipped = new Set(packed.files.map((f) => f.path));
  const broken: string[] = [];
  for (const page of [...shipped].filter((p) => /^(README|docs\/[a-z-]+)\.md$/.test(p))) {
    const text = await readFile(join(site, 'node_modules/content-index', page), 'utf8');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^([a-z]+:|#|\/)/i.test(target)) continue;
      const path = posix.normalize(posix.join(posix.dirname(page), target.split('#')[0] as string));
      if (!shipped.has(path)) broken.push(`${page}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

it('carries the licence of every package its JavaScript bundles', async () => {
  // The packages read from the installed JavaScript itself (esbuild's marks, their paths from the packed
  // clone, where dist/ was built), not from the list scripts/bundled-packages.mjs keeps.
  const installed = join(site, 'node_modules/content-index');
  const folders = new Map<string, string>();
  for (const file of packed.files
    .map((f) => f.path)
    .filter((p) => /^dist\/(functions\/)?[^/]+\.js$/.test(p))) {
    const text = await readFile(join(installed, file), 'utf8');
    for (const { prefix, name } of bundledMarks(text))
      folders.set(resolve(work, 'clone', prefix, name), name);
  }
  expect([...new Set(folders.values())]).toEqual(
    expect.arrayContaining(['gray-matter', 'commander', 'ajv', 'jsonc-parser']),
  );
  // One section a copy: its `name@version (licence)` line, then its licence files' texts.
  const [, ...sections] = (await readFile(join(installed, 'dist/THIRD-PARTY-LICENSES.txt'), 'utf8')).split(
    /\n(?:---\n\n)?(?=\S+@\d+\.\d+\.\d+\S* \()/,
  );
  const byHeader = new Map(sections.map((section) => [section.slice(0, section.indexOf(' (')), section]));
  const missing: string[] = [];
  for (const [folder, name] of folders) {
    const { version } = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
      version: string;
    };
    const section = byHeader.get(`${name}@${version}`);
    const licences = (await readdir(folder)).filter((f) => /^licen[cs]e/i.test(f));
    const texts = await Promise.all(
      licences.map(async (f) => (await readFile(join(folder, f), 'utf8')).trim()),
    );
    if (!section || licences.length === 0 || !texts.every((text) => section.includes(text)))
      missing.push(`${name}@${version}`);
  }
  expect(missing).toEqual([]);
});

it('installs from the tarball without the tools only this repository needs', async () => {
  expect(install.code, install.stderr).toBe(0);
  const manifest = JSON.parse(await readFile(join(site, 'node_modules/content-index/package.json'), 'utf8'));
  expect(Object.keys(manifest.dependencies)).not.toEqual(expect.arrayContaining(['redoc']));
  for (const devOnly of ['redoc', 'tsx', 'vitest', 'typescript', '@biomejs/biome', 'playwright-core']) {
    await expect(stat(join(site, 'node_modules', devOnly)), devOnly).rejects.toThrow();
  }
  expect(manifest.peerDependencies).toEqual({ wrangler: '^4.86.0' });
  // dev's watcher is a native module: its prebuilt package for this platform came with the install,
  // without the install script that npm 11 does not run.
  const watcher = await sh(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const w = await import('@parcel/watcher'); console.log(typeof w.subscribe);",
    ],
    join(site, 'node_modules/content-index'),
  );
  expect(watcher.stdout.trim(), watcher.stderr).toBe('function');
});

it('init sets the site up, and a second run changes nothing', async () => {
  const first = await cli('init');
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toContain('content-index init: a Hugo site, output folder public/');
  expect(first.stdout).toContain('  created  functions/mcp/[[path]].ts');
  expect(await readFile(join(site, 'site.config.ts'), 'utf8')).toContain("site: 'https://blog.example.org/'");

  // What the installed copy writes and prints points at its own docs, which are there.
  const written = `${await readFile(join(site, 'site.config.ts'), 'utf8')}${await readFile(join(site, 'headers.config.ts'), 'utf8')}`;
  const missingConfig = await cli('check', '--config', 'nope.ts');
  expect(missingConfig.stderr).toContain('see node_modules/content-index/docs/configuration.md');
  const pointers = [
    ...`${written}${missingConfig.stderr}`.matchAll(/node_modules\/content-index\/docs\/[a-z-]+\.md/g),
  ];
  expect(pointers.length).toBeGreaterThanOrEqual(4);
  for (const [pointer] of pointers) await stat(join(site, pointer));
  // The deploy runs the site generator first, as the build does.
  expect(JSON.parse(await readFile(join(site, 'package.json'), 'utf8')).scripts).toMatchObject({
    build: 'hugo',
    deploy: 'hugo && content-index deploy',
  });

  const files = () => snapshotDir(site, { skip: ['node_modules'] });
  const before = await files();
  const second = await cli('init');
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('Nothing to do');
  expect(await files()).toEqual(before);
});

it("the configuration init wrote type-checks against the package's declarations, which catch a mistake", async () => {
  await writeFile(
    join(site, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        noEmit: true,
        types: [],
      },
      include: ['site.config.ts', 'headers.config.ts', 'probe.ts'],
    }),
  );
  await writeFile(
    join(site, 'probe.ts'),
    "import { build, check, type BuildResult, defineSite } from 'content-index';\n" +
      'export const result: Promise<BuildResult> = check({ root: "." });\n' +
      'export const built = build;\n' +
      'export default defineSite({ site: 42, images: "https://i.example/" });\n',
  );
  const tsc = await sh(
    process.execPath,
    [join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'],
    site,
  );
  const errors = tsc.stdout.split('\n').filter((line) => /error TS/.test(line));
  expect(errors).toEqual([expect.stringMatching(/^probe\.ts\(4,29\): error TS2322/)]);
  await rm(join(site, 'probe.ts'));
  await rm(join(site, 'tsconfig.json'));
});

it('builds, and serves the index, a 410 for a withdrawn version and the MCP tools through wrangler pages dev', async () => {
  const built = await cli('build');
  expect(built.code, built.stderr).toBe(0);
  expect(built.stdout).toMatch(/✓ 2 items → \d+ files in .*hugo-site[\\/]public /);
  expect(JSON.parse(await readFile(join(site, 'public/api/v1/content.json'), 'utf8')).versions.current).toBe(
    'v1',
  );
  // Only the site's configuration was compiled (esbuild, into the site's cache); the tool ran as shipped.
  expect(await readdir(join(site, 'node_modules/.cache/content-index'))).toEqual(['config']);

  // The tool ships only v1. A withdrawn v1 needs a v2: the programmatic API takes the test fixture's v2
  // serializer, built for the site as a user would write it (importing from content-index).
  await esbuild({
    entryPoints: [join(PROJECT_ROOT, 'tests/fixtures/v2/serializer.ts')],
    outfile: join(site, 'v2/serializer.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    plugins: [
      {
        name: 'registry-from-the-package',
        setup(b) {
          b.onResolve({ filter: /serializers\/registry\.ts$/ }, () => ({
            path: 'content-index',
            external: true,
          }));
        },
      },
    ],
  });
  for (const file of ['content-index.schema.json', 'snapshot.schema.json']) {
    await copyFile(join(PROJECT_ROOT, 'tests/fixtures/v2', file), join(site, 'v2', file));
  }
  // v1 is re-dated into the past to be withdrawn by now. It was never deployed, so the record the first
  // build wrote is deleted by hand, as docs/versions.md says (otherwise: rule published-date-kept).
  await rm(join(site, 'versions.lock.json'));
  await writeFile(
    join(site, 'headers.config.ts'),
    "import { defineHeaders } from 'content-index';\n\nexport default defineHeaders({\n  versions: {\n" +
      "    v1: { published: '2024-01-15', sunset: '2025-06-01' },\n    v2: { published: '2024-06-01' },\n  },\n});\n",
  );
  await writeFile(
    join(site, 'build-v2.mjs'),
    "import { build } from 'content-index';\nimport { WITH_V2 } from './v2/serializer.mjs';\n\n" +
      'const result = await build({ serializers: WITH_V2 });\nconsole.log(result.files.length);\n',
  );
  const v2 = await sh(process.execPath, ['build-v2.mjs'], site);
  expect(v2.code, v2.stderr).toBe(0);

  server = await startPagesDev('public', [], site, join(site, 'node_modules/wrangler/bin/wrangler.js'));

  const index = await fetch(`${server.url}/api/content.json`);
  expect(index.status).toBe(200);
  const body = (await index.json()) as { versions: { current: string }; items: { title: string }[] };
  expect(body.versions.current).toBe('v2');
  expect(body.items.map((i) => i.title).sort()).toEqual(['Hola mundo', 'Un atajo']);
  expect((await fetch(`${server.url}/api/v2/content.json`)).status).toBe(200);

  const withdrawn = await fetch(`${server.url}/api/v1/content.json`);
  expect(withdrawn.status).toBe(410);
  expect(withdrawn.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await withdrawn.json()).toMatchObject({ status: 410 });
  expect(withdrawn.headers.get('link')).toContain('/api/v2/content.json');

  const mcp = await connectV2Http(`${server.url}/mcp`);
  try {
    expect((await mcp.listTools()).map((t) => t.name).sort()).toEqual([
      'content_stats',
      'list_content',
      'search_content',
    ]);
  } finally {
    await mcp.close();
  }

  // Hugo's home page is the site's; the API reference comes from the vendored renderer.
  expect(await (await fetch(`${server.url}/`)).text()).toBe(HUGO_HOME);
  expect((await fetch(`${server.url}/docs/redoc.standalone.js`)).status).toBe(200);
});
