import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);

const NOW = new Date('2026-06-01T12:00:00Z');
const clock = () => NOW;

const FILES = {
  'content/posts/publicado.es.md': md({ title: 'Publicado', date: '2026-05-01' }),
  'content/posts/publicado.en.md': md({ title: 'Published', slug: 'published', draft: true }),
  'content/posts/borrador-secreto.es.md': md({ title: 'Borrador secreto Zqxsecreto', draft: true }),
  'content/posts/borrador-secreto.en.md': md({ title: 'Secret draft Zqxdraft', slug: 'secret-draft' }),
  'content/tips/futuro-lejano.es.md': md({ title: 'Futuro lejano Zqxfuturo', date: '2026-06-01T12:00:01Z' }),
  'content/tips/hoy.es.md': md({ title: 'Hoy', date: '2026-06-01T12:00:00Z' }),
  'content/projects/motor.es.md': md({
    title: 'Motor',
    date: '2025-01-01',
    technologies: ['Rust', 'WebGPU'],
  }),
  'content/projects/motor.pt-br.md': md({ title: 'Motor', slug: 'motor-grafico' }),
};

let site: TempSite | undefined;
afterEach(() => site?.dispose());

/**
 * Everything a deploy publishes: the output folder, and the project's private files that go with it
 * (the /mcp Function's data module, bundled into the Worker; the D1 import).
 */
async function allOutput(s: TempSite): Promise<string> {
  const parts: string[] = [];
  for (const dir of [s.out, join(s.root, '.content-index')]) {
    // Not the parse cache: it is a copy of the sources' front matter, drafts included, as the content
    // folder is; it never leaves the machine (or the CI cache) and nothing is published from it.
    const files = Object.keys(await snapshotDir(dir, { skip: ['cache'] })).sort();
    parts.push(...(await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))));
  }
  return parts.join('\n');
}

const D1_CONFIG = {
  site: 'https://example.com/',
  images: 'https://images.example.com/',
  mcp: { backend: 'd1' },
};

describe('drafts and future-dated items', () => {
  it('leave no trace in any output file, nor in the D1 import', async () => {
    site = await tempSite(FILES);
    const result = await build({ root: site.root, clock });
    await leavesNoTrace(site);
    const d1 = await tempSite({ ...FILES, 'wrangler.toml': `name = "t"\n${D1_WRANGLER}` }, D1_CONFIG);
    try {
      await build({ root: d1.root, clock });
      await access(join(d1.root, '.content-index/d1/import.json'));
      await leavesNoTrace(d1);
    } finally {
      await d1.dispose();
    }
    expect(result.model.leftOut).toEqual([
      {
        file: 'content/posts/borrador-secreto.en.md',
        item: 'post/borrador-secreto',
        reason: 'draft',
        url: 'https://example.com/en/blog/secret-draft/',
        wholeItem: false,
        along: true,
      },
      {
        file: 'content/posts/borrador-secreto.es.md',
        item: 'post/borrador-secreto',
        reason: 'draft',
        url: 'https://example.com/blog/borrador-secreto/',
        wholeItem: true,
      },
      {
        file: 'content/posts/publicado.en.md',
        item: 'post/publicado',
        reason: 'draft',
        url: 'https://example.com/en/blog/published/',
        wholeItem: false,
      },
      {
        file: 'content/tips/futuro-lejano.es.md',
        item: 'tip/futuro-lejano',
        reason: 'future',
        date: '2026-06-01T12:00:01Z',
        url: 'https://example.com/consejos/futuro-lejano/',
        wholeItem: true,
      },
    ]);
  });

  async function leavesNoTrace(s: TempSite) {
    const everything = await allOutput(s);
    // Unique words, so a leak into the search index (folded, lowercased, one word per term) shows too:
    // their stems, which the words begin ("zqxsecreto" is indexed as "zqxsecret" in Spanish).
    for (const token of ['zqxsecret', 'zqxdraft', 'zqxfutur'])
      expect(everything.toLowerCase()).not.toContain(token);
    for (const secret of [
      'Borrador secreto',
      'borrador-secreto',
      'Secret draft',
      'secret-draft',
      'Futuro lejano',
      'futuro-lejano',
      '/en/blog/published/',
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).toContain('Publicado');
    expect(everything).toContain('https://example.com/consejos/hoy/'); // exactly "now" is not the future
    const index = await s.readJson<{ content: { title: string; url_en?: string }[] }>('api/v1/content.json');
    expect(index.content.find((i) => i.title === 'Publicado')?.url_en).toBeUndefined();
  }

  it('are included with --drafts and --future', async () => {
    site = await tempSite(FILES);
    const drafts = await build({ root: site.root, clock, drafts: true });
    expect(drafts.model.leftOut.map((l) => l.reason)).toEqual(['future']);
    let everything = await allOutput(site);
    expect(everything).toContain('Borrador secreto');
    expect(everything).toContain('https://example.com/en/blog/secret-draft/');
    // The Function's search index holds the word too: so the check above would see a leak into it.
    // (Lower case: the index's term; the item itself carries the title as written.)
    expect(await readFile(join(site.root, '.content-index/worker/mcp-data.bin'), 'utf8')).toMatch(
      /zqxsecret/,
    );
    expect(everything).toContain('https://example.com/en/blog/published/');
    expect(everything).not.toContain('Futuro lejano');

    await build({ root: site.root, clock, future: true });
    everything = await allOutput(site);
    expect(everything).toContain('Futuro lejano');
    expect(everything).not.toContain('Borrador secreto');

    const cli = await site.cli('build', '--drafts', '--future');
    expect(cli.code).toBe(0);
    expect(cli.stdout).not.toContain('left out');
    everything = await allOutput(site);
    expect(everything).toContain('Futuro lejano');
    expect(everything).toContain('Borrador secreto');
  });
});

describe('output', () => {
  it('is byte-identical for the same sources built at another time, `generated` included', async () => {
    site = await tempSite(FILES);
    await build({ root: site.root, clock });
    const first = await readAll(site);
    await build({ root: site.root, clock: () => new Date('2026-06-01T12:00:00.500Z') });
    const second = await readAll(site);
    expect(Object.keys(second)).toEqual(Object.keys(first));
    for (const path of Object.keys(first)) expect(second[path], path).toBe(first[path]);
  });

  it('is byte-identical when built in another time zone', async () => {
    // Around a day boundary: read in local time, a zone-less date-time would swap these two.
    site = await tempSite({
      'content/posts/tarde.es.md': md({ title: 'Tarde', date: '2026-05-01T22:30:00' }),
      'content/posts/manana.es.md': md({ title: 'Mañana', date: '2026-05-02' }),
      'content/tips/espacio.es.md': md({ title: 'Espacio', date: '2026-05-01 23:00' }),
    });
    const bin = join(PROJECT_ROOT, 'bin/content-index.js');
    const outputs: string[] = [];
    for (const TZ of ['UTC', 'America/Sao_Paulo', 'Asia/Tokyo']) {
      await run(process.execPath, [bin, 'build', '--out', `out-${TZ.replace('/', '-')}`], {
        cwd: site.root,
        env: { ...process.env, TZ },
      });
      const index = await readFile(
        join(site.root, `out-${TZ.replace('/', '-')}`, 'api/v1/content.json'),
        'utf8',
      );
      outputs.push(index);
    }
    expect(outputs[1]).toBe(outputs[0]);
    expect(outputs[2]).toBe(outputs[0]);
    expect(JSON.parse(`${outputs[0]}`).content.map((c: { title: string }) => c.title)).toEqual([
      'Mañana',
      'Espacio',
      'Tarde',
    ]);
  });

  it('orders content newest first, undated last, ties by address', async () => {
    site = await tempSite({
      'content/posts/b.es.md': md({ title: 'B', date: '2024-01-01' }),
      'content/posts/a.es.md': md({ title: 'A', date: '2024-01-01' }),
      'content/tips/sin-fecha.es.md': md({ title: 'Sin fecha' }),
      'content/tips/nuevo.es.md': md({ title: 'Nuevo', date: '2025-01-01' }),
    });
    await build({ root: site.root, clock });
    const index = await site.readJson<{ content: { title: string }[] }>('api/v1/content.json');
    expect(index.content.map((i) => i.title)).toEqual(['Nuevo', 'A', 'B', 'Sin fecha']);
  });

  it('serves the alias with the same bytes as the versioned route and publishes the schema', async () => {
    site = await tempSite(FILES);
    await build({ root: site.root, clock });
    const versioned = await readFile(join(site.out, 'api/v1/content.json'), 'utf8');
    expect(await readFile(join(site.out, 'api/content.json'), 'utf8')).toBe(versioned);
    const schema = await site.readJson<{ $id: string; $schema: string }>('api/v1/schema.json');
    expect(schema.$id).toBe('https://example.com/api/v1/schema.json');
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('keeps files it did not write and removes files it wrote and no longer produces', async () => {
    site = await tempSite(
      {
        ...FILES,
        'public/favicon.svg': '<svg/>',
        'public/api/v0/content.json': '{}',
        'static/old.txt': 'published from static/',
      },
      { ...FIXTURE_CONFIG, static: 'static' },
    );
    await build({ root: site.root, clock });
    expect((await site.snapshot())['old.txt']).toBeDefined();
    await site.remove('static/old.txt');
    const result = await build({ root: site.root, clock });
    const files = Object.keys(await site.snapshot()).sort();
    // Exactly what this build wrote, plus the author's files: the old.txt it published before is gone.
    expect(files).toEqual([...result.files.map((f) => f.path), 'api/v0/content.json', 'favicon.svg'].sort());
    expect(files).not.toContain('old.txt');
    expect(await readFile(join(site.out, 'favicon.svg'), 'utf8')).toBe('<svg/>');
    expect(await readFile(join(site.out, 'api/v0/content.json'), 'utf8')).toBe('{}');
  });

  it('applies environment overrides for preview deployments', async () => {
    site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola', image: 'hola.png' }) });
    await build({
      root: site.root,
      clock,
      env: {
        CONTENT_INDEX_SITE_URL: 'https://preview.example.pages.dev',
        CONTENT_INDEX_IMAGE_BASE_URL: 'https://img-preview.example.com/v2',
      },
    });
    const index = await site.readJson<{ site: string; content: { url: string; image: string }[] }>(
      'api/v1/content.json',
    );
    expect(index.site).toBe('https://preview.example.pages.dev/');
    expect(index.content[0]?.url).toBe('https://preview.example.pages.dev/blog/hola/');
    expect(index.content[0]?.image).toBe('https://img-preview.example.com/v2/hola.png');
  });
});

async function readAll(s: TempSite): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of Object.keys(await snapshotDir(s.out)).sort())
    out[path] = await readFile(join(s.out, path), 'utf8');
  return out;
}

describe('parsing on two threads', () => {
  it('gives the same output as one thread, problems included', async () => {
    site = await tempSite({ ...FILES, 'content/tips/rota.es.md': '---\ntitle: [\n---\n' });
    const errors: string[] = [];
    for (const parallelThreshold of [Number.POSITIVE_INFINITY, 1]) {
      await expect(build({ root: site.root, clock, parallelThreshold })).rejects.toThrow(
        /content\/tips\/rota\.es\.md:3: front matter is not valid YAML/,
      );
      errors.push(String(await build({ root: site.root, clock, parallelThreshold }).catch((e) => e.message)));
    }
    expect(errors[1]).toBe(errors[0]);
    await site.remove('content/tips/rota.es.md');
    const outputs: string[] = [];
    for (const parallelThreshold of [Number.POSITIVE_INFINITY, 1]) {
      await build({ root: site.root, clock, parallelThreshold });
      outputs.push(JSON.stringify(await readAll(site)));
    }
    expect(outputs[1]).toBe(outputs[0]);
  });
});
