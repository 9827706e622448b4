/**
 * `npm run acceptance:50k`: the large-site acceptance run, too slow for `npm test` (about ten minutes
 * on a quiet two-core machine; it writes some 130,000 files). On a generated 50,000-item trilingual site:
 *
 * 1. `mcp.backend: 'd1'` builds, within every limit, and so does `'auto'` (which picks D1);
 * 2. `'embedded'` is refused, the limit named;
 * 3. the D1 import goes into wrangler's local D1, `wrangler pages dev` serves `/mcp` from it, and the
 *    official MCP client gets answers from every tool (a smoke test: counts, paging, searches);
 * 4. the same site with long descriptions makes a `content.json` over 25 MiB: refused, the limit named.
 *
 * Exits non-zero at the first failed check. ACCEPTANCE_ITEMS changes the size (for a quick try).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { installFunctions } from '../tests/helpers/functions.ts';
import { connectV2Http } from '../tests/helpers/mcp.ts';
import { startProjectPagesDev } from '../tests/helpers/pages-dev.ts';
import { D1_WRANGLER } from '../tests/helpers/project.ts';
import { ROOT, run, WRANGLER_ENV } from './_built-site.ts';
import { writeSite } from './generate-site.ts';

const ITEMS = Number(process.env.ACCEPTANCE_ITEMS ?? 50_000);
const BIN = join(ROOT, 'bin/content-index.js');
const WRANGLER_TOML = `name = "acceptance"\npages_build_output_dir = "public"\ncompatibility_date = "2026-04-26"\nsend_metrics = false\n${D1_WRANGLER}`;

let failures = 0;
function check(ok: boolean, what: string, detail = ''): void {
  console.log(`${ok ? '✓' : '✗'} ${what}${detail ? ` — ${detail}` : ''}`);
  if (!ok) failures++;
}

async function cli(
  root: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  try {
    const stdout = await run(process.execPath, [BIN, ...args], root, WRANGLER_ENV);
    return { code: 0, stdout, stderr: '', ms: performance.now() - started };
  } catch (error) {
    const message = (error as Error).message;
    return { code: 1, stdout: '', stderr: message, ms: performance.now() - started };
  }
}

async function setBackend(root: string, backend: string): Promise<void> {
  const config = {
    site: 'https://example.com/',
    images: 'https://images.example.com/',
    name: 'Acceptance',
    description: 'Generated for the 50,000-item acceptance run',
    // The run is about the number of items: 50,000 items' bodies (740 MB of text on the synthetic
    // site) would pass a free D1 database's 500 MB, which the build refuses, saying so.
    mcp: { backend, bodies: false },
  };
  await writeFile(join(root, 'site.config.ts'), `export default ${JSON.stringify(config)};\n`);
}

async function main(): Promise<void> {
  const workdir = await mkdtemp(join(tmpdir(), 'content-index-acceptance-'));
  const site = join(workdir, 'site');
  try {
    let started = performance.now();
    // Short bodies: the index reads front matter only, and 130,000 long files would only cost disk.
    const files = await writeSite(site, { items: ITEMS, seed: 11, words: [20, 40], wrangler: WRANGLER_TOML });
    await installFunctions(site);
    console.log(
      `generated ${ITEMS} items (${files} files) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );

    await setBackend(site, 'd1');
    const d1 = await cli(site, 'build', '--json');
    check(d1.code === 0, "backend 'd1' builds", `${(d1.ms / 1000).toFixed(1)} s`);
    const report = d1.code === 0 ? JSON.parse(d1.stdout) : undefined;
    if (report) {
      const { limits, mcp } = report;
      check(
        mcp.backend === 'd1',
        'the report names the D1 backend',
        `${mcp.d1.generation}, SQL ${(mcp.d1.sqlBytes / 2 ** 20).toFixed(1)} MiB`,
      );
      check(
        limits.largest.bytes <= limits.largest.limit &&
          limits.files.count <= limits.files.limit &&
          limits.worker.gzipBytes <= limits.worker.limit,
        'within the free plan’s limits',
        `largest ${limits.largest.path} ${(limits.largest.bytes / 2 ** 20).toFixed(1)} MiB, ${limits.files.count} files, Worker ${(limits.worker.gzipBytes / 1024).toFixed(0)} KiB`,
      );
    }

    await setBackend(site, 'auto');
    const auto = await cli(site, 'build', '--json');
    const autoReport = auto.code === 0 ? JSON.parse(auto.stdout) : undefined;
    check(
      autoReport?.mcp.backend === 'd1',
      "backend 'auto' builds and picks D1",
      autoReport?.mcp.reason ?? auto.stderr.slice(0, 300),
    );

    await setBackend(site, 'embedded');
    const embedded = await cli(site, 'build');
    check(
      embedded.code !== 0 &&
        /site\.config\.ts: mcp\.backend: embedded: with [\d,]+ items the data module would be at least [\d.]+ MiB, past the embedded ceiling of 8\.0 MiB/.test(
          embedded.stderr,
        ),
      "backend 'embedded' is refused, the limit named",
      embedded.stderr.split('\n').find((l) => l.includes('mcp.backend')) ?? '',
    );

    // The D1 build again (the refused one wrote nothing), imported and served.
    await setBackend(site, 'd1');
    await cli(site, 'build');
    const state = join(workdir, 'state');
    started = performance.now();
    const imported = await cli(site, 'd1', 'import', '--persist-to', state);
    check(
      imported.code === 0,
      'imported into local D1',
      `${((performance.now() - started) / 1000).toFixed(1)} s: ${imported.stdout.trim().split('\n')[0] ?? imported.stderr.slice(0, 300)}`,
    );
    const server = await startProjectPagesDev(join(site, 'public'), [], site, { persistTo: state });
    try {
      const client = await connectV2Http(`${server.url}/mcp`);
      const stats = (await client.callTool('content_stats', {})).structuredContent as {
        counts: { total: number };
      };
      check(stats.counts.total === ITEMS, 'content_stats counts every item', String(stats.counts.total));
      const first = (await client.callTool('list_content', { lang: 'pt-br', limit: 100 }))
        .structuredContent as {
        items: unknown[];
        total: number;
        next_cursor: string;
      };
      const second = (
        await client.callTool('list_content', { lang: 'pt-br', limit: 100, cursor: first.next_cursor })
      ).structuredContent as { items: { url: string }[] };
      check(
        first.items.length === 100 && second.items.length === 100 && first.total > 30_000 * (ITEMS / 50_000),
        'list_content pages through D1',
        `${first.total} in Portuguese`,
      );
      for (const query of [
        'aprendizaje automatico',
        'visão computacional',
        'transformrs',
        'optim',
        'rust gpu',
      ]) {
        const started = performance.now();
        const result = await client.callTool('search_content', { query, limit: 5 });
        const found = result.structuredContent as { total: number; items: { score: number }[] } | undefined;
        check(
          !result.isError && (found?.total ?? 0) > 0 && (found?.items.length ?? 0) === 5,
          `search_content "${query}"`,
          `${found?.total} hits, ${(performance.now() - started).toFixed(0)} ms through wrangler pages dev`,
        );
      }
      await client.close();
    } finally {
      await server.stop();
    }

    // Long descriptions: the index itself outgrows Cloudflare's per-file limit.
    await rm(join(site, 'content'), { recursive: true, force: true });
    await writeSite(site, {
      items: ITEMS,
      seed: 11,
      words: [20, 40],
      descriptionWords: 90,
      wrangler: WRANGLER_TOML,
    });
    await setBackend(site, 'd1');
    const large = await cli(site, 'build');
    const line = large.stderr.split('\n').find((l) => l.includes('content.json')) ?? '';
    check(
      large.code !== 0 &&
        /public\/api\/(v1\/)?content\.json: is [\d.]+ MiB, over Cloudflare Pages' limit of 25\.0 MiB per file: the API serves the whole index in one GET, so this is the site's ceiling, about [\d,]+ items/.test(
          line,
        ),
      'a content.json over 25 MiB is refused, the limit named',
      line,
    );
    console.log(failures === 0 ? '\nall checks passed' : `\n${failures} check(s) failed`);
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
  if (failures > 0) process.exitCode = 1;
}

await main();
