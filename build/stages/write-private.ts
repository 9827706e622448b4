import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MCP_MODULE_PATH } from '../core/edge/mcp/worker-module.ts';
import type { PrivateFile } from './mcp-output.ts';
import { inspect } from './output/generations.ts';
import { outputPlace } from './output/place.ts';
import { markState, parseMark, processMark } from './output/process-mark.ts';
import { walkTree } from './output/tree.ts';
import { bytesOf, writeFilePieces } from './stored-bytes.ts';

/** The tool's folders in the project's private `.content-index/` that the MCP output owns. */
export const MCP_PRIVATE_DIRS = ['.content-index/worker', '.content-index/d1'] as const;

/** Whether a build has written the Function's data module yet (a fresh clone has none to bundle). */
export function hasMcpModule(root: string): Promise<boolean> {
  return access(join(root, MCP_MODULE_PATH)).then(
    () => true,
    () => false,
  );
}

/**
 * Writes the build's private files (the Function's data module, the D1 import) into the project root.
 * Each file is written beside its target and renamed over it, so wrangler, which watches the module,
 * never bundles half a file; a module whose bytes did not change is not touched at all, so an
 * unchanged rebuild does not make `wrangler pages dev` reload. Files of those folders the build no longer
 * produces (the D1 import after a switch to embedded) are removed.
 */
export async function writePrivateFiles(root: string, files: readonly PrivateFile[]): Promise<void> {
  await (await stagePrivateFiles(root, files)).commit();
}

export interface StagedPrivateFiles {
  /** Renames each staged file over its target and removes what the build no longer produces. */
  commit(): Promise<void>;
  /** Deletes the staged files: the private folders stay as they were. */
  discard(): Promise<void>;
}

/**
 * The first half of writePrivateFiles: every changed file written in full beside its target, nothing
 * replaced yet. A build stages them before it switches the output folder and commits them after, so a
 * failure to write them (a full disk) leaves the output and the /mcp data both as they were, never the
 * new pages beside the old /mcp data; what is left after the switch is renames, which need no space.
 */
export async function stagePrivateFiles(
  root: string,
  files: readonly PrivateFile[],
): Promise<StagedPrivateFiles> {
  const staged: { temporary: string; target: string }[] = [];
  const discard = async () => {
    for (const { temporary } of staged.splice(0)) await rm(temporary, { force: true });
  };
  try {
    for (const file of files) {
      const target = join(root, file.path);
      // A file named after its content is there already when the last build left it there, as it left
      // it (its name and size alone say nothing of a change in place).
      if (file.named?.left && (await sizeOf(target)) === file.named.bytes) continue;
      // A file the build found as a build before wrote it, and did not make: gone or changed since (in
      // dev, an earlier save's /mcp data, written while this build ran, removed it), made now.
      const content = file.named?.kept && file.remake ? file.remake() : file.content;
      // Only a whole text is compared: the module, which wrangler watches; the D1 import is not watched.
      if (typeof content === 'string') {
        const current = await readFile(target, 'utf8').catch(() => undefined);
        if (current === content) continue;
      }
      await mkdir(dirname(target), { recursive: true });
      const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
      staged.push({ temporary, target });
      await writeContent(temporary, content);
    }
  } catch (error) {
    await discard();
    throw error;
  }
  const wanted = new Set(files.map((f) => f.path));
  return {
    discard,
    async commit() {
      for (const { temporary, target } of staged.splice(0)) await rename(temporary, target);
      for (const dir of MCP_PRIVATE_DIRS) {
        const names = await readdir(join(root, dir)).catch(() => [] as string[]);
        for (const name of names) {
          const path = `${dir}/${name}`;
          if (!wanted.has(path)) await rm(join(root, path), { force: true, recursive: true });
        }
      }
    },
  };
}

/**
 * Where a deploy of another output folder than the served one keeps the served build's private files
 * while its own are bundled and uploaded (see holdPrivateFiles).
 */
export const HELD_DIR = '.content-index/held';
const HELD_OWNER = 'owner';
const HELD_COMPLETE = 'complete';

/**
 * The private files belong to the served output folder's build (wrangler bundles them with every
 * deployment of the project). A deploy of another folder needs its own in their place while wrangler
 * compiles and uploads, and the served build's back afterwards, or a later `wrangler pages deploy
 * public` would publish that other build's `/mcp` (its drafts). This copies the current files aside and
 * returns what puts them back. Kept on disk, not in memory: a deploy killed in between leaves them
 * there, and the next build or deploy puts them back (recoverHeldPrivateFiles).
 */
export async function holdPrivateFiles(root: string): Promise<() => Promise<void>> {
  await recoverHeldPrivateFiles(root);
  const held = join(root, HELD_DIR);
  await rm(held, { recursive: true, force: true });
  await mkdir(held, { recursive: true });
  await writeFile(join(held, HELD_OWNER), JSON.stringify(processMark()));
  for (const dir of MCP_PRIVATE_DIRS) {
    for (const name of await readdir(join(root, dir)).catch(() => [] as string[])) {
      if (name.endsWith('.tmp')) continue;
      await mkdir(join(held, dir), { recursive: true });
      await copyFile(join(root, dir, name), join(held, dir, name));
    }
  }
  // Only a complete copy is ever put back; an incomplete one is simply deleted.
  await writeFile(join(held, HELD_COMPLETE), '');
  return () => restoreHeld(root);
}

/** Puts back the files a deploy killed before it finished held aside (none held, or its deploy still running: nothing). */
export async function recoverHeldPrivateFiles(root: string): Promise<boolean> {
  const owner = await readFile(join(root, HELD_DIR, HELD_OWNER), 'utf8').catch(() => undefined);
  if (owner === undefined) return false;
  const mark = parseMark(owner);
  // This process's own hold (a deploy building into it) or another live deploy's: not ours to undo. A
  // deploy that cannot be checked from here (another container's) is taken for ended: deploys of one
  // project do not run side by side, and its pid may be this process's own (every container's first
  // process is pid 1), which would keep the served build's data held for good.
  const state = mark ? markState(mark) : 'gone';
  if (state === 'self' || state === 'running') return false;
  await restoreHeld(root);
  return true;
}

async function restoreHeld(root: string): Promise<void> {
  const held = join(root, HELD_DIR);
  const complete = await readFile(join(held, HELD_COMPLETE)).then(
    () => true,
    () => false,
  );
  if (complete) {
    for (const dir of MCP_PRIVATE_DIRS) {
      const kept = new Set(await readdir(join(held, dir)).catch(() => [] as string[]));
      for (const name of await readdir(join(root, dir)).catch(() => [] as string[]))
        if (!kept.has(name)) await rm(join(root, dir, name), { force: true, recursive: true });
      for (const name of kept) {
        await mkdir(join(root, dir), { recursive: true });
        // A rename: each file is replaced whole, as wrangler (which may be watching) must see it.
        await rename(join(held, dir, name), join(root, dir, name));
      }
    }
  }
  await rm(held, { recursive: true, force: true });
}

/** Whether the private files on disk are exactly `files` (and nothing else of the MCP output's). */
export async function privateFilesAre(root: string, files: readonly PrivateFile[]): Promise<boolean> {
  const wanted = new Map(files.map((f) => [f.path, f]));
  for (const dir of MCP_PRIVATE_DIRS) {
    for (const name of await readdir(join(root, dir)).catch(() => [] as string[])) {
      const path = `${dir}/${name}`;
      const file = wanted.get(path);
      if (file === undefined) return false;
      // A file the build took as a build before wrote it is known by its name and size alone.
      if (file.named?.kept) {
        if ((await sizeOf(join(root, path))) !== file.named.bytes) return false;
      } else if (!(await holds(join(root, path), file.content))) return false;
      wanted.delete(path);
    }
  }
  return wanted.size === 0;
}

function sizeOf(path: string): Promise<number | undefined> {
  return stat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
}

/** Whether the file's bytes are `content`: a text compared whole, pieces (the D1 import) by their digest. */
async function holds(path: string, content: PrivateFile['content']): Promise<boolean> {
  if (typeof content === 'string') return (await readFile(path, 'utf8').catch(() => undefined)) === content;
  const wanted = createHash('sha256');
  for (const piece of content) wanted.update(bytesOf(piece));
  const found = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) found.update(chunk as Buffer);
  } catch {
    return false;
  }
  return wanted.digest('hex') === found.digest('hex');
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

/** Writes a text, or pieces of bytes (stored-bytes.ts: stored ones read straight into the write buffer). */
async function writeContent(path: string, content: PrivateFile['content']): Promise<void> {
  return typeof content === 'string' ? writeFile(path, content) : writeFilePieces(path, content);
}
