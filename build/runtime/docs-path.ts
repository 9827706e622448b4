import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED } from '../core/bundled.ts';

/** The package's own folder: the one above dist/, or the repository above build/stages/. */
const PACKAGE_ROOT = fileURLToPath(new URL(BUNDLED ? '../' : '../../', import.meta.url));

/**
 * Where the package's reference page `file` (docs/mcp.md) is, as the person at `root` can open it: in a
 * site that installed the package, node_modules/content-index/docs/mcp.md; in this repository,
 * docs/mcp.md; from anywhere else, the path to the copy that is running.
 */
export function docsPath(file: string, root: string = process.cwd()): string {
  const installed = `node_modules/content-index/docs/${file}`;
  if (existsSync(join(root, installed))) return installed;
  const own = join(PACKAGE_ROOT, 'docs', file);
  const shown = relative(root, own);
  return (shown.startsWith('..') || isAbsolute(shown) ? own : shown).split(sep).join('/');
}

/** Messages name the reference as `docs/mcp.md`; printed, that becomes a path that exists (docsPath). */
export function withDocsPaths(text: string, root: string = process.cwd()): string {
  return text.replace(/(?<![\w./-])docs\/([a-z-]+\.md)/g, (whole, file: string) =>
    existsSync(join(PACKAGE_ROOT, 'docs', file)) ? docsPath(file, root) : whole,
  );
}
