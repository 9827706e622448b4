import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

// A build that cannot write everything leaves the output and the /mcp data in step, and says truly
// what it left. The failure is real: the build runs under a file-size limit (bash's `ulimit -f`, in KiB), so writing
// the /mcp data module, the largest file it writes, fails with EFBIG as a full disk fails with ENOSPC.

const run = promisify(execFile);
let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

it('a failure to write the /mcp data leaves the output as it was, and says so truly', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 150; i++) {
    files[`content/posts/p${i}.es.md`] = md({
      title: `Entrada ${i}`,
      description: `Descripción ${i} `.repeat(12),
      tags: ['ia', `t${i}`],
    });
  }
  site = await tempSite(files);
  // Every build through the bin, as a user runs it (the same dist/ each time, so unchanged files stay unchanged).
  const bin = (limit = 'unlimited') =>
    run(
      'bash',
      [
        '-c',
        `ulimit -f ${limit} && exec "${process.execPath}" "${join(PROJECT_ROOT, 'bin/content-index.js')}" build`,
      ],
      {
        cwd: site?.root,
      },
    );
  await bin();
  // The embedded data's bytes (the module beside them imports them, and changes with them).
  const module = join(site.root, '.content-index/worker/mcp-data.bin');
  const before = {
    index: await site.readJson('api/v1/content.json'),
    module: await readFile(module, 'utf8'),
    script: await readFile(join(site.root, '.content-index/worker/mcp-data.mjs'), 'utf8'),
  };
  // A limit between the largest file a build may rewrite in the output (all but Redoc's bundle, which
  // never changes) and the /mcp module.
  const sizes = async (...paths: string[]) => Promise.all(paths.map(async (p) => (await stat(p)).size));
  const published = Object.keys(await site.snapshot()).filter((p) => !p.endsWith('redoc.standalone.js'));
  const rewritten = Math.max(
    ...(await sizes(
      ...published.map((p) => join(site?.out ?? '', p)),
      join(site.root, '.content-index/output/public/gen-1.json'),
    )),
  );
  const [moduleBytes = 0] = await sizes(module);
  const limitKiB = Math.floor((rewritten + moduleBytes) / 2 / 1024);
  expect(rewritten).toBeLessThan(limitKiB * 1024);
  expect(moduleBytes).toBeGreaterThan(limitKiB * 1024 + 2048);

  await site.write('content/posts/p0.es.md', md({ title: 'Título nuevo', description: 'Otra.' }));
  const failed = await bin(String(limitKiB)).catch((error: { code: number; stderr: string }) => error);
  expect((failed as { code?: number }).code).toBe(1);
  expect(failed.stderr).toContain('could not write the output');
  expect(failed.stderr).toContain('EFBIG');
  expect(failed.stderr).toContain('the output folder was not changed');
  // True: the index still has the old title, and the /mcp data is the old build's too.
  expect(await site.readJson('api/v1/content.json')).toEqual(before.index);
  expect(await readFile(module, 'utf8')).toBe(before.module);
  expect(await readFile(join(site.root, '.content-index/worker/mcp-data.mjs'), 'utf8')).toBe(before.script);
  expect(await readdir(join(site.root, '.content-index/worker'))).toEqual([
    'mcp-data.bin',
    'mcp-data.d.mts',
    'mcp-data.mjs',
  ]);

  // Without the limit the same build goes through, both in step.
  await bin();
  expect(JSON.stringify(await site.readJson('api/v1/content.json'))).toContain('Título nuevo');
  expect(await readFile(module, 'utf8')).toContain('Título nuevo');
});
