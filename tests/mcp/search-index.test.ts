import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinOneEdit } from '../../build/core/edge/mcp/text.ts';
import { type LoadedMcp, searchContent, ToolArgumentError } from '../../build/core/edge/mcp/tools.ts';
import { loadProjectMcp } from '../helpers/mcp.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// One document per item, each language's text in fields of its own: these pin what that layout must keep
// from one document per translation (filters by language, the language reported) and what it adds.
let site: TempSite;
let mcp: LoadedMcp;

beforeAll(async () => {
  site = await tempSite({
    // Translated tags: "rust" is every translation's, "aprendizaje" and "learning" only one's.
    'content/posts/guia-rust.es.md': md({
      title: 'Guía de Rust para la web',
      date: '2026-01-10',
      tags: ['rust', 'aprendizaje'],
    }),
    'content/posts/guia-rust.en.md': md({
      title: 'A Rust guide to the web',
      slug: 'rust-guide',
      tags: ['rust', 'learning'],
    }),
    'content/posts/solo-espanol.es.md': md({
      title: 'Servidores en Rust',
      date: '2026-01-09',
      tags: ['rust'],
    }),
    'content/tips/tensores.es.md': md({
      title: 'Tensores con PyTorch',
      date: '2026-01-08',
      tags: ['python'],
    }),
    'content/tips/tensores.pt-br.md': md({
      title: 'Tensores com PyTorch',
      slug: 'tensores-pt',
      tags: ['python'],
    }),
  });
  const result = await site.cli('build');
  expect(result.code, result.stderr).toBe(0);
  mcp = await loadProjectMcp(site.root);
});
afterAll(() => site?.dispose());

const search = (query: string, args: Record<string, unknown> = {}) => searchContent(mcp, { query, ...args });
const found = async (query: string, args: Record<string, unknown> = {}) =>
  (await search(query, args)).items.map((i) => `${i.translation.title} [${i.matched_language}]`);

describe('search_content over one document per item', async () => {
  it('searches a translation-only tag in that language alone', async () => {
    expect(await found('aprendizaje')).toEqual(['Guía de Rust para la web [es]']);
    expect(await found('aprendizaje', { lang: 'en' })).toEqual([]);
    expect(await found('learning', { lang: 'en' })).toEqual(['A Rust guide to the web [en]']);
    expect(await found('learning', { lang: 'es' })).toEqual([]);
  });

  it('searches the tags every translation has in each language, and reports the filtered one', async () => {
    expect(await found('rust', { lang: 'en' })).toEqual(['A Rust guide to the web [en]']);
    expect((await search('rust', { lang: 'en' })).items[0]?.matched_fields).toEqual(['title', 'tags']);
    // Only items that exist in the language: the Spanish-only post is not an English result.
    expect(await found('servidores', { lang: 'en' })).toEqual([]);
  });

  it('reports the language whose text matched, the canonical one on a tie', async () => {
    expect(await found('web guide')).toEqual(['A Rust guide to the web [en]']);
    expect(await found('tensores com')).toEqual(['Tensores con PyTorch [es]']);
    expect(await found('pytorch')).toEqual(['Tensores con PyTorch [es]']);
    expect((await search('pytorch')).items[0]?.matched_fields).toEqual(['title']);
  });

  it('needs every word somewhere in the item, in any of its languages', async () => {
    const mixed = await search('guía guide');
    expect(mixed.match).toBe('all');
    expect(mixed.items.map((i) => i.url)).toEqual(['https://example.com/blog/guia-rust/']);
    const partial = await search('servidores guide');
    expect(partial.match).toBe('any');
    expect(partial.total).toBe(2);
  });

  it('leaves common words out of the index and out of the query', async () => {
    // "de", "para" and "la" are in the title, but asking for them finds nothing more and nothing less.
    expect((await search('guía de rust para la web')).items.map((i) => i.url)).toEqual(
      (await search('guía rust web')).items.map((i) => i.url),
    );
    expect((await search('guía de rust para la web')).match).toBe('all');
    await expect(search('de la THE')).rejects.toThrow(
      new ToolArgumentError(
        'Invalid arguments for tool search_content: query: has only common words (de, la, the), which are not searched. Add a word that says what to look for.',
      ),
    );
  });
});

describe('one typo', () => {
  /** Levenshtein distance, the slow way. */
  function distance(a: string, b: string): number {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) {
        next[j] = Math.min(
          (row[j] as number) + 1,
          (next[j - 1] as number) + 1,
          (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      }
      row = next;
    }
    return row[b.length] as number;
  }

  it('is a Levenshtein distance of at most one, for every pair of short words of three letters', () => {
    const letters = ['a', 'b', 'ã'];
    const words = [''];
    for (let length = 1; length <= 4; length++) {
      for (const word of words.filter((w) => w.length === length - 1)) {
        for (const letter of letters) words.push(word + letter);
      }
    }
    let near = 0;
    for (const a of words) {
      for (const b of words) {
        const expected = distance(a, b) <= 1;
        if (withinOneEdit(a, b) !== expected) expect.fail(`${a} / ${b}: expected ${expected}`);
        if (expected) near++;
      }
    }
    // Not vacuous: both answers are common.
    expect(near).toBeGreaterThan(1000);
    expect(near).toBeLessThan(words.length ** 2);
  });
});
