import { afterEach, describe, expect, it } from 'vitest';
import { embeddedData } from '../../build/core/edge/mcp/embedded.ts';
import { packEmbedded } from '../../build/core/edge/mcp/packed-data.ts';
import {
  buildSearchIndex,
  type DocumentPostings,
  documentPostings,
  joinPostings,
  loadSearchIndex,
} from '../../build/core/edge/mcp/search-index.ts';
import { searchTerms } from '../../build/core/edge/mcp/text.ts';
import { MCP_PACKED_PATH } from '../../build/core/edge/mcp/worker-module.ts';
import { type BuildResult, build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// The embedded data is joined from each item's fragments (its entry's line, its postings, its bodies'
// line), kept per item between builds, instead of being built whole at every build. It must be what
// the whole build makes of the same material (embedded.ts embeddedData, search-index.ts
// buildSearchIndex), byte for byte: from nothing, and with fragments read back from the store.

let site: TempSite | undefined;
afterEach(() => site?.dispose());

const FILES = {
  'content/posts/modelos.es.md': md(
    { title: 'Modelos de lenguaje', date: '2025-01-10', tags: ['ia', 'llm'] },
    'Los modelos aprenden de los datos. El **bootloader** arranca antes que el núcleo.\n',
  ),
  'content/posts/modelos.en.md': md(
    { title: 'Language models', date: '2025-01-10', tags: ['ia'] },
    'Running models on a laptop: quantization, `int8` and a small context.\n',
  ),
  'content/posts/modelos.pt-br.md': md(
    { title: 'Modelos de linguagem', date: '2025-01-11', tags: ['ia', 'llm'] },
    'O aprendizado dos modelos e os aprendizados de quem os usa.\n',
  ),
  'content/posts/rust.es.md': md(
    { title: 'Rust sin miedo', date: '2025-02-01', tags: ['rust'] },
    '```rust\nfn main() {}\n```\nPropiedad y préstamos, sin recolector.\n',
  ),
  'content/projects/motor.es.md': md(
    { title: 'Motor', date: '2025-01-01', technologies: ['Rust', 'C++'] },
    'Un motor gráfico escrito en C++ y Rust.\n',
  ),
  'content/tips/atajo.es.md': md({ title: 'Atajo', description: 'Un atajo de teclado' }, ''),
};

function moduleOf(result: BuildResult): string | undefined {
  const file = result.mcp?.files.find((f) => f.path === MCP_PACKED_PATH);
  return typeof file?.content === 'string' ? file.content : undefined;
}

describe('the embedded data joined from per-item fragments', () => {
  it('is the data built whole from the same material, index, entries and bodies included', async () => {
    site = await tempSite(FILES, { ...FIXTURE_CONFIG, mcp: { backend: 'embedded' } });
    const clock = () => new Date('2026-01-01T00:00:00Z');
    const first = await build({ root: site.root, clock });
    expect(first.mcp?.backend).toBe('embedded');
    expect(moduleOf(first)).toBe(packEmbedded(embeddedData(first.mcpPrepared)));

    // One body edited: the other items' fragments come back from the store on disk.
    await site.write(
      'content/posts/rust.es.md',
      md({ title: 'Rust sin miedo', date: '2025-02-01', tags: ['rust'] }, 'Préstamos y vidas.\n'),
    );
    const second = await build({ root: site.root, clock });
    expect(second.incremental).toMatchObject({ redone: 1, redoneItems: ['post/rust'] });
    const joined = moduleOf(second);
    expect(joined).toBe(packEmbedded(embeddedData(second.mcpPrepared)));
    expect(joined).toContain('vidas');
    expect(joined).not.toContain('recolector');
  });

  it('keeps each document’s postings as JSON holds them, and answers as the whole index does', async () => {
    site = await tempSite(FILES, { ...FIXTURE_CONFIG, mcp: { backend: 'embedded' } });
    const { documents } = (await build({ root: site.root, dryRun: true })).mcpPrepared;
    const kept = documents.map(
      (doc) => JSON.parse(JSON.stringify(documentPostings(doc))) as DocumentPostings,
    );
    const whole = buildSearchIndex(documents);
    expect(joinPostings(kept)).toEqual(whole);
    const ours = loadSearchIndex(joinPostings(kept));
    const theirs = loadSearchIndex(whole);
    const languages = () => ['es', 'en', 'pt-br'] as const;
    for (const query of ['modelo', 'running', 'aprendizado', 'bootloadr', 'rust', 'c++', 'núcleo']) {
      const ask = { words: searchTerms(query), limit: 10, languages };
      expect(ours.search(ask), query).toEqual(theirs.search(ask));
      expect(ours.search(ask).total, query).toBeGreaterThan(0);
    }
  });

  it('holds nothing for no documents', () => {
    expect(joinPostings([])).toEqual(buildSearchIndex([]));
  });
});
