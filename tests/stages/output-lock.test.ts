import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { lockOutput, type OutputPlace, outputPlace } from '../../build/stages/output/place.ts';
import { processMark } from '../../build/stages/output/process-mark.ts';
import { HELD_DIR, recoverHeldPrivateFiles } from '../../build/stages/write-private.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

// One build at a time per output folder, and a lock left by a killed build never blocks the next one:
// not when its pid is taken again (every container's first process is pid 1), not when a live process
// that never held it has that pid now.

let root: string;
let place: OutputPlace;
const children: ChildProcess[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'content-index-lock-'));
  place = outputPlace(root, join(root, 'public'));
  await mkdir(place.state, { recursive: true });
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

const lockFile = () => join(place.state, 'lock');
const aMinuteAgo = () => new Date(Date.now() - 60_000);

/** Takes the lock with a short wait; how long it took, or the refusal. */
async function take(waitMs = 3000): Promise<{ ms: number; error?: string }> {
  const started = Date.now();
  try {
    const release = await lockOutput(place, { waitMs });
    await release();
    return { ms: Date.now() - started };
  } catch (error) {
    return { ms: Date.now() - started, error: (error as Error).message };
  }
}

function sleeper(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

it('takes over at once a lock naming its own pid, written by an earlier process (the next container’s pid 1)', async () => {
  const me = processMark();
  // This machine, this pid namespace, this pid; another start: the killed build that had the pid before.
  await writeFile(lockFile(), JSON.stringify({ ...me, start: '1' }));
  const reused = await take();
  expect(reused.error).toBeUndefined();
  expect(reused.ms).toBeLessThan(1000);
  // As an earlier release wrote it: the bare pid. This process never writes one, so it is not its own.
  await writeFile(lockFile(), String(process.pid));
  const bare = await take();
  expect(bare.error).toBeUndefined();
  expect(bare.ms).toBeLessThan(1000);
});

it('takes over at once a lock naming a live process that is not the one that wrote it', async () => {
  const other = sleeper();
  // The pid is live, but the process with it started after the lock was written.
  await writeFile(lockFile(), JSON.stringify({ ...processMark(), pid: other.pid, start: '1' }));
  const marked = await take();
  expect(marked.error).toBeUndefined();
  expect(marked.ms).toBeLessThan(1000);
  // An earlier release's bare pid, live but not refreshed for a minute: no holder leaves its lock so long.
  await writeFile(lockFile(), String(other.pid));
  await utimes(lockFile(), aMinuteAgo(), aMinuteAgo());
  const bare = await take();
  expect(bare.error).toBeUndefined();
  expect(bare.ms).toBeLessThan(1000);
});

it('waits for a live holder, here or in another container, and names it when it gives up', async () => {
  // A real holder in another process, holding the lock for a while.
  const holder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import { lockOutput, outputPlace } from ${JSON.stringify(join(PROJECT_ROOT, 'build/stages/output/place.ts'))};
       await lockOutput(outputPlace(${JSON.stringify(root)}, ${JSON.stringify(join(root, 'public'))}));
       console.log('held');
       await new Promise((r) => setTimeout(r, 20000));`,
    ],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(holder);
  await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
  const busy = await take(1500);
  expect(busy.error).toContain(
    `another content-index process (pid ${holder.pid}) is writing this output folder`,
  );
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  // Killed, it cannot release the lock: the next build takes it over at once.
  const after = await take();
  expect(after.error).toBeUndefined();
  expect(after.ms).toBeLessThan(1000);

  // Written in another container (another pid namespace): its pid means nothing here. Refreshed, it is
  // waited for; silent for a minute, it is a killed build's.
  await writeFile(
    lockFile(),
    JSON.stringify({ ...processMark(), pidns: 'pid:[1]', host: 'other-container' }),
  );
  expect((await take(500)).error).toContain('(pid ');
  await utimes(lockFile(), aMinuteAgo(), aMinuteAgo());
  expect((await take()).error).toBeUndefined();
});

it('puts back the /mcp data a killed deploy held aside, even when its pid is this process’s (containers)', async () => {
  // What holdPrivateFiles leaves when its deploy is killed mid-upload: the served build's data aside,
  // owned by a process with this process's pid (as an earlier release wrote it: the bare pid; as this
  // one writes it: its mark, with another start).
  for (const owner of [String(process.pid), JSON.stringify({ ...processMark(), start: '1' })]) {
    const held = join(root, HELD_DIR);
    await mkdir(join(held, '.content-index/worker'), { recursive: true });
    await writeFile(join(held, '.content-index/worker/mcp-data.mjs'), 'the served build');
    await writeFile(join(held, 'complete'), '');
    await writeFile(join(held, 'owner'), owner);
    await mkdir(join(root, '.content-index/worker'), { recursive: true });
    await writeFile(join(root, '.content-index/worker/mcp-data.mjs'), 'the other folder’s build');
    expect(await recoverHeldPrivateFiles(root), owner).toBe(true);
    expect(await readFile(join(root, '.content-index/worker/mcp-data.mjs'), 'utf8')).toBe('the served build');
  }
});
