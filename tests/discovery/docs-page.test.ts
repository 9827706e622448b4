import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_NAMES } from '../../build/core/edge/problem-types.ts';
import { build } from '../../build/index.ts';
import { CHROMIUM, hasChromium, launchChromium, warnIfNoChromium } from '../helpers/chromium.ts';
import { type PagesDev, startPagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';
import { type SampleProject, sampleProject } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

warnIfNoChromium('the /docs/ browser test');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

describe.skipIf(!hasChromium)(`/docs/ in headless Chromium (${CHROMIUM})`, () => {
  let project: SampleProject;
  let server: PagesDev;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];
  let text = '';
  let links: string[] = [];

  beforeAll(async () => {
    project = await sampleProject();
    server = await startPagesDev(project.out, [], project.root);
    browser = await launchChromium();
    // Context-level events also see requests made by workers.
    const context = await browser.newContext();
    context.on('request', (request) => requests.push(request.url()));
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
    });
    await page.goto(`${server.url}/docs/`);
    // Redoc renders the operations once it has fetched and parsed /openapi.json.
    await page.locator('[data-section-id="operation/getContentIndex"]').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    text = await page.locator('body').innerText();
    links = await page
      .locator('a[href]')
      .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await project?.dispose();
  });

  it('loads nothing from any host but the local server', () => {
    expect(requests.length).toBeGreaterThan(0);
    const remote = requests.filter((url) => {
      const parsed = new URL(url);
      if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return false;
      return !LOOPBACK.has(parsed.hostname);
    });
    expect(remote).toEqual([]);
    expect(requests).toContain(`${server.url}/openapi.json`);
    expect(requests).toContain(`${server.url}/docs/redoc.standalone.js`);
  });

  it('renders without errors (including Content-Security-Policy violations)', () => {
    expect(errors).toEqual([]);
  });

  it('renders every endpoint of the API description', () => {
    for (const path of [
      '/api/v1/content.json',
      '/api/content.json',
      '/openapi.json',
      '/.well-known/ai-plugin.json',
      '/llms.txt',
      '/mcp',
    ]) {
      expect(text, path).toContain(path);
    }
    expect(text).toContain('Código y Neuronas Content Index API');
  });

  it('renders the ContentIndex schema from the published JSON Schema', () => {
    // Field names and descriptions come from build/schemas/v1/content-index.schema.json.
    for (const field of ['site', 'languages', 'documentation', 'counts', 'content', 'versions']) {
      expect(text).toMatch(new RegExp(`^${field}\\b`, 'm'));
    }
    expect(text).toContain('Language codes offered: es (canonical), en, pt-br.');
    expect(text).toContain('Address of the machine-readable API description.');
  });

  it('links to llms.txt, the MCP endpoint and the JSON Schema', () => {
    for (const path of ['/llms.txt', '/mcp', '/api/v1/schema.json', '/openapi.json']) {
      expect(links, path).toContain(`${server.url}${path}`);
    }
    expect(links).toContain('https://example.com/llms.txt');
    expect(links).toContain('https://example.com/mcp');
  });

  it('every problem type address lands on an element with that id, in view once the reference has rendered', async () => {
    // The addresses the Function really sends, and every name it can send.
    const sent = new Set<string>();
    for (const path of ['/api/v1/typo.json', '/api/v9/content.json']) {
      const body = await (await fetch(`${server.url}${path}`)).json();
      sent.add(new URL(body.type).hash.slice(1));
    }
    expect([...sent]).toEqual(['not-found', 'version-unknown']);
    for (const name of PROBLEM_NAMES) {
      await page.goto(`${server.url}/docs/#${name}`);
      await page.locator('[data-section-id="operation/getContentIndex"]').waitFor({ timeout: 60_000 });
      const target = await page.evaluate((id) => {
        const element = document.getElementById(id);
        if (!element) return undefined;
        const box = element.getBoundingClientRect();
        return {
          text: element.textContent,
          top: box.top,
          inView: box.top > -1 && box.bottom <= innerHeight,
          targeted: element.matches(':target'),
        };
      }, name);
      // Scrolled to (within a pixel: the browser aligns it to the top), and the :target of the page.
      expect(target, name).toMatchObject({ inView: true, targeted: true });
      expect(target?.text, name).toContain(`#${name}`);
    }
  });
});

describe.skipIf(!hasChromium)('the API reference moved by apiReference, beside the site’s own /docs/', () => {
  let site: TempSite;
  let server: PagesDev;
  let browser: Browser;

  beforeAll(async () => {
    // A Hugo-like output: the site's own docs section at /docs/, the reference two folders deep.
    site = await tempSite(
      {
        'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-01-01' }),
        'public/docs/index.html': '<!doctype html><title>Docs</title><h1>Our own documentation</h1>\n',
      },
      { ...FIXTURE_CONFIG, apiReference: '/reference/api/' },
    );
    await build({ root: site.root, clock: () => new Date('2026-06-01T00:00:00Z') });
    server = await startProjectPagesDev(site.out, [], site.root);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await site?.dispose();
  });

  it('serves the site’s page at /docs/ and the reference, whole and without errors, at the new address', async () => {
    expect(await (await fetch(`${server.url}/docs/`)).text()).toContain('Our own documentation');
    const context = await browser.newContext();
    const requests: string[] = [];
    const errors: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    await page.goto(`${server.url}/reference/api/`);
    await page.locator('[data-section-id="operation/getContentIndex"]').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    expect(errors).toEqual([]);
    expect(requests).toContain(`${server.url}/reference/api/redoc.standalone.js`);
    expect(requests).toContain(`${server.url}/openapi.json`);
    await context.close();
  });

  it('every problem type the Function sends lands on its element on the moved page', async () => {
    const page = await browser.newPage();
    try {
      for (const path of ['/api/v1/typo.json', '/api/v9/content.json']) {
        const body = await (await fetch(`${server.url}${path}`)).json();
        const type = new URL(body.type);
        expect(type.origin + type.pathname, path).toBe('https://example.com/reference/api/');
        await page.goto(`${server.url}${type.pathname}${type.hash}`);
        await page.locator('[data-section-id="operation/getContentIndex"]').waitFor({ timeout: 60_000 });
        const target = await page.evaluate((id) => {
          const element = document.getElementById(id);
          if (!element) return undefined;
          const box = element.getBoundingClientRect();
          return {
            text: element.textContent,
            inView: box.top > -1 && box.bottom <= innerHeight,
            targeted: element.matches(':target'),
          };
        }, type.hash.slice(1));
        expect(target, path).toMatchObject({ inView: true, targeted: true });
        expect(target?.text, path).toContain(type.hash);
      }
    } finally {
      await page.close();
    }
  });
});
