import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { Pause } from '../../build/runtime/pause.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

it('ends a wait at its time, or sooner when ended', async () => {
  const pause = new Pause();
  const from = performance.now();
  await pause.for(30);
  expect(performance.now() - from).toBeGreaterThanOrEqual(25);

  const cut = performance.now();
  const waiting = pause.for(10_000);
  setTimeout(() => pause.end(), 5);
  await waiting;
  expect(performance.now() - cut).toBeLessThan(2_000);
});

it('waits after the output is published, before the MCP stage, and does not count the wait', async () => {
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  let seen: { published: boolean; mcpMs: number } | undefined;
  const timings: Record<string, number> = {};
  const result = await build({
    root: site.root,
    publishFirst: true,
    onStage: (name) => {
      timings[name] = (timings[name] ?? 0) + 1;
    },
    afterPublish: async () => {
      seen = { published: existsSync(join(site?.out ?? '', 'api/v1/content.json')), mcpMs: timings.mcp ?? 0 };
      await new Promise((resolve) => setTimeout(resolve, 400));
    },
  });
  // The output was there to serve, and the MCP stage had not begun.
  expect(seen).toEqual({ published: true, mcpMs: 0 });
  expect(timings.mcp).toBe(1);
  expect(result.durationMs).toBeLessThan(Object.values(result.timings).reduce((a, b) => a + b, 0) + 300);
});
