import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PrivateFile } from './mcp-output.ts';
import { inspect } from './output/generations.ts';
import { outputPlace } from './output/place.ts';
import { walkTree } from './output/tree.ts';

/** The tool's folders in the project's private `.content-index/` that the MCP output owns. */
export const MCP_PRIVATE_DIRS = ['.content-index/worker', '.content-index/d1'] as const;

/**
 * Writes the build's private files (the Function's data module, the D1 import) into the project root.
 * Each file is written beside its target and renamed over it, so wrangler, which watches the module,
 * never bundles half a file; a module whose bytes did not change is not touched at all, so an
 * unchanged rebuild does not make `wrangler pages dev` reload. Files of those folders the build no longer
 * produces (the D1 import after a switch to embedded) are removed.
 */
export async function writePrivateFiles(root: string, files: readonly PrivateFile[]): Promise<void> {
  const wanted = new Set(files.map((f) => f.path));
  for (const file of files) {
    const target = join(root, file.path);
    // Only a whole text is compared: the module, which wrangler watches; the D1 import is not watched.
    if (typeof file.content === 'string') {
      const current = await readFile(target, 'utf8').catch(() => undefined);
      if (current === file.content) continue;
    }
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, file.content);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
  for (const dir of MCP_PRIVATE_DIRS) {
    const names = await readdir(join(root, dir)).catch(() => [] as string[]);
    for (const name of names) {
      const path = `${dir}/${name}`;
      if (!wanted.has(path)) await rm(join(root, path), { force: true, recursive: true });
    }
  }
}

/**
 * Files a deployment uploads besides the build's own: the author's in the output folder (every file
 * there that the current generation's record does not name as the build's) and the static folder's.
 * They count against the plan's file limit.
 */
export async function countOtherFiles(root: string, outDir: string, staticDir?: string): Promise<number> {
  let count = 0;
  const current = await inspect(outputPlace(root, outDir));
  if (current.kind !== 'none') {
    const owned = current.record?.files ?? {};
    for (const [path, entry] of walkTree(current.dir)) {
      if (entry.kind === 'file' && !Object.hasOwn(owned, path)) count++;
    }
  }
  if (staticDir !== undefined) {
    for (const entry of walkTree(staticDir).values()) if (entry.kind === 'file') count++;
  }
  return count;
}
