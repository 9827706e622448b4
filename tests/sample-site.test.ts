import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentIndexV1 } from '../build/core/serializers/v1.ts';
import { type BuildResult, build } from '../build/index.ts';
import schema from '../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import { clientAjv } from './helpers/ajv.ts';
import { countsOf } from './helpers/counts.ts';
import { PROJECT_ROOT } from './helpers/site.ts';

let out: string;
let result: BuildResult;
let index: ContentIndexV1;

beforeAll(async () => {
  out = join(await mkdtemp(join(tmpdir(), 'content-index-sample-')), 'public');
  result = await build({ root: PROJECT_ROOT, out });
  index = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8'));
});
afterAll(() => rm(dirname(out), { recursive: true, force: true }));

/** The sample site's Markdown files, grouped the way an author reads the tree. */
async function sourceFiles(): Promise<string[]> {
  const files = await readdir(join(PROJECT_ROOT, 'content'), { recursive: true });
  return files.filter((f) => f.endsWith('.md')).map((f) => f.split('\\').join('/'));
}

describe('the sample site', () => {
  it('has at least 8 posts, 3 projects and 5 tips, some without a translation', () => {
    expect(index.counts.posts).toBeGreaterThanOrEqual(8);
    expect(index.counts.projects).toBeGreaterThanOrEqual(3);
    expect(index.counts.tips).toBeGreaterThanOrEqual(5);
    expect(index.content.some((i) => !i.url_en || !i.url_pt)).toBe(true);
    expect(index.content.some((i) => i.url_en && i.url_pt)).toBe(true);
  });

  it('passes the v1 JSON Schema (an independent ajv instance, strict formats)', () => {
    const ajv = clientAjv();
    const validate = ajv.compile(schema);
    expect(validate(index), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('matches the field tables of the API contract (docs/api.md)', () => {
    expect(index.site).toBe('https://example.com/');
    expect(index.languages).toEqual(['es', 'en', 'pt-br']);
    expect(Number.isNaN(Date.parse(index.generated))).toBe(false);
    expect(index.openapi).toBe('https://example.com/openapi.json');
    expect(index.versions).toEqual({ current: 'v1', deprecation: null });
    for (const section of index.sections) expect(new URL(section.url).origin).toBe('https://example.com');

    const itemKeys = ['type', 'title', 'description', 'url', 'url_en', 'url_pt', 'image', 'technologies'];
    for (const item of index.content) {
      expect(
        Object.keys(item).every((k) => itemKeys.includes(k)),
        JSON.stringify(item),
      ).toBe(true);
      expect(['post', 'project', 'tip']).toContain(item.type);
      expect(item.title.trim()).not.toBe('');
      for (const field of ['url', 'url_en', 'url_pt'] as const) {
        if (item[field] !== undefined) expect(new URL(item[field]).origin).toBe('https://example.com');
      }
      if (item.image !== undefined) expect(new URL(item.image).host).toBe('images.example.com');
      expect(item.technologies !== undefined).toBe(item.type === 'project');
    }
  });

  it('has counts that agree with content', () => {
    expect(index.counts).toEqual(countsOf(index.content));
  });

  it('links a translation exactly when its file exists and is published', async () => {
    const files = await sourceFiles();
    const published = result.model.entries.flatMap((e) => Object.values(e.translations).map((t) => t?.file));
    const leftOut = result.model.leftOut.map((l) => l.file);
    // Every Markdown file is either published or reported as left out.
    for (const file of files) expect([...published, ...leftOut]).toContain(`content/${file}`);
    for (const entry of result.model.entries) {
      const item = index.content.find((i) => i.url === entry.canonical.url);
      expect(item?.url_en).toBe(entry.translations.en?.url);
      expect(item?.url_pt).toBe(entry.translations['pt-br']?.url);
      expect(item?.title).toBe(entry.canonical.title);
    }
  });

  it('builds without warnings', () => {
    expect(result.warnings).toEqual([]);
  });
});
