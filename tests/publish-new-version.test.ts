import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Checkout, copyCheckout } from './helpers/checkout.ts';
import { FAKE_WRANGLER } from './helpers/deploy.ts';
import { PROJECT_ROOT } from './helpers/site.ts';

// docs/versions.md, "Publishing a new version", followed as written in a copy of this repository: the
// serializer, schema and registry entry written by hand, then the documented commands in their order
// (`npx content-index …`, `npm run deploy`), each as a maintainer types it. It ends with v1 deprecated,
// v2 current and the snapshot committed in build/.

const exec = promisify(execFile);
let checkout: Checkout;
let live: Server;
let liveDir: string;

beforeAll(async () => {
  checkout = await copyCheckout({ git: true });
  // The live site: this repository's build as it is today (v1 only), served as Cloudflare would serve its files.
  const built = await checkout.run('npm', ['run', 'build']);
  expect(built.code, built.stderr).toBe(0);
  liveDir = await mkdtemp(join(tmpdir(), 'content-index-live-'));
  await cp(join(checkout.root, 'public/'), liveDir, { recursive: true, dereference: true });
  live = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    readFile(join(liveDir, path)).then(
      (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
      () => response.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  await new Promise<void>((resolve) => live.listen(0, '127.0.0.1', resolve));
}, 180_000);

afterAll(async () => {
  live?.close();
  await checkout?.dispose();
  if (liveDir) await rm(liveDir, { recursive: true, force: true });
});

const day = (date: Date) => date.toISOString().slice(0, 10);

it('publishes v2 as docs/versions.md says: the snapshot committed in build/, v1 deprecated, v2 current', async () => {
  const page = await readFile(join(PROJECT_ROOT, 'docs/versions.md'), 'utf8');
  const steps = page.slice(page.indexOf('### Publishing a new version'), page.indexOf('What clients see'));
  const git = (...args: string[]) => exec('git', args, { cwd: checkout.root });
  const write = (path: string, text: string) => writeFile(join(checkout.root, path), text);
  const read = (path: string) => readFile(join(checkout.root, path), 'utf8');

  // 1. The serializer (from the same content model), its schema, and their registry entry.
  expect(steps).toContain('`build/core/serializers/v2.ts`');
  expect(steps).toContain('`build/schemas/v2/content-index.schema.json`');
  expect(steps).toContain('`build/core/serializers/registry.ts`');
  const fixture = await readFile(join(PROJECT_ROOT, 'tests/fixtures/v2/serializer.ts'), 'utf8');
  const serializer = fixture.slice(fixture.indexOf('/**'), fixture.indexOf('export const V2'));
  await write(
    'build/core/serializers/v2.ts',
    [
      "import type { ContentModel } from '../content/model.ts';",
      "import { isoSeconds } from '../edge/dates.ts';",
      "import { LANGUAGES } from '../edge/languages.ts';",
      "import type { SerializeContext as VersionContext } from './v1.ts';",
      '',
      serializer.trimEnd(),
      '',
    ].join('\n'),
  );
  await cp(
    join(PROJECT_ROOT, 'tests/fixtures/v2/content-index.schema.json'),
    join(checkout.root, 'build/schemas/v2/content-index.schema.json'),
  );
  const registry = await read('build/core/serializers/registry.ts');
  const registered = registry
    .replace(
      "import contentIndexV1Schema from '../../schemas/v1/content-index.schema.json' with { type: 'json' };",
      "import contentIndexV1Schema from '../../schemas/v1/content-index.schema.json' with { type: 'json' };\nimport contentIndexV2Schema from '../../schemas/v2/content-index.schema.json' with { type: 'json' };",
    )
    .replace("} from './v1.ts';\n", "} from './v1.ts';\nimport { serializeV2 } from './v2.ts';\n")
    .replace(
      "    snapshotFile: schemaUrl('snapshots/v1.schema.json'),\n  },\n",
      "    snapshotFile: schemaUrl('snapshots/v1.schema.json'),\n  },\n  v2: {\n    serialize: serializeV2,\n    schema: contentIndexV2Schema,\n    schemaFile: schemaUrl('v2/content-index.schema.json'),\n    snapshotFile: schemaUrl('snapshots/v2.schema.json'),\n  },\n",
    );
  expect(registered).toContain('v2: {');
  expect(registered).toContain("import { serializeV2 } from './v2.ts';");
  await write('build/core/serializers/registry.ts', registered);

  // … and freeze the schema: `npx content-index schema snapshot v2`. Commit the snapshot.
  expect(steps).toContain('`npx content-index schema snapshot v2`');
  const snapshot = await checkout.run('npx', ['content-index', 'schema', 'snapshot', 'v2']);
  expect(snapshot.stderr).not.toContain('has no serializer');
  expect(snapshot.code, snapshot.stderr).toBe(0);
  expect(snapshot.stdout).toContain(
    '✓ wrote build/schemas/snapshots/v2.schema.json; commit it with the schema change',
  );
  expect(await read('build/schemas/snapshots/v2.schema.json')).toBe(
    await read('build/schemas/v2/content-index.schema.json'),
  );
  await git('add', 'build');
  await git('commit', '-q', '-m', 'v2: serializer, schema and its snapshot');
  const check = await checkout.run('npx', ['content-index', 'schema', 'check']);
  expect(check.code, check.stderr).toBe(0);
  expect(check.stdout).toContain('✓ v1, v2: the schemas keep the shape of their snapshots');

  // 2. v2 published on the day of the release; v1's sunset at least 12 months later.
  const today = new Date();
  const sunset = new Date(Date.UTC(today.getUTCFullYear() + 1, today.getUTCMonth() + 1, 1));
  const headers = await read('headers.config.ts');
  const lifecycle = headers.replace(
    "    v1: { published: '2025-01-15' },\n",
    `    v1: { published: '2025-01-15', sunset: '${day(sunset)}', documentation: '/docs/migrate-to-v2/' },\n    v2: { published: '${day(today)}' },\n`,
  );
  expect(lifecycle).not.toBe(headers);
  await write('headers.config.ts', lifecycle);

  // 3. `npm run deploy`, read against the live site (wrangler played by the stand-in deploy tests use).
  expect(steps).toContain('`npm run deploy`');
  const log = join(checkout.root, 'wrangler.log');
  const deployed = await checkout.run(
    'npm',
    ['run', 'deploy', '--', '--live', `http://127.0.0.1:${(live.address() as AddressInfo).port}/`],
    {
      CLOUDFLARE_API_TOKEN: 'token',
      CLOUDFLARE_ACCOUNT_ID: 'account',
      CONTENT_INDEX_WRANGLER: FAKE_WRANGLER,
      FAKE_WRANGLER_LOG: log,
    },
  );
  expect(deployed.code, `${deployed.stdout}\n${deployed.stderr}`).toBe(0);
  expect(await read('wrangler.log')).toMatch(/^pages deploy .*public/m);
  await rm(log);
  // The first build that publishes v2 records it in versions.lock.json: commit that file.
  expect(JSON.parse(await read('versions.lock.json')).versions).toHaveProperty('v2');
  await git('add', 'versions.lock.json', 'headers.config.ts');
  await git('commit', '-q', '-m', 'v2 released');

  // v1 deprecated, v2 current, as the deploy published them.
  const manifest = JSON.parse(await read('public/api/versions.json'));
  expect(manifest.current).toBe('v2');
  expect(manifest.versions).toMatchObject([
    { version: 'v1', sunset_at: `${day(sunset)}T00:00:00Z` },
    { version: 'v2', sunset_at: null },
  ]);
  expect(manifest.versions[0].deprecated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  const v1 = JSON.parse(await read('public/api/v1/content.json'));
  expect(v1.versions.deprecation).toMatchObject({ version: 'v1', successor: 'v2' });
  expect(JSON.parse(await read('public/api/content.json')).versions).toMatchObject({
    current: 'v2',
    deprecation: null,
  });
  expect(await read('public/_headers')).toMatch(/\/api\/v1\/\*\n(?: {2}.*\n)*? {2}Deprecation: @\d+\n/);

  // Everything the walk-through made is committed, in build/ where git tracks it; nothing else is left over.
  const tracked = (await git('ls-files', 'build/schemas/snapshots')).stdout.split('\n').filter(Boolean);
  expect(tracked).toEqual([
    'build/schemas/snapshots/v1.schema.json',
    'build/schemas/snapshots/v2.schema.json',
  ]);
  expect((await git('status', '--porcelain')).stdout).toBe('');
}, 300_000);
