import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { CHROMIUM, hasChromium, launchChromium, warnIfNoChromium } from '../helpers/chromium.ts';
import { startPagesDev } from '../helpers/pages-dev.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

warnIfNoChromium('the landing page browser test');

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const POST = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-02-01' }) };
const WITH_LANDING = { ...FIXTURE_CONFIG, landingPage: true };
const MY_HOME = '<!doctype html><title>My blog</title><h1>Welcome</h1>\n';

it('is not written unless the configuration asks for it', async () => {
  site = await tempSite(POST);
  const result = await site.cli('build');
  expect(result.code).toBe(0);
  expect(Object.keys(await site.snapshot())).not.toContain('index.html');
});

it('lists every published address, and its bytes depend on the content, not on the time of the build', async () => {
  site = await tempSite(POST, WITH_LANDING);
  await build({ root: site.root, clock: () => new Date('2026-01-01T00:00:00Z') });
  const first = await readFile(join(site.out, 'index.html'), 'utf8');
  await build({ root: site.root, clock: () => new Date('2026-06-30T12:34:56Z') });
  expect(await readFile(join(site.out, 'index.html'), 'utf8')).toBe(first);
  const links = [...first.matchAll(/href="\.\/([^"]*)"/g)].map((m) => m[1]);
  expect(links).toEqual([
    'api/content.json',
    'api/content.json',
    'api/v1/content.json',
    'api/v1/schema.json',
    'api/versions.json',
    'docs/',
    'openapi.json',
    'llms.txt',
    'en/llms.txt',
    'pt-br/llms.txt',
    '.well-known/ai-plugin.json',
    'mcp',
  ]);
  expect(first).toContain('1 item (posts, projects and tips)');
  expect(first).toContain('<code>https://example.com/api/v1/content.json</code>');
});

it('names a withdrawn version as answering 410, without a link, and the current one as current', async () => {
  site = await tempSite(POST, WITH_LANDING);
  await site.write(
    'headers.config.ts',
    `export default { versions: { v1: { published: '2024-01-01', sunset: '2025-03-01' }, v2: { published: '2024-03-01' } } };\n`,
  );
  await build({ root: site.root, clock: () => new Date('2026-01-01T00:00:00Z'), serializers: WITH_V2 });
  const html = await readFile(join(site.out, 'index.html'), 'utf8');
  expect(html).toContain('v1, withdrawn on 2025-03-01: answers 410 Gone');
  expect(html).not.toContain('href="./api/v1/');
  expect(html).toContain('version v2 (current)');
});

it('escapes what the configuration says', async () => {
  site = await tempSite(POST, {
    ...WITH_LANDING,
    name: '<script>alert(1)</script>',
    description: 'a "b" & c',
    aiPlugin: { nameForHuman: 'Hostile' },
  });
  await build({ root: site.root });
  const html = await readFile(join(site.out, 'index.html'), 'utf8');
  expect(html).not.toContain('<script>');
  expect(html).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
  expect(html).toContain('a &quot;b&quot; &amp; c');
});

it("never replaces the author's own index.html: the build stops, names it, and writes nothing", async () => {
  site = await tempSite({ ...POST, 'public/index.html': MY_HOME }, WITH_LANDING);
  const before = await site.snapshot();
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'public/index.html: landingPage: is a page the build did not write; it was left as it is',
  );
  expect(result.stderr).toContain('hint: keep your page and remove landingPage from site.config.ts');
  expect(await site.snapshot()).toEqual(before);
});

it("keeps the author's index.html through builds without the option, and removes its own page once the option is off", async () => {
  site = await tempSite(POST, WITH_LANDING);
  expect((await site.cli('build')).code).toBe(0);
  expect(await readFile(join(site.out, 'index.html'), 'utf8')).toContain('content-index');

  await site.write('site.config.ts', `export default ${JSON.stringify(FIXTURE_CONFIG)};\n`);
  expect((await site.cli('build')).code).toBe(0);
  expect(Object.keys(await site.snapshot())).not.toContain('index.html');

  await site.write('public/index.html', MY_HOME);
  expect((await site.cli('build')).code).toBe(0);
  expect(await readFile(join(site.out, 'index.html'), 'utf8')).toBe(MY_HOME);
});

it('refuses a value that is not a boolean, naming the field', async () => {
  site = await tempSite(POST, { ...FIXTURE_CONFIG, landingPage: 'yes' });
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('site.config.ts: landingPage: must be true or false');
});

describe.skipIf(!hasChromium)(`in headless Chromium (${CHROMIUM}), through wrangler pages dev`, () => {
  it('loads without a console message of its own: no error, no Content-Security-Policy violation', async () => {
    site = await tempSite(POST, WITH_LANDING);
    await build({ root: site.root, clock: () => new Date('2026-01-01T00:00:00Z') });
    const server = await startPagesDev(site.out, [], site.root);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const messages: string[] = [];
      page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
      page.on('pageerror', (error) => messages.push(`page error: ${error.message}`));
      const response = await page.goto(`${server.url}/`);
      expect(response?.status()).toBe(200);
      await page.waitForLoadState('networkidle');
      expect(await page.locator('h1').innerText()).toBe('Fixture');
      expect(messages).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
