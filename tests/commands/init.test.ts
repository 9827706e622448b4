import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FUNCTION_FILES } from '../../build/runtime/init-plan.ts';
import { md, PROJECT_ROOT, runCli, snapshotDir } from '../helpers/site.ts';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

async function project(files: Record<string, string>): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'content-index-init-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

const read = (path: string) => readFile(join(root as string, path), 'utf8');
const init = (...args: string[]) => runCli(root as string, {}, ['init', ...args]);

/** A Hugo site as `hugo new site` and a first post leave it, in Spanish, with a package.json of its own. */
const HUGO_SITE = {
  'hugo.toml':
    "baseURL = 'https://blog.example.org/'\nlanguageCode = 'es'\ndefaultContentLanguage = 'es'\ntitle = 'Mi blog'\n[params]\n  title = 'not the site'\n  email = 'hola@blog.example.org'\n",
  'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-02-01' }),
  'layouts/_default/single.html': '{{ .Content }}\n',
  // Hugo copies static/ into public/: the site serves its logo at /logo.png.
  'static/logo.png': 'PNG',
  'functions/_middleware.ts': 'export const onRequest = (c: { next(): Promise<Response> }) => c.next();\n',
  '.gitignore': '/public/\nresources/_gen/\n.hugo_build.lock\n',
  'package.json':
    '{\n\t"name": "mi-blog",\n\t"private": true,\n\t"scripts": {\n\t\t"build": "hugo --minify"\n\t}\n}\n',
};

it('sets up a Hugo site: configuration from hugo.toml, the Functions, wrangler.toml, scripts, .gitignore', async () => {
  await project(HUGO_SITE);
  const result = await init();
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('content-index init: a Hugo site, output folder public/');
  for (const path of [
    'site.config.ts',
    'headers.config.ts',
    'wrangler.toml',
    ...Object.keys(FUNCTION_FILES),
  ]) {
    expect(result.stdout).toContain(`  created  ${path}`);
  }
  expect(await read('site.config.ts')).toContain("site: 'https://blog.example.org/',");
  expect(await read('site.config.ts')).toContain("name: 'Mi blog',");
  // The contact Hugo's params give, and Hugo's static folder, whose _headers and _redirects are merged.
  expect(await read('site.config.ts')).toContain("contactEmail: 'hola@blog.example.org',");
  expect(await read('site.config.ts')).toContain("generatorStatic: ['static'],");
  expect(await read('site.config.ts')).toContain("import { defineSite } from 'content-index';");
  expect(await read('headers.config.ts')).toMatch(/v1: \{ published: '\d{4}-\d{2}-\d{2}' \}/);
  for (const [path, content] of Object.entries(FUNCTION_FILES)) expect(await read(path)).toBe(content);
  expect(await read('wrangler.toml')).toContain('name = "mi-blog"\npages_build_output_dir = "public"\n');

  // The author's build script stays; the others are added, in the file's own indentation.
  const manifest = await read('package.json');
  expect(JSON.parse(manifest).scripts).toEqual({
    build: 'hugo --minify',
    dev: 'content-index dev --hugo',
    deploy: 'hugo && content-index deploy',
  });
  expect(manifest).toContain('\n\t"scripts": {\n\t\t"build"');
  expect(result.stdout).toContain('build kept as it is: add `&& content-index build` to build');

  // `/public/` ignores a folder, not the link the build makes of public: `/public` is added, once.
  const ignore = await read('.gitignore');
  expect(ignore.startsWith(HUGO_SITE['.gitignore'])).toBe(true);
  expect(
    ignore
      .slice(HUGO_SITE['.gitignore'].length)
      .split('\n')
      .filter((l) => !l.startsWith('#')),
  ).toEqual(['', '.content-index/', '.wrangler/', 'node_modules/', '/public', '.*.content-index*', '']);
  expect(await read('functions/_middleware.ts')).toBe(HUGO_SITE['functions/_middleware.ts']);

  // The configuration init wrote builds the site as it is.
  const build = await runCli(root as string, {}, ['build']);
  expect(build.stderr).toBe('');
  expect(build.code).toBe(0);
  const index = JSON.parse(await read('public/api/v1/content.json'));
  expect(index.site).toBe('https://blog.example.org/');
  // Where Hugo writes it: its section, its name (tests/commands/init-hugo.test.ts checks against hugo).
  expect(index.content.map((i: { url: string }) => i.url)).toEqual(['https://blog.example.org/posts/hola/']);
});

it('changes nothing when run a second time, and says it skipped every file', async () => {
  await project(HUGO_SITE);
  expect((await init()).code).toBe(0);
  const after = await snapshotDir(root as string);
  const second = await init();
  expect(second.code).toBe(0);
  expect(await snapshotDir(root as string)).toEqual(after);
  expect(second.stdout).not.toMatch(/created|added/);
  expect(second.stdout).toContain('  skipped  site.config.ts: exists');
  expect(second.stdout).toContain('  skipped  functions/mcp/[[path]].ts: exists');
  expect(second.stdout).toContain('Nothing to do: everything init writes is already there.');
});

it('never overwrites a file: what exists is kept byte for byte and reported as skipped', async () => {
  const mine = {
    'site.config.ts': "export default { site: 'https://mine.example/', images: 'https://img.example/' };\n",
    'functions/api/[[path]].ts': 'export const onRequest = () => new Response("my api");\n',
    'wrangler.jsonc': '{ "name": "mine", "pages_build_output_dir": "public" }\n',
  };
  await project(mine);
  const result = await init();
  expect(result.code).toBe(0);
  for (const [path, content] of Object.entries(mine)) {
    expect(await read(path)).toBe(content);
    expect(result.stdout).toContain(`  skipped  ${path}: exists`);
  }
  // wrangler.jsonc is a wrangler configuration: no wrangler.toml beside it.
  await expect(read('wrangler.toml')).rejects.toThrow();
  expect(result.stdout).toContain('  created  functions/mcp/[[path]].ts');
});

it('starts package.json and .gitignore in a folder that has neither, with the output folder ignored', async () => {
  await project({});
  const result = await init('--out', 'site');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('  created  site.config.ts (set `site` to your site’s address)');
  expect(result.stdout).toContain('set `site` in site.config.ts');
  expect(JSON.parse(await read('package.json')).scripts).toEqual({
    build: 'content-index build --out site',
    dev: 'content-index dev --out site',
    deploy: 'content-index deploy --out site',
  });
  const ignore = (await read('.gitignore')).split('\n');
  // The whole output folder: the build makes it a link to a folder of its own (no trailing slash, which
  // would match folders only).
  expect(ignore).toEqual(expect.arrayContaining(['.content-index/', '/site', '.*.content-index*']));
  expect(ignore.filter((l) => l.startsWith('/site/'))).toEqual([]);
});

it('takes an Astro site’s output folder, dist/', async () => {
  await project({ 'astro.config.mjs': 'export default {};\n', 'package.json': '{ "name": "astro-site" }\n' });
  const result = await init();
  expect(result.stdout).toContain('an Astro site, output folder dist/');
  expect(JSON.parse(await read('package.json')).scripts.build).toBe(
    'astro build && content-index build --out dist',
  );
  expect(await read('wrangler.toml')).toContain('pages_build_output_dir = "dist"');
  expect(await read('site.config.ts')).toContain("content: { dir: 'src/content'");
});

it('leaves a package.json that is not JSON alone, and says so', async () => {
  await project({ 'package.json': '{ "name": "broken", }\n' });
  const result = await init();
  expect(result.code).toBe(0);
  expect(await read('package.json')).toBe('{ "name": "broken", }\n');
  expect(result.stdout).toContain('  skipped  package.json: is not valid JSON; no scripts were added');
});

it('finds nothing to do in this repository, the sample site: its Functions are the files init writes', async () => {
  await project({});
  const files = [
    'package.json',
    '.gitignore',
    'site.config.ts',
    'headers.config.ts',
    'wrangler.toml',
    'functions',
  ];
  for (const file of files)
    await cp(join(PROJECT_ROOT, file), join(root as string, file), { recursive: true });
  const result = await init();
  expect(result.stdout).toContain('Nothing to do');
  for (const [path, content] of Object.entries(FUNCTION_FILES)) {
    expect(await readFile(join(PROJECT_ROOT, path), 'utf8')).toBe(content);
  }
});

it('runs the site generator before the tool in every script it writes, deploy included', async () => {
  await project({ 'hugo.toml': "title = 'x'\n", 'content/posts/a.md': md({ title: 'A' }) });
  expect((await init()).code).toBe(0);
  expect(JSON.parse(await read('package.json')).scripts).toEqual({
    build: 'hugo && content-index build',
    dev: 'content-index dev --hugo',
    deploy: 'hugo && content-index deploy',
  });
});

it('a second run does not ask for what the first one did, but says what an older script lacks', async () => {
  await project({ 'hugo.toml': "defaultContentLanguage = 'es'\n", 'content/posts/a.md': md({ title: 'A' }) });
  expect((await init()).code).toBe(0);
  const second = await init();
  expect(second.stdout).toContain('  skipped  package.json: scripts build, dev, deploy exist\n');
  expect(second.stdout).not.toMatch(/run `content-index|add `|make /);

  // A deploy script from before deploy ran the generator (or one written by hand) is pointed out.
  const manifest = JSON.parse(await read('package.json'));
  manifest.scripts.deploy = 'content-index deploy';
  await writeFile(join(root as string, 'package.json'), JSON.stringify(manifest));
  expect((await init()).stdout).toContain(
    'deploy runs content-index without hugo first: make it `hugo && content-index deploy`',
  );
});

it("reads Hugo's configuration folder (config/_default) with a YAML parser, and the keys Hugo reads only", async () => {
  await project({
    'config/_default/hugo.yaml':
      'params: {title: Parametro, publishDir: nope}\nlanguages:\n  es:\n    baseURL: https://es.example/\ntitle: Sitio YAML\nbaseURL: https://sitio.example\ndefaultContentLanguage: es\n',
    'content/posts/hola.md': md({ title: 'Hola' }),
  });
  const result = await init();
  expect(result.stdout).toContain('content-index init: a Hugo site, output folder public/');
  const config = await read('site.config.ts');
  expect(config).toContain("name: 'Sitio YAML',");
  // The Spanish language's own address wins for the site, as Hugo serves Spanish there.
  expect(config).toContain("site: 'https://es.example/',");
  expect(await read('wrangler.toml')).toContain('pages_build_output_dir = "public"');
});

it('stops at a Hugo configuration that does not parse, with its line, and writes nothing', async () => {
  await project({ 'hugo.toml': "title = 'a'\nbaseURL = \n", 'content/posts/a.md': md({ title: 'A' }) });
  const result = await init();
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('hugo.toml:2: is not valid TOML');
  await expect(read('site.config.ts')).rejects.toThrow();
});

it('an English-default Hugo site: unsuffixed files are English and canonical, and the build publishes them as English', async () => {
  // `hugo new site` writes languageCode, which Hugo does not use for files: they are English (its default).
  await project({
    'hugo.toml': "baseURL = 'https://blog.example.org/'\nlanguageCode = 'es-es'\ntitle = 'Mi blog'\n",
    'content/posts/mi-primer-post.md': md({ title: 'Mi primer post' }),
    'content/tips/consejo-uno.md': md({ title: 'Consejo uno' }),
    'content/about.md': md({ title: 'Sobre' }),
  });
  const result = await init();
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("the index's canonical language is en (canonicalLanguage)");
  expect(result.stdout).toContain("if they are Spanish, set defaultContentLanguage = 'es' in hugo.toml");
  const config = await read('site.config.ts');
  expect(config).toContain("languages: ['en'],");
  expect(config).toContain("canonicalLanguage: 'en',");
  expect(config).not.toContain('defaultLanguage');

  const build = await runCli(root as string, {}, ['build']);
  expect(build.code, build.stderr).toBe(0);
  const index = JSON.parse(await read('public/api/v1/content.json'));
  expect(index.languages).toEqual(['en']);
  expect(index.content.map((item: { url: string; url_en?: string }) => [item.url, item.url_en])).toEqual([
    ['https://blog.example.org/posts/mi-primer-post/', 'https://blog.example.org/posts/mi-primer-post/'],
    ['https://blog.example.org/tips/consejo-uno/', 'https://blog.example.org/tips/consejo-uno/'],
  ]);
  // One language: one llms.txt, in English, at the root; nothing under /en/ or /pt-br/.
  expect(await read('public/llms.txt')).toContain('This file lists the pages in English');
  await expect(read('public/en/llms.txt')).rejects.toThrow();
  await expect(read('public/pt-br/llms.txt')).rejects.toThrow();
});

it('writes an https image host for a site whose address is http (a stock `hugo new site`), and says so', async () => {
  await project({
    ...HUGO_SITE,
    'hugo.toml': "baseURL = 'http://example.org/'\ntitle = 'My New Hugo Site'\n",
  });
  const result = await init();
  expect(result.code).toBe(0);
  const config = await read('site.config.ts');
  expect(config).toContain("site: 'http://example.org/',");
  expect(config).toContain("images: 'https://example.org/',");
  expect(result.stdout).toContain(
    'created  site.config.ts (images is https://example.org/: published images must be https, and http://example.org/ is http)',
  );
});
