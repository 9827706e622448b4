import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

async function failing(files: Record<string, string>, prepare?: (s: TempSite) => Promise<void>) {
  site = await tempSite({ 'content/posts/bien.es.md': md({ title: 'Bien' }), ...files });
  await prepare?.(site);
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  return result.stderr;
}

const BILLION_LAUGHS = `---
title: Risa
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
---
`;

it('rejects a YAML "billion laughs" file with a clear message', async () => {
  const stderr = await failing({ 'content/posts/risa.es.md': BILLION_LAUGHS });
  expect(stderr).toContain('content/posts/risa.es.md:1: front matter expands to more than 10000 values');
  expect(stderr).toContain('remove YAML aliases');
});

it('rejects front matter nested too deep', async () => {
  const deep = `${'['.repeat(40)}1${']'.repeat(40)}`;
  const stderr = await failing({ 'content/posts/hondo.es.md': `---\ntitle: Hondo\nx: ${deep}\n---\n` });
  expect(stderr).toContain('content/posts/hondo.es.md:1: front matter nests deeper than 32 levels');
});

it('rejects front matter nested thousands of levels deep in every format, each file named, no internal error', async () => {
  // A dozen KiB each: well within the front-matter limit, deep enough to exhaust a recursive parser.
  const open = '['.repeat(6000);
  const close = ']'.repeat(6000);
  const stderr = await failing({
    'content/posts/json.es.md': `{ "title": "JSON", "x": ${open}${close} }\n`,
    'content/posts/json-abierto.es.md': `{ "title": "JSON abierto", "x": ${open} }\n`,
    'content/posts/yaml.es.md': `---\ntitle: YAML\nx: ${open}${close}\n---\n`,
    'content/posts/toml.es.md': `+++\ntitle = "TOML"\nx = ${open}${close}\n+++\n`,
  });
  expect(stderr).not.toContain('internal error');
  for (const name of ['json', 'json-abierto', 'yaml', 'toml'])
    expect(stderr).toContain(`content/posts/${name}.es.md:1: front matter nests deeper than 32 levels`);
});

it('rejects a 50 MB file without reading it', async () => {
  const stderr = await failing({}, async (s) => {
    // A sparse file: 50 MB on paper, so the test itself stays fast.
    const handle = await open(join(s.root, 'content/posts/enorme.es.md'), 'w');
    await handle.write('---\ntitle: Enorme\n---\n');
    await handle.truncate(50 * 1024 * 1024);
    await handle.close();
  });
  expect(stderr).toContain(
    'content/posts/enorme.es.md: is 50.0 MiB, over the 1.0 MiB limit for one source file',
  );
});

it('rejects front matter that never closes within 64 KiB', async () => {
  const stderr = await failing({
    'content/posts/abierto.es.md': `---\ntitle: Abierto\n${'x: 1\n'.repeat(20_000)}`,
  });
  expect(stderr).toContain('content/posts/abierto.es.md:1: front matter does not end within 64.0 KiB');
});

it('never runs JavaScript front matter', async () => {
  const marker = join('/tmp', `content-index-pwned-${process.pid}`);
  const stderr = await failing({
    'content/posts/js.es.md': `---js\n{ title: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') }\n---\n`,
  });
  expect(stderr).toContain('content/posts/js.es.md:1: front matter in js is not supported');
  await expect(open(marker)).rejects.toThrow();
});

it('refuses binary files, duplicate keys and unknown YAML tags with their lines', async () => {
  const stderr = await failing({
    'content/posts/binario.es.md': '\u0000\u0001\u0002PNG',
    'content/posts/duplicado.es.md': '---\ntitle: Uno\ntitle: Dos\n---\n',
    'content/posts/etiqueta.es.md': '---\ntitle: !custom Tres\n---\n',
  });
  expect(stderr).toContain('content/posts/binario.es.md:1: is not a UTF-8 text file');
  expect(stderr).toMatch(
    /content\/posts\/duplicado\.es\.md:3: front matter is not valid YAML: duplicated mapping key/,
  );
  expect(stderr).toMatch(/content\/posts\/etiqueta\.es\.md:2: front matter is not valid YAML: unknown tag/);
});
