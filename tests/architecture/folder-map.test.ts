import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/site.ts';

// ARCHITECTURE.md's folder map is a tree, two spaces a level, a name then what it holds. It must list
// every tracked file (or a folder listed without children, such as content/) and nothing that is not.

interface Listed {
  files: string[];
  folders: string[];
  /** Folders listed whole, without their files. */
  opaque: string[];
}

function readMap(markdown: string): Listed {
  const section = markdown.split('## Folder map')[1] ?? '';
  const block = section.split('```text\n')[1]?.split('\n```')[0] ?? '';
  const listed: Listed = { files: [], folders: [], opaque: [] };
  const parents: string[] = [];
  const lines = block.split('\n').filter((line) => line.trim() !== '');
  lines.forEach((line, i) => {
    const depth = (line.length - line.trimStart().length) / 2;
    const name = line.trim().split(/\s+/)[0] ?? '';
    parents.length = depth;
    const path = [...parents, name].join('');
    if (name.endsWith('/')) {
      listed.folders.push(path);
      const next = lines[i + 1];
      const nextDepth = next === undefined ? 0 : (next.length - next.trimStart().length) / 2;
      if (nextDepth <= depth) listed.opaque.push(path);
      parents.push(name);
    } else {
      listed.files.push(path);
    }
  });
  return listed;
}

it('ARCHITECTURE.md lists every tracked file and folder, and nothing that is not there', async () => {
  const map = readMap(await readFile(join(PROJECT_ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const tracked = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '');
  expect(map.files.length).toBeGreaterThan(200);
  const missing = tracked.filter(
    (file) => !map.files.includes(file) && !map.opaque.some((folder) => file.startsWith(folder)),
  );
  expect(missing).toEqual([]);
  expect(map.files.filter((file) => !tracked.includes(file))).toEqual([]);
  expect(map.folders.filter((folder) => !tracked.some((file) => file.startsWith(folder)))).toEqual([]);
});
