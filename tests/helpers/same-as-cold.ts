import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HugoPublication } from '../../build/core/content/publication.ts';
import { isContentIndexError } from '../../build/core/errors.ts';
import { type BuildOptions, type BuildResult, build } from '../../build/index.ts';
import { FragmentStore } from '../../build/stages/fragment-store.ts';
import { bytesOf } from '../../build/stages/stored-bytes.ts';
import { snapshotDir, type TempSite } from './site.ts';

// The incremental engine's judge (issue 23, acceptance 2): a build with what the project kept from the
// builds before, and a build from nothing of the same sources, publish the same bytes or fail alike.

/** A Hugo site's publication rules, as the CLI reads them from its configuration (publication.ts). */
export const HUGO: HugoPublication = {
  buildDrafts: false,
  buildFuture: false,
  buildExpired: false,
  languages: ['es', 'en', 'pt-br'],
  disabledLanguages: [],
  file: 'hugo.toml',
};

/** Every file of a tree, and the /mcp data (the module, the D1 import) with its text. */
interface Output {
  tree: Record<string, string>;
  mcp: Record<string, string>;
}

export async function privateFiles(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const dir of ['.content-index/worker', '.content-index/d1']) {
    for (const name of await readdir(join(root, dir)).catch(() => [] as string[]))
      found[`${dir}/${name}`] = await readFile(join(root, dir, name), 'utf8');
  }
  return found;
}

function mcpFiles(result: BuildResult): Record<string, string> {
  return Object.fromEntries(
    (result.mcp?.files ?? []).map((f) => [
      f.path,
      typeof f.content === 'string' ? f.content : Buffer.concat(f.content.map(bytesOf)).toString('utf8'),
    ]),
  );
}

type Outcome = { ok: true; output: Output; result: BuildResult } | { ok: false; problems: string[] };

async function outcome(run: () => Promise<BuildResult>, output: (r: BuildResult) => Promise<Output>) {
  try {
    const result = await run();
    return { ok: true, output: await output(result), result } as Outcome;
  } catch (error) {
    if (!isContentIndexError(error)) throw error;
    return { ok: false, problems: error.problems.map((p) => JSON.stringify(p)) } as Outcome;
  }
}

/**
 * The project's incremental build (into public/, its store and parse cache kept in .content-index/),
 * and a build from nothing of the same sources (into cold/, no store, no cache): the same outputs, or
 * the same problems. Returns the incremental build's result.
 */
export async function sameAsCold(
  s: TempSite,
  options: BuildOptions,
  /** How the incremental build is run (dev's publish, then its finish): build() by default. */
  incremental: (options: BuildOptions) => Promise<BuildResult> = build,
): Promise<BuildResult | undefined> {
  const warm = await outcome(
    () => incremental({ root: s.root, ...options }),
    async (r) => ({ tree: await snapshotDir(r.outDir), mcp: await privateFiles(s.root) }),
  );
  const cold = await outcome(
    () => build({ root: s.root, ...options, out: 'cold', cache: false, store: FragmentStore.memory() }),
    async (r) => ({ tree: await snapshotDir(r.outDir), mcp: mcpFiles(r) }),
  );
  if (warm.ok && cold.ok) {
    expect(warm.output.tree).toEqual(cold.output.tree);
    expect(Object.keys(warm.output.mcp).sort()).toEqual(Object.keys(cold.output.mcp).sort());
    for (const [path, text] of Object.entries(cold.output.mcp))
      expect(warm.output.mcp[path], path).toBe(text);
    return warm.result;
  }
  expect(warm.ok ? 'built' : warm.problems).toEqual(cold.ok ? 'built' : cold.problems);
  return undefined;
}
