import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentIndexV1, ContentItemV1 } from '../../build/core/serializers/v1.ts';
import type { Connection, ListedTool, ToolResult } from '../helpers/mcp.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Item = ContentItemV1 & {
  translation?: { lang: string; title: string; url: string; description?: string };
  score?: number;
  matched_language?: string;
  matched_fields?: string[];
  snippet?: string;
};

const ITEM_KEYS = [
  'type',
  'title',
  'description',
  'url',
  'url_en',
  'url_pt',
  'image',
  'technologies',
] as const;

/** The ContentItem part of a tool's item, to compare with content.json. */
function contentItem(item: Item): ContentItemV1 {
  return Object.fromEntries(
    ITEM_KEYS.filter((k) => k in item).map((k) => [k, item[k]]),
  ) as unknown as ContentItemV1;
}

/** The answer of a tool call that must succeed: structured content, and the same JSON as text. */
function structured<T = Record<string, unknown>>(result: ToolResult): T {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  const text = result.content?.find((c) => c.type === 'text')?.text;
  expect(JSON.parse(text ?? 'null')).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** A tool error exactly as an agent receives it. */
function toolError(result: ToolResult) {
  return { isError: result.isError, content: result.content };
}

function textError(text: string) {
  return { isError: true, content: [{ type: 'text', text }] };
}

export interface SuiteOptions {
  /**
   * `exact` (the embedded backend): the best hit is the one named. `set` (D1: FTS5 ranks
   * with its own bm25, so the order of equally good hits may differ): the named item is among the hits
   * (all of them are asked for), with the same language and fields; the hit sets themselves are compared
   * across backends in tests/mcp/d1.test.ts.
   */
  ranking: 'exact' | 'set';
}

/**
 * The tool tests, run against every way of reaching the server (HTTP with each client, stdio) and every
 * backend: the same calls must give the same answers and the same errors.
 */
export function toolSuite(
  name: string,
  connect: () => Promise<Connection>,
  sample: () => ContentIndexV1,
  expectedProtocol: string,
  { ranking }: SuiteOptions = { ranking: 'exact' },
): void {
  /** The item an assertion is about: the first hit when ranking is exact, the one with that title otherwise. */
  const named = (items: Item[], title: string): Item | undefined =>
    ranking === 'exact' ? items[0] : items.find((i) => i.translation?.title === title);
  /** Every hit when only the set is compared. */
  const all = ranking === 'exact' ? {} : { limit: 100 };
  describe(name, () => {
    let mcp: Connection;
    let index: ContentIndexV1;
    let tools: ListedTool[];
    const call = (tool: string, args: Record<string, unknown> = {}) => mcp.callTool(tool, args);
    const list = async (args: Record<string, unknown>) =>
      structured<{ items: Item[]; total: number; next_cursor: string | null }>(
        await call('list_content', args),
      );
    const search = async (args: Record<string, unknown>) =>
      structured<{ items: Item[]; total: number; match: string }>(await call('search_content', args));

    beforeAll(async () => {
      mcp = await connect();
      index = sample();
      tools = await mcp.listTools();
    });
    afterAll(() => mcp?.close());

    describe('tools', () => {
      it(`speaks ${expectedProtocol}`, () => {
        expect(mcp.protocolVersion).toBe(expectedProtocol);
      });

      it('lists the three read-only tools with input and output schemas', () => {
        expect(tools.map((t) => t.name)).toEqual(['list_content', 'search_content', 'content_stats']);
        for (const tool of tools) {
          expect(tool.annotations).toEqual({
            readOnlyHint: true,
            idempotentHint: true,
            openWorldHint: false,
          });
          expect(tool.inputSchema.type).toBe('object');
          expect(tool.outputSchema?.type).toBe('object');
          expect(tool.description?.length).toBeGreaterThan(40);
        }
        expect(tools.find((t) => t.name === 'content_stats')?.inputSchema).toEqual({
          type: 'object',
          additionalProperties: false,
        });
      });

      it('calls each tool; the structured results validate against the declared output schemas', async () => {
        const ajv = new Ajv2020({ strict: false, allErrors: true });
        addFormats(ajv);
        const calls: Record<string, Record<string, unknown>> = {
          list_content: { lang: 'en', limit: 3 },
          search_content: { query: 'rust' },
          content_stats: {},
        };
        for (const tool of tools) {
          const result = structured(await call(tool.name, calls[tool.name] ?? {}));
          const validate = ajv.compile(tool.outputSchema ?? {});
          expect(validate(result), `${tool.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        }
      });
    });

    describe('list_content', () => {
      it('lists every item of content.json, in its order, page by page', async () => {
        const seen: Item[] = [];
        let cursor: string | null | undefined;
        let pages = 0;
        do {
          const page = await list({ limit: 7, ...(cursor ? { cursor } : {}) });
          expect(page.total).toBe(index.content.length);
          seen.push(...page.items);
          cursor = page.next_cursor;
          pages++;
        } while (cursor);
        expect(pages).toBe(Math.ceil(index.content.length / 7));
        expect(seen).toEqual(index.content);
      });

      it('returns 20 items by default', async () => {
        const page = await list({});
        expect(page.items).toEqual(index.content.slice(0, 20));
        expect(page.next_cursor).toEqual(index.content.length > 20 ? expect.any(String) : null);
      });

      it('filters by type', async () => {
        for (const type of ['post', 'project', 'tip']) {
          const page = await list({ type, limit: 100 });
          expect(page.items).toEqual(index.content.filter((i) => i.type === type));
          expect(page.total).toBe(page.items.length);
        }
      });

      it("filters by language and adds that language's title and address", async () => {
        for (const [lang, field] of [
          ['en', 'url_en'],
          ['pt-br', 'url_pt'],
          ['es', 'url'],
        ] as const) {
          const page = await list({ lang, limit: 100 });
          const expected = index.content.filter((i) => i[field] !== undefined);
          expect(page.items.map(contentItem)).toEqual(expected);
          for (const item of page.items) {
            expect(item.translation?.lang).toBe(lang);
            expect(item.translation?.url).toBe(item[field]);
            expect(item.translation?.title.trim()).not.toBe('');
          }
        }
        const es = await list({ lang: 'es', limit: 100 });
        expect(es.items.every((i) => i.translation?.title === i.title)).toBe(true);
      });

      it('filters by technology, ignoring case', async () => {
        const lower = await list({ technology: 'python', limit: 100 });
        const upper = await list({ technology: 'PYTHON', limit: 100 });
        expect(upper).toEqual(lower);
        expect(lower.items).toEqual(
          index.content.filter((i) => (i.technologies ?? []).some((t) => t.toLowerCase() === 'python')),
        );
        expect(lower.total).toBeGreaterThan(1);
        expect((await list({ technology: 'cobol' })).items).toEqual([]);
      });

      it('takes lang in any case (pt-BR, PT-br, pt_br, EN) and answers with the canonical code', async () => {
        const canonical = await list({ lang: 'pt-br', limit: 100 });
        expect(canonical.items.length).toBeGreaterThan(0);
        for (const lang of ['pt-BR', 'PT-br', 'pt_br', 'PT_BR']) {
          expect(await list({ lang, limit: 100 }), lang).toEqual(canonical);
        }
        expect(await list({ lang: 'EN', type: 'post', limit: 100 })).toEqual(
          await list({ lang: 'en', type: 'post', limit: 100 }),
        );
        // A cursor does not depend on how the language was written.
        const first = await list({ lang: 'pt-BR', limit: 2 });
        const next = await list({ lang: 'pt-br', limit: 2, cursor: first.next_cursor });
        expect(next.items).toEqual(canonical.items.slice(2, 4));
      });

      it('publishes a lang schema that accepts every case, so strict clients send pt-BR too', () => {
        for (const tool of tools.filter((t) => t.name !== 'content_stats')) {
          const lang = (tool.inputSchema.properties as Record<string, { $ref?: string }>).lang;
          const defs = tool.inputSchema.$defs as Record<string, { pattern?: string; enum?: unknown }>;
          const schema = { ...defs[lang?.$ref?.replace('#/$defs/', '') ?? ''], ...lang };
          expect(schema.enum, tool.name).toBeUndefined();
          const pattern = new RegExp(schema.pattern ?? '(?!)');
          for (const ok of ['es', 'EN', 'pt-br', 'pt-BR', 'Pt_Br']) expect(pattern.test(ok), ok).toBe(true);
          for (const bad of ['pt', 'ptbr', 'pt-pt', 'en-us', ' es', 'fr'])
            expect(pattern.test(bad), bad).toBe(false);
        }
      });

      it('combines filters and pages through them', async () => {
        const all = await list({ type: 'post', lang: 'pt-br', limit: 100 });
        const first = await list({ type: 'post', lang: 'pt-br', limit: 2 });
        expect(first.next_cursor).toEqual(expect.any(String));
        const second = await list({ type: 'post', lang: 'pt-br', limit: 2, cursor: first.next_cursor });
        expect([...first.items, ...second.items]).toEqual(all.items.slice(0, 4));
      });
    });

    describe('search_content', () => {
      const titles = (items: Item[]) => items.map((i) => i.translation?.title);

      it('ignores accents: programacion finds "programación", ano finds "año"', async () => {
        const result = await search({ query: 'programacion', ...all });
        expect(titles(result.items)).toContain('Un año de programación con asistentes de IA');
        expect(named(result.items, 'Un año de programación con asistentes de IA')?.matched_language).toBe(
          'es',
        );
        // Three letters: no typo tolerance, so only folding can match "año" (in this title, and in
        // the text of others).
        const short = await search({ query: 'ano programacion', ...all });
        expect(short.match).toBe('all');
        expect(named(short.items, 'Un año de programación con asistentes de IA')?.matched_fields).toEqual([
          'title',
          'body',
          'tags',
        ]);
      });

      it('ignores accents and case: aprendizaje automatico finds "Aprendizaje automático"', async () => {
        const plain = await search({ query: 'aprendizaje automatico', ...all });
        const accented = await search({ query: 'APRENDIZAJE AUTOMÁTICO', ...all });
        expect(accented.items).toEqual(plain.items);
        expect(plain.match).toBe('all');
        const title = 'Aprendizaje automático sin fugas de datos con pipelines de scikit-learn';
        expect(named(plain.items, title)?.translation?.title).toBe(title);
        expect(named(plain.items, title)?.matched_fields).toEqual(['title', 'body', 'tags']);
      });

      it('ignores Portuguese accents and cedillas: quantizacao finds "Quantização"', async () => {
        const result = await search({ query: 'quantizacao', ...all });
        const title = 'Quantização de modelos de linguagem: int8, int4 e além';
        expect(named(result.items, title)?.matched_language).toBe('pt-br');
        expect(named(result.items, title)?.translation?.title).toBe(title);
      });

      it('searches each language and says which one matched', async () => {
        const cases = [
          [
            'aprendizaje automatico',
            'es',
            'Aprendizaje automático sin fugas de datos con pipelines de scikit-learn',
          ],
          ['machine learning', 'en', 'Leak-Free Machine Learning with scikit-learn Pipelines'],
          [
            'aprendizado de maquina',
            'pt-br',
            'Aprendizado de máquina sem vazamento de dados com pipelines do scikit-learn',
          ],
        ] as const;
        for (const [query, lang, title] of cases) {
          const result = await search({ query, ...all });
          expect(named(result.items, title)?.matched_language, query).toBe(lang);
          expect(named(result.items, title)?.translation?.title, query).toBe(title);
          // The same item, whichever language found it.
          expect(named(result.items, title)?.url).toBe(
            index.content.find((i) => i.url.includes('pipelines-de-scikit-learn'))?.url,
          );
        }
      });

      it('matches word beginnings: embed finds the embeddings posts', async () => {
        const result = await search({ query: 'embed', ...all });
        // The second post has "embeddings" in its Spanish and English titles alike: a tie goes to Spanish.
        expect(titles(result.items)).toEqual(
          expect.arrayContaining([
            'Introducción a los embeddings: de palabras a vectores',
            'Normaliza tus embeddings antes de calcular la similitud coseno',
          ]),
        );
      });

      it('tolerates one typo in longer words, not in short ones', async () => {
        const typo = await search({ query: 'transformrs', ...all });
        expect(typo.match).toBe('all');
        const title = 'Atención es todo lo que necesitas: cómo funcionan los transformers';
        expect(named(typo.items, title)?.translation?.title).toBe(title);
        const urls = async (query: string) => (await search({ query, ...all })).items.map((i) => i.url);
        if (ranking === 'exact') expect((await urls('embedings'))[0]).toBe((await urls('embeddings'))[0]);
        else {
          // One typo finds what the word finds exactly; the word also finds its continuations.
          const typed = await urls('embedings');
          expect(typed.length).toBeGreaterThan(0);
          expect(await urls('embeddings')).toEqual(expect.arrayContaining(typed));
        }
        // Four letters: too short for a typo to be safe (rast is not rust).
        expect((await search({ query: 'rast' })).items).toEqual([]);
      });

      it('searches technologies', async () => {
        const result = await search({ query: 'pyo3' });
        // The project that uses it, then the post that mentions it in its text.
        expect(result.items.map((i) => i.type)).toEqual(['project', 'post']);
        expect(result.items[0]?.technologies).toContain('PyO3');
        expect(result.items[0]?.matched_fields).toContain('technologies');
        expect(result.items[1]?.matched_fields).toEqual(['body']);
      });

      it('filters by type and by language', async () => {
        const all = await search({ query: 'rust', limit: 100 });
        const projects = await search({ query: 'rust', type: 'project', limit: 100 });
        expect(projects.items.length).toBeGreaterThan(0);
        expect(projects.items.every((i) => i.type === 'project')).toBe(true);
        expect(all.items.length).toBeGreaterThan(projects.items.length);
        const pt = await search({ query: 'rust', lang: 'pt-br', limit: 100 });
        expect(pt.items.length).toBeGreaterThan(0);
        for (const item of pt.items) {
          expect(item.matched_language).toBe('pt-br');
          expect(item.translation?.url).toBe(item.url_pt);
        }
        // The post about AI assistants exists only in Spanish: a search in English cannot find it.
        const spanishOnly = index.content.find((i) => i.url.includes('asistentes-de-ia'));
        expect(spanishOnly?.url_en).toBeUndefined();
        expect((await search({ query: 'asistentes', lang: 'es' })).items.map((i) => i.url)).toContain(
          spanishOnly?.url,
        );
        expect((await search({ query: 'asistentes', lang: 'en' })).items.map((i) => i.url)).not.toContain(
          spanishOnly?.url,
        );
      });

      it('ranks results and limits them', async () => {
        const result = await search({ query: 'python', limit: 3 });
        expect(result.items).toHaveLength(3);
        expect(result.total).toBeGreaterThan(3);
        const scores = result.items.map((i) => i.score ?? 0);
        expect([...scores].sort((a, b) => b - a)).toEqual(scores);
        expect(scores.every((s) => s > 0)).toBe(true);
      });

      it('answers with the items of content.json and of list_content', async () => {
        const listed = await list({ limit: 100 });
        for (const query of ['python', 'rag', 'aprendizado', 'neural networks']) {
          const result = await search({ query, limit: 100 });
          expect(result.items.length, query).toBeGreaterThan(0);
          for (const item of result.items) {
            expect(contentItem(item)).toEqual(index.content.find((i) => i.url === item.url));
            expect(contentItem(item)).toEqual(listed.items.find((i) => i.url === item.url));
          }
        }
        const tips = await list({ type: 'tip', limit: 100 });
        const found = await search({ query: 'python', type: 'tip', limit: 100 });
        for (const item of found.items) expect(tips.items.map((i) => i.url)).toContain(item.url);
      });

      it('searches technology names written with symbols: C++, C#, .NET, Node.js', async () => {
        const urls = async (query: string, args: Record<string, unknown> = {}) =>
          (await search({ query, limit: 100, ...args })).items.map((i) => i.url).sort();
        const cpp = index.content.filter((i) => i.technologies?.includes('C++')).map((i) => i.url);
        const csharp = index.content.filter((i) => i.title.includes('C#')).map((i) => i.url);
        expect(cpp).toHaveLength(1);
        expect(csharp).toHaveLength(1);
        // Before, both were the word "c": C++ found the C# tip and C# the C++ project.
        expect(await urls('C++')).toEqual(cpp);
        expect(await urls('c++')).toEqual(cpp);
        expect(await urls('C#')).toEqual(csharp);
        expect(await urls('.NET')).toEqual(csharp);
        expect(await urls('dotnet')).toEqual(csharp);
        expect(await urls('C# .NET', { lang: 'PT-BR' })).toEqual(csharp);
        expect(await urls('Node.js')).toEqual(cpp);
        // "C++17" in a description is found by C++ (a prefix) and by itself.
        expect(await urls('C++17')).toEqual(cpp);
        // Nor is either the letter c any more (a text that says "C o Rust" has the letter).
        expect((await urls('c')).filter((url) => cpp.includes(url) || csharp.includes(url))).toEqual([]);
        const hit = (await search({ query: 'C++' })).items[0];
        expect(hit?.matched_fields).toEqual(['title', 'description', 'body', 'technologies']);
        expect(hit?.snippet).toContain('**C++17**');
      });

      it('gives partial matches when no item has every word', async () => {
        const result = await search({ query: 'rust xyzzyq' });
        expect(result.match).toBe('any');
        expect(result.items.length).toBeGreaterThan(0);
        expect((await search({ query: 'xyzzyq' })).items).toEqual([]);
      });
    });

    describe('search_content: the text of every item', () => {
      // Words that are in one item's body and in no title, description or tag of any item.
      const EVALUATING = {
        es: 'Cómo evaluar un LLM sin engañarte a ti mismo',
        en: 'How to Evaluate an LLM Without Fooling Yourself',
        'pt-br': 'Como avaliar um LLM sem enganar a si mesmo',
      } as const;
      const hit = async (query: string, title: string) => {
        const result = await search({ query, limit: 100 });
        expect(result.match, query).toBe('all');
        const item = result.items.find((i) => i.translation?.title === title);
        expect(
          item,
          `${query}: ${JSON.stringify(result.items.map((i) => i.translation?.title))}`,
        ).toBeDefined();
        return item as Item & { snippet: string };
      };

      it('finds an item by a word only in its body, in each language, accents left out', async () => {
        for (const [query, lang, marked] of [
          ['rubrica', 'es', '**rúbrica**'],
          ['Tweaking', 'en', '**Tweaking**'],
          ['acuracia', 'pt-br', '**acurácia**'],
        ] as const) {
          const item = await hit(query, EVALUATING[lang]);
          expect(item.matched_language, query).toBe(lang);
          expect(item.matched_fields, query).toEqual(['body']);
          expect(item.snippet, query).toContain(marked);
        }
      });

      it('finds another form of the word: plural, verb form', async () => {
        for (const [query, lang, marked] of [
          ['rúbricas', 'es', '**rúbrica**'],
          ['misleads', 'en', '**misleading**'],
          ['acurácias', 'pt-br', '**acurácia**'],
          ['contaminaciones', 'es', '**Contaminación**'],
        ] as const) {
          const item = await hit(query, EVALUATING[lang]);
          expect(item.matched_language, query).toBe(lang);
          expect(item.snippet, query).toContain(marked);
        }
        // running finds "uv run".
        const uv = await hit('running', 'Manage Your Python Environments with `uv`');
        expect(uv.snippet).toContain('**run**');
      });

      it('tolerates one typo in a word of the body', async () => {
        for (const [query, lang] of [
          ['rubrca', 'es'],
          ['misleding', 'en'],
          ['acuracja', 'pt-br'],
        ] as const) {
          expect((await hit(query, EVALUATING[lang])).matched_language, query).toBe(lang);
        }
      });

      it('ranks the items with the word in their title above those with it only in their text', async () => {
        for (const query of ['python', 'embeddings', 'rust', 'transformers']) {
          const { items } = await search({ query, limit: 100 });
          const inTitle = items.flatMap((item, i) => (item.matched_fields?.includes('title') ? [i] : []));
          const onlyBody = items.flatMap((item, i) => (item.matched_fields?.join() === 'body' ? [i] : []));
          expect(inTitle.length, query).toBeGreaterThan(0);
          expect(onlyBody.length, query).toBeGreaterThan(0);
          expect(Math.max(...inTitle), query).toBeLessThan(Math.min(...onlyBody));
        }
      });

      it('gives every hit a snippet of its matched text with a matched word marked, never past the cap', async () => {
        for (const query of ['python', 'rubrica', 'embed', 'C++', 'machine learning', 'transformrs', 'ml']) {
          for (const lang of [undefined, 'en', 'pt-br']) {
            const { items } = await search({ query, limit: 100, ...(lang && { lang }) });
            for (const item of items as (Item & { snippet: string })[]) {
              const what = `${query} ${lang}: ${item.translation?.title}: ${item.snippet}`;
              expect(item.snippet, what).toMatch(/\*\*[^*]+\*\*/);
              expect(item.snippet.length, what).toBeLessThanOrEqual(194);
              // The item's own text, at most 160 characters of it: the marks and ellipses aside.
              expect(
                item.snippet.replaceAll('**', '').replace(/^…|…$/g, '').length,
                what,
              ).toBeLessThanOrEqual(160);
            }
          }
        }
      });
    });

    describe('content_stats', () => {
      it('counts types, translations and technologies as content.json does', async () => {
        const stats = structured<{
          counts: Record<string, number>;
          languages: Record<string, { items: number; share: number }>;
          technologies: { name: string; count: number }[];
          newest: { date: string; url: string; title: string; type: string } | null;
          generated: string;
        }>(await call('content_stats'));
        expect(stats.counts).toEqual(index.counts);
        const total = index.content.length;
        const en = index.content.filter((i) => i.url_en).length;
        const pt = index.content.filter((i) => i.url_pt).length;
        expect(stats.languages).toEqual({
          es: { items: total, share: 1 },
          en: { items: en, share: Math.round((en / total) * 10000) / 10000 },
          'pt-br': { items: pt, share: Math.round((pt / total) * 10000) / 10000 },
        });
        const python = index.content.filter((i) => i.technologies?.includes('Python')).length;
        expect(stats.technologies[0]).toEqual({ name: 'Python', count: python });
        const named = new Set(index.content.flatMap((i) => i.technologies ?? []).map((t) => t.toLowerCase()));
        expect(stats.technologies).toHaveLength(named.size);
        // content.json is newest first, so its first item is the newest dated one.
        expect(stats.newest).toEqual({
          date: '2026-03-03T00:00:00Z',
          type: index.content[0]?.type,
          title: index.content[0]?.title,
          url: index.content[0]?.url,
        });
        expect(stats.generated).toBe(index.generated);
      });
    });

    describe('bad arguments', () => {
      const cases: [string, Record<string, unknown>, string][] = [
        [
          'list_content',
          { type: 'article' },
          'Input validation error: Invalid arguments for tool list_content: type: must be one of post, project, tip. Only items of this type: post, project or tip.',
        ],
        [
          'list_content',
          { limit: 0 },
          'Input validation error: Invalid arguments for tool list_content: limit: 0 is less than 1. Items per page, from 1 to 100 (default 20).',
        ],
        [
          'list_content',
          { limit: 1000 },
          'Input validation error: Invalid arguments for tool list_content: limit: 1000 is greater than 100. Items per page, from 1 to 100 (default 20).',
        ],
        [
          'list_content',
          { limit: 2.5 },
          'Input validation error: Invalid arguments for tool list_content: limit: must be an integer, got a number. Items per page, from 1 to 100 (default 20).',
        ],
        [
          'list_content',
          { lang: 'pt' },
          'Input validation error: Invalid arguments for tool list_content: lang: must be one of es, en, pt-br, in any case. Only items that exist in this language: es, en or pt-br, in any case (pt-BR too); each item then carries its title and address in it.',
        ],
        [
          'list_content',
          { page: 2 },
          'Input validation error: Invalid arguments for tool list_content: page: is not an argument of this tool. Arguments: type, lang, technology, limit, cursor.',
        ],
        [
          'search_content',
          { query: '' },
          'Input validation error: Invalid arguments for tool search_content: query: is too short: 0 characters, at least 1. Words to look for, 1 to 200 characters, in any of the three languages. Case and accents are ignored, word beginnings match (embed finds embeddings) and one typo is tolerated in words of five letters or more.',
        ],
        [
          'search_content',
          { query: 'a'.repeat(10_000) },
          'Input validation error: Invalid arguments for tool search_content: query: is too long: 10000 characters, at most 200. Words to look for, 1 to 200 characters, in any of the three languages. Case and accents are ignored, word beginnings match (embed finds embeddings) and one typo is tolerated in words of five letters or more.',
        ],
        [
          'search_content',
          {},
          'Input validation error: Invalid arguments for tool search_content: query: is required. Words to look for, 1 to 200 characters, in any of the three languages. Case and accents are ignored, word beginnings match (embed finds embeddings) and one typo is tolerated in words of five letters or more.',
        ],
        [
          'search_content',
          { query: ' ?! ' },
          'Invalid arguments for tool search_content: query: has no words to search for. Give at least one word (letters or digits).',
        ],
        [
          'search_content',
          { query: 'rust', type: 'article' },
          'Input validation error: Invalid arguments for tool search_content: type: must be one of post, project, tip. Only items of this type: post, project or tip.',
        ],
        [
          'search_content',
          { query: 'rust', limit: 0 },
          'Input validation error: Invalid arguments for tool search_content: limit: 0 is less than 1. Most results to return, from 1 to 100 (default 10).',
        ],
        [
          'content_stats',
          { type: 'post' },
          'Input validation error: Invalid arguments for tool content_stats: type: is not an argument of this tool. Arguments: none.',
        ],
      ];
      for (const [tool, args, text] of cases) {
        it(`${tool} ${JSON.stringify(args).slice(0, 60)} is a tool error`, async () => {
          expect(toolError(await call(tool, args))).toEqual(textError(text));
        });
      }

      const cursorError = (reason: string) =>
        textError(
          `Invalid arguments for tool list_content: cursor: ${reason}. Pass the next_cursor of the previous page with the same filters, or omit cursor to start from the first page.`,
        );

      it('a forged cursor is a tool error', async () => {
        expect(toolError(await call('list_content', { cursor: 'not-a-cursor' }))).toEqual(
          cursorError('is not a cursor returned by list_content'),
        );
        const forged = Buffer.from(JSON.stringify({ o: 5, k: 'deadbeef' })).toString('base64url');
        expect(toolError(await call('list_content', { cursor: forged }))).toEqual(
          cursorError('was made for other filters or an older version of the index'),
        );
      });

      it("another listing's cursor is a tool error", async () => {
        const page = await list({ type: 'post', limit: 2 });
        expect(toolError(await call('list_content', { type: 'tip', cursor: page.next_cursor }))).toEqual(
          cursorError('was made for other filters or an older version of the index'),
        );
      });
    });
  });
}
