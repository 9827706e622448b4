import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * Gives a project outside this repository (a test's or a benchmark's site) the repository's Pages
 * Functions, so `wrangler pages dev` or `pages functions build` run from that project's root bundle its
 * own `.content-index/worker/mcp-data.mjs` with this checkout's sources. The Functions import their
 * handlers from the package (`content-index/functions/mcp`, as `init` writes them); here those become
 * absolute paths to the sources of those handlers (build/functions/), while the data module stays
 * relative to the project. tests/package.test.ts checks the files as an installed package has them.
 */
export async function installFunctions(root: string): Promise<void> {
  if (relative(root, PROJECT_ROOT) === '') throw new Error('installFunctions: that is this repository');
  const source = join(PROJECT_ROOT, 'functions');
  const files = (await readdir(source, { recursive: true })).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = await readFile(join(source, file), 'utf8');
    const rewritten = text.replace(
      /(['"])content-index\/functions\/([a-z]+)\1/g,
      (_match, quote: string, name: string) =>
        `${quote}${join(PROJECT_ROOT, 'build', 'functions', `${name}.ts`).split('\\').join('/')}${quote}`,
    );
    const target = join(root, 'functions', file);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, rewritten);
  }
}
