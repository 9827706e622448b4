import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLMS_STRINGS } from '../../build/core/discovery/llms-txt-strings.ts';
import {
  CONTENT_TYPES,
  LANGUAGES,
  type Language,
  PLURAL,
  URL_FIELD,
} from '../../build/core/edge/languages.ts';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { type BuildResult, build } from '../../build/index.ts';
import { countsOf } from '../helpers/counts.ts';
import { generateSite } from '../helpers/generate-site.ts';
import { type LlmsLink, type ParsedLlmsTxt, parseLlmsTxt } from '../helpers/llms-txt.ts';
import { PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const LLMS_FILES: Record<Language, string> = { es: 'llms.txt', en: 'en/llms.txt', 'pt-br': 'pt-br/llms.txt' };
const fold = (text: string) => text.replace(/\s+/g, ' ').trim();
const read = (out: string, path: string) => readFile(join(out, path), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: the documents are read as plain JSON
type Json = any;

interface Documents {
  index: ContentIndexV1;
  llms: Record<Language, ParsedLlmsTxt>;
  openapi: Json;
  plugin: Json;
  docsHtml: string;
  /** The landing page, when the site asks for one. */
  landingHtml: string | undefined;
}

async function readDocuments(out: string): Promise<Documents> {
  const llms = {} as Record<Language, ParsedLlmsTxt>;
  for (const lang of LANGUAGES) llms[lang] = parseLlmsTxt(await read(out, LLMS_FILES[lang]));
  return {
    index: JSON.parse(await read(out, 'api/v1/content.json')),
    llms,
    openapi: JSON.parse(await read(out, 'openapi.json')),
    plugin: JSON.parse(await read(out, '.well-known/ai-plugin.json')),
    docsHtml: await read(out, 'docs/index.html'),
    landingHtml: await read(out, 'index.html').catch(() => undefined),
  };
}

/** The links of one content type's section in a language file (none when the section is absent). */
function sectionLinks(file: ParsedLlmsTxt, lang: Language, type: (typeof CONTENT_TYPES)[number]): LlmsLink[] {
  return file.sections.find((s) => s.name === LLMS_STRINGS[lang].sections[type])?.links ?? [];
}

/**
 * The consistency promise of the discovery documents, checked on a built site: every item is in
 * content.json and in each llms.txt exactly when that translation exists, with the same address and
 * that language's title; the counts agree; every address points to a written file or to the site.
 */
/** Where the build publishes: an address there must be a file this build wrote. */
const BUILD_ADDRESSES = [
  'index.html',
  'api/',
  'mcp/',
  'docs/',
  'openapi.json',
  'llms.txt',
  'en/llms.txt',
  'pt-br/llms.txt',
  '.well-known/',
];
const isBuildAddress = (path: string) =>
  BUILD_ADDRESSES.some((a) => (a.endsWith('/') ? path.startsWith(a) : path === a));

function checkConsistency(result: BuildResult, docs: Documents, authorFiles: string): void {
  const { index, llms } = docs;
  const { config, model } = result;

  // content.json ↔ model: same items, same order.
  expect(index.content.map((i) => i.url)).toEqual(model.entries.map((e) => e.canonical.url));

  // Every item in each language file exactly when its translation exists, with that language's text.
  for (const lang of LANGUAGES) {
    for (const type of CONTENT_TYPES) {
      const expected = model.entries
        .filter((e) => e.type === type && e.translations[lang])
        .map((e) => {
          const page = e.translations[lang];
          if (!page) throw new Error('unreachable');
          const link: LlmsLink = { title: fold(page.title), url: page.url };
          if (page.description !== undefined && fold(page.description) !== '')
            link.description = fold(page.description);
          return link;
        });
      expect(sectionLinks(llms[lang], lang, type), `${lang} ${type}`).toEqual(expected);
    }
  }
  for (const item of index.content) {
    const es = sectionLinks(llms.es, 'es', item.type).filter((l) => l.url === item.url);
    expect(es, item.url).toEqual([expect.objectContaining({ title: fold(item.title) })]);
    for (const lang of ['en', 'pt-br'] as const) {
      const address = item[URL_FIELD[lang]];
      const listed = sectionLinks(llms[lang], lang, item.type).filter((l) => l.url === address);
      expect(listed.length, `${item.url} in ${lang}`).toBe(address === undefined ? 0 : 1);
    }
  }

  // Counts agree: content.json's counts, its content array, the es sections and each language file.
  expect(index.counts).toEqual(countsOf(index.content));
  for (const type of CONTENT_TYPES) {
    expect(sectionLinks(llms.es, 'es', type).length).toBe(index.counts[PLURAL[type]]);
    for (const lang of ['en', 'pt-br'] as const) {
      const translated = index.content.filter(
        (i) => i.type === type && i[URL_FIELD[lang]] !== undefined,
      ).length;
      expect(sectionLinks(llms[lang], lang, type).length).toBe(translated);
    }
  }
  const listed = LANGUAGES.map((lang) =>
    CONTENT_TYPES.reduce((sum, type) => sum + sectionLinks(llms[lang], lang, type).length, 0),
  );
  expect(listed[0]).toBe(index.counts.total);

  // Every address in every document: a file the build wrote, the MCP endpoint, or a page of the site.
  const written = new Set(result.files.map((f) => f.path));
  const sitePages = new Set<string>([
    config.site,
    ...config.sections.map((s) => s.url),
    ...model.entries.flatMap((e) => Object.values(e.translations).map((t) => t?.url ?? '')),
    docs.plugin.legal_info_url,
  ]);
  const addresses = collectAddresses(docs, config.site);
  expect(addresses.length).toBeGreaterThan(index.content.length);
  for (const [where, address] of addresses) {
    if (address.startsWith(config.images)) continue;
    expect(address.startsWith(config.site), `${where}: ${address} is not on the site`).toBe(true);
    const url = new URL(address);
    const path = `${url.origin}${url.pathname}`.slice(config.site.length);
    const file = path === '' || path.endsWith('/') ? `${path}index.html` : path;
    if (path === 'mcp' || path === 'mcp/server-card') continue; // the MCP server, a Pages Function
    // The site root is the landing page when the site asks for one, else a page of the site.
    if ((isBuildAddress(file) || isBuildAddress(path)) && (file !== 'index.html' || config.landingPage)) {
      expect(written.has(file), `${where}: ${address} → ${file} was not written`).toBe(true);
    } else {
      expect(
        sitePages.has(address) || existsSync(join(authorFiles, file)),
        `${where}: ${address} is neither a written file, a file of the author's, nor a page of the site`,
      ).toBe(true);
    }
  }
}

function collectAddresses(docs: Documents, site: string): [where: string, address: string][] {
  const found: [string, string][] = [];
  const add = (where: string, address: string | undefined) => {
    if (address !== undefined) found.push([where, address]);
  };
  const { index, openapi, plugin } = docs;
  for (const key of ['site', 'documentation', 'openapi'] as const) add(`content.json ${key}`, index[key]);
  for (const section of index.sections) add('content.json sections', section.url);
  for (const item of index.content) {
    for (const key of ['url', 'url_en', 'url_pt', 'image'] as const) add(`content.json ${key}`, item[key]);
  }
  for (const lang of LANGUAGES) for (const link of docs.llms[lang].allLinks) add(LLMS_FILES[lang], link);
  add('openapi.json servers', `${openapi.servers[0].url}/`);
  add('openapi.json externalDocs', openapi.externalDocs.url);
  for (const path of Object.keys(openapi.paths))
    add('openapi.json paths', `${openapi.servers[0].url}${path}`);
  const visit = (node: Json) => {
    if (node.type === 'link') add('openapi.json info.description', node.url);
    for (const child of node.children ?? []) visit(child);
  };
  visit(fromMarkdown(openapi.info.description));
  for (const key of ['logo_url', 'legal_info_url'] as const) add(`ai-plugin.json ${key}`, plugin[key]);
  add('ai-plugin.json api.url', plugin.api.url);
  for (const match of docs.docsHtml.matchAll(/\b(?:href|src|spec-url)="([^"]+)"/g)) {
    const value = (match[1] as string).replaceAll('&amp;', '&');
    if (!value.startsWith('data:')) add('docs/index.html', new URL(value, new URL('docs/', site)).href);
  }
  for (const match of docs.landingHtml?.matchAll(/\bhref="([^"]+)"|<code>(https?:[^<]+)<\/code>/g) ?? []) {
    const value = (match[1] ?? match[2] ?? '').replaceAll('&amp;', '&');
    if (!value.startsWith('data:')) add('index.html', new URL(value, site).href);
  }
  return found;
}

describe('the discovery documents of the sample site', () => {
  let out: string;
  let result: BuildResult;
  let docs: Documents;
  beforeAll(async () => {
    out = join(await mkdtemp(join(tmpdir(), 'content-index-consistency-')), 'public');
    result = await build({ root: PROJECT_ROOT, out });
    docs = await readDocuments(out);
  });
  afterAll(() => rm(dirname(out), { recursive: true, force: true }));

  it('agree with content.json item by item, in counts, and in every address', () => {
    checkConsistency(result, docs, join(PROJECT_ROOT, 'static'));
    // The sample site has items missing a translation, so "exactly when it exists" is exercised.
    expect(docs.index.content.some((i) => !i.url_en)).toBe(true);
    expect(docs.index.content.some((i) => !i.url_pt)).toBe(true);
  });

  it('include the landing page the sample site asks for, whose every address is checked above', () => {
    expect(result.config.landingPage).toBe(true);
    expect(docs.landingHtml).toContain('href="./api/content.json"');
  });

  it('point the index documentation field at the /docs/ page the build wrote', () => {
    expect(docs.index.documentation).toBe('https://example.com/docs/');
    expect(result.files.map((f) => f.path)).toContain('docs/index.html');
    expect(docs.plugin.api.url).toBe(docs.index.openapi);
  });
});

describe('the discovery documents of a generated site of 500 items', () => {
  let site: TempSite;
  let result: BuildResult;
  let docs: Documents;
  beforeAll(async () => {
    site = await tempSite({ ...generateSite(500, 42), 'public/logo.png': 'a logo' });
    result = await build({ root: site.root, clock: () => new Date('2026-06-01T00:00:00Z') });
    docs = await readDocuments(site.out);
  });
  afterAll(() => site?.dispose());

  it('agree with content.json item by item, in counts, and in every address', () => {
    expect(result.model.entries.length + result.model.leftOut.filter((l) => l.wholeItem).length).toBe(500);
    expect(result.model.entries.length).toBeGreaterThan(450);
    checkConsistency(result, docs, site.out);
  });
});
