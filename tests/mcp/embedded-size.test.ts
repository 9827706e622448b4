import { afterEach, expect, it } from 'vitest';
import { generateSite as benchSite } from '../../bench/generate-site.ts';
import { embeddedData, embeddedSizeAtLeast } from '../../build/core/edge/mcp/embedded.ts';
import { packEmbedded } from '../../build/core/edge/mcp/packed-data.ts';
import { build } from '../../build/index.ts';
import { generateSite } from '../helpers/generate-site.ts';
import { type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

// `auto` and `embedded` decide from this bound, without building the search index, that a site is past
// the ceiling: were it ever above the real size, a site that fits would be sent to D1 (or refused).
it('the embedded module is never smaller than its lower bound, and the bound is close', async () => {
  const sites = {
    hostile: generateSite(60, 3),
    synthetic: Object.fromEntries([...benchSite({ items: 150, seed: 5 })].map((f) => [f.path, f.content])),
  };
  for (const files of Object.values(sites)) {
    site = await tempSite(files);
    const { mcpPrepared } = await build({ root: site.root, dryRun: true, deployment: false });
    const real = Buffer.byteLength(packEmbedded(embeddedData(mcpPrepared)));
    const bound = embeddedSizeAtLeast(mcpPrepared);
    expect(bound).toBeLessThanOrEqual(real);
    expect(bound / real).toBeGreaterThan(0.6);
    await site.dispose();
    site = undefined;
  }
});

it('past the ceiling on the entries and body texts alone, the bound is those, and never more than the module', async () => {
  site = await tempSite(generateSite(20, 4));
  const { mcpPrepared } = await build({ root: site.root, dryRun: true, deployment: false });
  const real = Buffer.byteLength(packEmbedded(embeddedData(mcpPrepared)));
  const bodies = mcpPrepared.documents.reduce(
    (sum, d) => sum + Object.values(d.text).reduce((n, t) => n + (t.body?.length ?? 0), 0),
    0,
  );
  const entries = mcpPrepared.entries.reduce((sum, e) => sum + JSON.stringify(e).length, 0) + bodies;
  // Past the ceiling without counting a word: nothing is tokenized.
  expect(embeddedSizeAtLeast(mcpPrepared, entries - 1)).toBe(entries);
  expect(embeddedSizeAtLeast(mcpPrepared)).toBeGreaterThan(entries);
  expect(embeddedSizeAtLeast(mcpPrepared)).toBeLessThanOrEqual(real);
  // Under it the words are counted: the bound is the full one.
  expect(embeddedSizeAtLeast(mcpPrepared, entries)).toBe(embeddedSizeAtLeast(mcpPrepared));
});
