import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSiteConfig } from '../../build/core/config/resolve-site-config.ts';
import { linkLine, llmsTxt } from '../../build/core/discovery/llms-txt.ts';
import {
  escapeInline,
  escapeLineStart,
  foldLine,
  markdownText,
} from '../../build/core/discovery/markdown-text.ts';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import siteConfig from '../../site.config.ts';
import { type ParsedLlmsTxt, parseLlmsTxt } from '../helpers/llms-txt.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, tempSite } from '../helpers/site.ts';

const FILES = { es: 'llms.txt', en: 'en/llms.txt', 'pt-br': 'pt-br/llms.txt' } as const;
const fold = (text: string) => text.replace(/\s+/g, ' ').trim();
/** The sample configuration gives one description per language. */
const SUMMARIES = siteConfig.description as Record<keyof typeof FILES, string>;

describe('the sample site llms.txt files', () => {
  let out: string;
  let index: ContentIndexV1;
  const text: Record<string, string> = {};
  beforeAll(async () => {
    out = join(await mkdtemp(join(tmpdir(), 'content-index-llms-')), 'public');
    await build({ root: PROJECT_ROOT, out });
    index = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8'));
    for (const [lang, path] of Object.entries(FILES)) text[lang] = await readFile(join(out, path), 'utf8');
  });
  afterAll(() => rm(dirname(out), { recursive: true, force: true }));

  it('follow the llmstxt.org format: H1, blockquote, usage paragraph, H2 sections of links, Optional last', () => {
    const expectedSections = {
      es: ['Artículos', 'Proyectos', 'Consejos', 'Optional'],
      en: ['Posts', 'Projects', 'Tips', 'Optional'],
      'pt-br': ['Artigos', 'Projetos', 'Dicas', 'Optional'],
    };
    for (const [lang, sections] of Object.entries(expectedSections)) {
      const parsed = parseLlmsTxt(text[lang] as string);
      expect(parsed.title).toBe('Código y Neuronas');
      expect(parsed.summary).toBe(SUMMARIES[lang as keyof typeof FILES]);
      if (lang === 'es') expect(parsed.summary).toBe(index.description);
      expect(parsed.details[0]).toMatch(/MCP/);
      expect(parsed.details[0]).toContain('list_content');
      expect(parsed.sections.map((s) => s.name)).toEqual(sections);
      for (const section of parsed.sections) expect(section.links.length).toBeGreaterThan(0);
      const optional = parsed.sections.at(-1)?.links.map((l) => l.url);
      expect(optional).toEqual(
        expect.arrayContaining([
          'https://example.com/openapi.json',
          'https://example.com/.well-known/ai-plugin.json',
          'https://example.com/api/v1/content.json',
        ]),
      );
      // The usage paragraph links to the API and the MCP server.
      expect(parsed.allLinks).toEqual(expect.arrayContaining(['https://example.com/mcp']));
    }
  });

  it('list each language with that language’s titles and addresses', () => {
    const en = parseLlmsTxt(text.en as string);
    const links = en.sections.slice(0, -1).flatMap((s) => s.links);
    expect(links.length).toBe(index.content.filter((i) => i.url_en).length);
    for (const link of links) expect(link.url).toMatch(/^https:\/\/example\.com\/en\//);
    expect(links.map((l) => l.title)).toContain('Neural Networks from Scratch with NumPy');
    const pt = parseLlmsTxt(text['pt-br'] as string);
    for (const link of pt.sections.slice(0, -1).flatMap((s) => s.links)) {
      expect(link.url).toMatch(/^https:\/\/example\.com\/pt-br\//);
    }
  });
});

describe('hostile titles and descriptions', () => {
  // A title is one line (a line break there is refused at the source); a description may run over lines.
  const HOSTILE_TITLE = '# [Borrador](https://evil.example/) > cita - lista *énfasis* `código`';
  const HOSTILE_DESCRIPTION =
    'Línea uno\n\n## No es un título\n> tampoco una cita (ni [un enlace](x)) <b>html</b> &amp; \\ barra_baja_ 1) fin';
  const files = {
    'content/posts/trampa.es.md': md({
      title: HOSTILE_TITLE,
      description: HOSTILE_DESCRIPTION,
      slug: 'trampa(1',
    }),
    'content/posts/trampa.en.md': md({
      title: '> Quote ] [ ( )  1. item',
      description: '\n\n# heading at start\n',
      slug: 'trap)',
    }),
    'content/posts/trampa.pt-br.md': md({ title: '1. Primeiro', description: '- lista\n+ outra\n=====' }),
    'content/tips/citado.es.md': md({ title: '> citado' }),
    'content/projects/roto.es.md': md({
      title: 'Proyecto ]( roto',
      description: '[',
      technologies: ['Rust'],
    }),
  };
  const config = {
    ...FIXTURE_CONFIG,
    name: 'C# & <Co> #',
    description: '> no es una cita\n# ni un título',
    aiPlugin: { nameForModel: 'c_and_co' },
  };

  it('read back as exactly the folded text and the right address, in every language file', async () => {
    const site = await tempSite(files, config);
    try {
      const result = await site.cli('build');
      expect(result.code, result.stderr).toBe(0);
      const index = await site.readJson<ContentIndexV1>('api/v1/content.json');
      const parsed: Record<string, ParsedLlmsTxt> = {};
      const file = (lang: string): ParsedLlmsTxt => {
        const found = parsed[lang];
        if (!found) throw new Error(`no ${lang} file`);
        return found;
      };
      for (const [lang, path] of Object.entries(FILES)) {
        parsed[lang] = parseLlmsTxt(await readFile(join(site.out, path), 'utf8'));
      }
      for (const each of Object.values(parsed)) expect(each.title).toBe('C# & <Co> #');
      // A plain-string description is the Spanish one; the other files summarise in their language.
      expect(file('es').summary).toBe('> no es una cita # ni un título');
      expect(file('en').summary).toBe('Posts, projects and tips from C# & <Co> #.');
      expect(file('pt-br').summary).toBe('Artigos, projetos e dicas de C# & <Co> #.');
      const trampa = index.content.find((i) => i.url.includes('trampa'));
      expect(trampa?.url).toBe('https://example.com/blog/trampa(1/');
      const links = (lang: string) =>
        file(lang)
          .sections.slice(0, -1)
          .flatMap((s) => s.links);
      expect(links('es')).toEqual([
        {
          title: fold(HOSTILE_TITLE),
          url: 'https://example.com/blog/trampa(1/',
          description: fold(HOSTILE_DESCRIPTION),
        },
        { title: 'Proyecto ]( roto', url: 'https://example.com/proyectos/roto/', description: '[' },
        { title: '> citado', url: 'https://example.com/consejos/citado/' },
      ]);
      expect(links('en')).toEqual([
        {
          title: '> Quote ] [ ( ) 1. item',
          url: 'https://example.com/en/blog/trap)/',
          description: '# heading at start',
        },
      ]);
      expect(links('pt-br')).toEqual([
        {
          title: '1. Primeiro',
          url: 'https://example.com/pt-br/blog/trampa/',
          description: '- lista + outra =====',
        },
      ]);
      // Nothing hostile became a heading, a quote or a link of its own.
      expect(file('es').sections.map((s) => s.name)).toEqual([
        'Artículos',
        'Proyectos',
        'Consejos',
        'Optional',
      ]);
      expect(file('es').allLinks).not.toContain('https://evil.example/');
      expect(file('es').allLinks).not.toContain('x');
    } finally {
      await site.dispose();
    }
  });
});

describe('markdownText', () => {
  // The shortcut for text that needs nothing must give what the whole folding and escaping gives.
  const slow = (text: string) => escapeLineStart(escapeInline(foldLine(text)));
  const units = [
    ...'aZ09 .)#>+-=&;\\`*_[]()<>',
    '\t',
    '\n',
    '\r',
    '\u0000',
    '\u0085',
    '\u00a0',
    '\u2028',
    '\u3000',
    '\ufeff',
    'ñ',
    '🙂',
  ];
  it('returns plain text as it is and everything else folded and escaped', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...units), maxLength: 12 }), (text) => {
        expect(markdownText(text)).toBe(slow(text));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(markdownText(text)).toBe(slow(text));
      }),
    );
    expect(markdownText('Guía de redes neuronales nº 12')).toBe('Guía de redes neuronales nº 12');
  });
});

describe('llmsTxt made again', () => {
  const config = resolveSiteConfig({ ...FIXTURE_CONFIG }, {}, 'site.config.ts');
  const ctx = { config, version: 'v1', present: ['post', 'tip'] as const };
  const lines = (n: number, mark = '', title = 'Título') =>
    Array.from({ length: n }, (_, i) =>
      linkLine(`${title} ${i}${i === 3 ? mark : ''}`, `https://example.com/${i}/`),
    );

  it('gives a language whose lines are the ones it had the same text, and any change a text of its own', () => {
    const posts = lines(6);
    const tips = lines(2, '', 'Consejo');
    const first = llmsTxt({ post: posts, tip: tips }, 'en', ctx);
    // The same strings in new arrays (a dev save of another language's line): the same text, not made again.
    expect(llmsTxt({ post: [...posts], tip: [...tips] }, 'en', ctx)).toBe(first);
    // Another language in between is remembered apart.
    const spanish = llmsTxt({ post: posts }, 'es', ctx);
    expect(llmsTxt({ post: [...posts], tip: [...tips] }, 'en', ctx)).toBe(first);
    expect(spanish).not.toContain('## Tips');

    // One line changed: that text, whatever came before (the same as a first rendering of it).
    const edited = lines(6, ' editado');
    const after = llmsTxt({ post: edited, tip: tips }, 'en', ctx);
    expect(after).toContain('[Título 3 editado]');
    expect(after.replace(' editado', '')).toBe(first);
    // A line gone, a section gone, the version changed: each its own text.
    expect(llmsTxt({ post: edited.slice(1), tip: tips }, 'en', ctx)).not.toContain('Título 0]');
    expect(llmsTxt({ post: edited }, 'en', ctx)).not.toContain('## Tips');
    expect(llmsTxt({ post: edited, tip: tips }, 'en', { ...ctx, version: 'v2' })).toContain(
      '/api/v2/content.json',
    );
    // And back: the text of these lines again, equal to the one made for them before.
    expect(llmsTxt({ post: edited, tip: tips }, 'en', ctx)).toEqual(after);
  });
});
