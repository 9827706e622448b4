import { describe, expect, it } from 'vitest';
import { excerpt, SNIPPET_MAX_CHARS, SNIPPET_TEXT_CHARS } from '../../build/core/edge/mcp/snippet.ts';
import { TOOL_SCHEMAS } from '../../build/core/edge/mcp/tool-schemas.ts';

const long = (words: string) => `${'relleno '.repeat(200)}${words} ${'relleno '.repeat(200)}`;
const text = (snippet: string | undefined) => (snippet ?? '').replaceAll('**', '').replace(/^…|…$/g, '');

describe('a snippet', () => {
  it('is at most 160 characters of the text, around the match, with the matched word marked', () => {
    const snippet = excerpt(long('el modelo aprende'), 'es', ['modelos']);
    expect(snippet).toContain('**modelo**');
    expect(snippet?.startsWith('…') && snippet.endsWith('…')).toBe(true);
    expect(text(snippet).length).toBeLessThanOrEqual(SNIPPET_TEXT_CHARS);
  });

  it('is never longer than the output schema allows, however many words are marked', () => {
    const schema = TOOL_SCHEMAS.search_content.output as {
      properties: { items: { items: { properties: { snippet: { maxLength: number } } } } };
    };
    expect(schema.properties.items.items.properties.snippet.maxLength).toBe(SNIPPET_MAX_CHARS);
    const snippet = excerpt(`${'a modelo '.repeat(100)}`, 'es', ['modelo']);
    expect(snippet?.length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
    expect(snippet?.match(/\*\*modelo\*\*/g)).toHaveLength(8);
  });

  it('is the window with the most of the query words, and undefined when none is in the text', () => {
    const snippet = excerpt(
      `datos aislados ${'relleno '.repeat(60)} aquí los datos y el modelo juntos ${'relleno '.repeat(60)}`,
      'es',
      ['datos', 'modelo'],
    );
    expect(snippet).toContain('**datos** y el **modelo**');
    expect(excerpt(long('nada que ver'), 'es', ['modelo'])).toBeUndefined();
  });

  it('finds accented and stemmed forms, typos, and technology names written with symbols', () => {
    expect(excerpt(long('una rúbrica explícita'), 'es', ['rubricas'])).toContain('**rúbrica**');
    expect(excerpt(long('una rúbrica explícita'), 'es', ['rubrca'])).toContain('**rúbrica**');
    expect(excerpt(long('escrito en C++17 y Node.js'), 'es', ['cplusplus'])).toContain('**C++17**');
    expect(excerpt(long('escrito en C++17 y Node.js'), 'es', ['nodejs'])).toContain('**Node.js**');
  });

  it('never cuts a surrogate pair', () => {
    const snippet = excerpt(`${'😀'.repeat(200)} modelo ${'😀'.repeat(200)}`, 'es', ['modelo']);
    expect(snippet).toContain('**modelo**');
    // No lone surrogate: encoding it to UTF-8 and back gives the same text.
    expect(new TextDecoder().decode(new TextEncoder().encode(snippet))).toBe(snippet);
  });
});
