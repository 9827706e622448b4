import { expect, it } from 'vitest';
import {
  CONTENT_TYPES,
  type ContentType,
  LANGUAGES,
  type Language,
} from '../../build/core/edge/languages.ts';
import { countKey, d1DataOf } from '../../build/core/edge/mcp/d1-backend.ts';

it('counts the entries of every type and language filter, as filtering them one filter at a time does', () => {
  // list_content's totals on D1 come from these counts, not from a query: each must be the number of
  // entries the filter passes (an entry in three languages counts once under each, once under `*`).
  const entries: { type: ContentType; languages: Language[] }[] = [];
  for (let i = 0; i < 60; i++) {
    const languages = LANGUAGES.filter((_, k) => (i >> k) % 2 === 1 || k === i % LANGUAGES.length);
    entries.push({ type: CONTENT_TYPES[i % CONTENT_TYPES.length] as ContentType, languages });
  }
  const info = {} as Parameters<typeof d1DataOf>[0];
  const { counts } = d1DataOf(info, entries, { binding: 'DB', database: 'd', generation: 'g000000000000' });
  const expected: Record<string, number> = {};
  for (const type of [undefined, ...CONTENT_TYPES])
    for (const lang of [undefined, ...LANGUAGES])
      expected[countKey(type, lang)] = entries.filter(
        (e) => (type === undefined || e.type === type) && (lang === undefined || e.languages.includes(lang)),
      ).length;
  expect(counts).toEqual(expected);
  expect(Object.keys(counts)).toEqual(Object.keys(expected));
  expect(counts['*/*']).toBe(60);
});
