import { execFile } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { FIXTURE_CONFIG, md, PROJECT_ROOT, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const run = promisify(execFile);
const clock = () => new Date('2026-06-01T00:00:00Z');

let site: TempSite | undefined;
afterEach(() => site?.dispose());

/** The author's own files in the output folder before the first build (acceptance 1). */
const AUTHORS = {
  'public/_headers': '/blog/*\n  X-Frame-Options: DENY\n',
  'public/_redirects': '/old-blog/* /blog/:splat 301\n',
  'public/docs/guide/index.html': '<h1>The guide</h1>\n',
  'public/api/notes.md': '# Notes about the API\n',
  'public/mcp/readme.txt': 'How to connect.\n',
};

const POST = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-01-01' }) };

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path)).isSymbolicLink();
}

describe('the author’s files in the output folder', () => {
  it('stops the first build naming _headers and _redirects, changes nothing, then keeps every other file byte for byte', async () => {
    site = await tempSite({ ...POST, ...AUTHORS, _redirects: '/viejo /nuevo 301\n' });
    const before = await site.snapshot();

    const refused = await site.cli('build');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'public/_headers: was not written by content-index, and the build writes _headers\n' +
        "  hint: put its rules in _headers at the project root, or in the folder your site generator copies into public/ (Hugo's static/, named in generatorStatic in site.config.ts); the build merges either into public/_headers. Then delete public/_headers",
    );
    expect(refused.stderr).toContain('public/_redirects: was not written by content-index');
    expect(refused.stderr).toContain('put its rules in _redirects at the project root');
    expect(refused.stderr).not.toMatch(/docs\/guide|notes\.md|readme\.txt/);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await site.snapshot()).toEqual(before);
    expect(await isLink(site.out)).toBe(false);

    // The author does what the hints say.
    await site.write('_headers', AUTHORS['public/_headers']);
    await site.write('_redirects', `/viejo /nuevo 301\n${AUTHORS['public/_redirects']}`);
    await site.remove('public/_headers');
    await site.remove('public/_redirects');
    expect((await site.cli('build')).code).toBe(0);
    const keep = ['docs/guide/index.html', 'api/notes.md', 'mcp/readme.txt'] as const;
    const built = await site.snapshot();
    for (const path of keep)
      expect(await readFile(join(site.out, path), 'utf8'), path).toBe(AUTHORS[`public/${path}`]);
    expect(built['docs/index.html']).toBeDefined(); // the build's own /docs/ beside the author's guide
    expect(await readFile(join(site.out, '_headers'), 'utf8')).toContain('X-Frame-Options: DENY');
    expect(await readFile(join(site.out, '_redirects'), 'utf8')).toContain('/old-blog/* /blog/:splat 301');

    // Later builds keep them too, and replace what the build wrote.
    await site.write('content/posts/otra.es.md', md({ title: 'Otra', date: '2025-02-01' }));
    await site.write('_redirects', '/viejo /nuevo 301\n');
    expect((await site.cli('build')).code).toBe(0);
    for (const path of keep)
      expect(await readFile(join(site.out, path), 'utf8'), path).toBe(AUTHORS[`public/${path}`]);
    expect(await readFile(join(site.out, '_redirects'), 'utf8')).not.toContain('/old-blog/*');
  });

  it('says what to do with an output folder a content-index wrote before it kept records', async () => {
    site = await tempSite(POST);
    await build({ root: site.root, clock });
    // As an older content-index left it: its files in a real folder, and no record.
    const legacy = await mkdtemp(join(tmpdir(), 'content-index-legacy-'));
    try {
      await cp(site.out, legacy, { recursive: true, dereference: true });
      await rm(join(site.root, '.content-index'), { recursive: true, force: true });
      await rm(site.out);
      await cp(legacy, site.out, { recursive: true });
    } finally {
      await rm(legacy, { recursive: true, force: true });
    }
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /public: holds \d+ files where the build writes and no record of a build that wrote them/,
    );
    expect(result.stderr).toContain('hint: if so, delete those files (or public itself');
  });

  it('detects a file of its own the author replaced, and says what to do', async () => {
    site = await tempSite(POST);
    await build({ root: site.root, clock });
    await writeFile(join(site.out, 'openapi.json'), '{"edited":"by hand"}');
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'public/openapi.json: was written by an earlier build and has been changed since; the build writes this path again\n' +
        '  hint: delete public/openapi.json to let the build write it again, or move your version out of the output folder',
    );
    expect(await readFile(join(site.out, 'openapi.json'), 'utf8')).toBe('{"edited":"by hand"}');
  });

  it('refuses an output folder that is a link it did not make', async () => {
    site = await tempSite(POST);
    await mkdir(join(site.root, 'elsewhere'));
    await symlink('elsewhere', site.out);
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('public: is a link to');
    expect(await readdir(join(site.root, 'elsewhere'))).toEqual([]);
  });
});

describe('the static folder', () => {
  it('is published as it is, follows its changes, and is never written through the output folder', async () => {
    site = await tempSite(
      { ...POST, 'static/robots.txt': 'User-agent: *\n', 'static/img/logo.png': 'PNG' },
      { ...FIXTURE_CONFIG, static: 'static' },
    );
    await build({ root: site.root, clock });
    expect(await readFile(join(site.out, 'robots.txt'), 'utf8')).toBe('User-agent: *\n');
    expect(await readFile(join(site.out, 'img/logo.png'), 'utf8')).toBe('PNG');

    await site.write('static/robots.txt', 'User-agent: *\nDisallow: /private/\n');
    await site.remove('static/img/logo.png');
    await build({ root: site.root, clock });
    expect(await readFile(join(site.out, 'robots.txt'), 'utf8')).toContain('Disallow');
    expect((await site.snapshot())['img/logo.png']).toBeUndefined();

    // An edit made in the output folder does not reach the source, and the next build says where to make it.
    await writeFile(join(site.out, 'robots.txt'), 'edited in public/');
    expect(await readFile(join(site.root, 'static/robots.txt'), 'utf8')).toContain('Disallow');
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('hint: make your change in static/robots.txt (the build copies it here)');
  });

  it('cannot hold a file the build writes itself', async () => {
    site = await tempSite(
      { ...POST, 'static/_headers': '/*\n  X-A: b\n' },
      { ...FIXTURE_CONFIG, static: 'static' },
    );
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('static/_headers: the build writes _headers itself');
  });
});

describe('--out', () => {
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it.each([
    ['.', 'is the project root'],
    ['content', 'is the content folder'],
    ['content/posts', 'is inside the content folder'],
    ['..', 'contains the project'],
    ['.content-index', "is .content-index/, the tool's private folder"],
    ['.content-index/output/x', 'is inside .content-index/'],
    ['/', 'is the root of the file system'],
    ['.git', "is git's own folder"],
    ['.git/objects', "is inside git's own folder"],
    ['node_modules', 'is node_modules, where npm installs packages'],
    ['node_modules/.cache/site', 'is inside node_modules'],
    ['functions', "is functions/, the Pages Functions' folder"],
    ['functions/api', "is inside functions/, the Pages Functions' folder"],
    ['static', 'is the static folder'],
    ['static/img', 'is inside the static folder'],
  ])('refuses %s, and moves nothing', async (out, reason) => {
    site = await tempSite(
      {
        ...POST,
        '.git/HEAD': 'ref: refs/heads/main\n',
        '.git/objects/info/packs': '\n',
        'node_modules/.cache/site/keep.txt': 'cache\n',
        'functions/api/[[path]].ts': 'export const onRequest = () => new Response("hi");\n',
        'static/img/logo.png': 'PNG',
      },
      { ...FIXTURE_CONFIG, static: 'static' },
    );
    const before = await snapshotDir(site.root);
    const result = await site.cli('build', '--out', out);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`: out: ${escaped(reason)}.*; the build replaces the output folder`),
    );
    expect(result.stderr).toContain('hint: choose a folder of its own for the output');
    // Nothing became a link, nothing moved into .content-index/.
    expect(await snapshotDir(site.root)).toEqual(before);
    for (const folder of ['.git', 'node_modules', 'functions', 'content', 'content/posts', 'static'])
      expect(await isLink(join(site.root, folder)), folder).toBe(false);
  });

  it('refuses the home folder, written as ~ or as its path', async () => {
    site = await tempSite(POST);
    // A home of the test's own: should the check fail, nothing is written into a real home folder.
    const home = await mkdtemp(join(tmpdir(), 'content-index-home-'));
    try {
      const bin = join(PROJECT_ROOT, 'bin', 'content-index.js');
      for (const out of ['~', home]) {
        const result = await run(process.execPath, [bin, 'build', '--out', out], {
          cwd: site.root,
          env: { ...process.env, HOME: home, USERPROFILE: home },
        }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => e,
        );
        expect(result.code, out).toBe(1);
        expect(result.stderr, out).toContain('out: is your home folder');
      }
      expect(await readdir(home)).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses a folder inside the content folder: the posts there stay where they are', async () => {
    // The reviewer's case: --out content/posts made the posts folder a link and published 0 items.
    site = await tempSite({
      ...POST,
      'content/posts/adios.es.md': md({ title: 'Adiós', date: '2025-01-02' }),
    });
    const result = await site.cli('build', '--out', 'content/posts');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content/posts: out: is inside the content folder');
    expect(await isLink(join(site.root, 'content/posts'))).toBe(false);
    expect((await readdir(join(site.root, 'content/posts'))).sort()).toEqual(['adios.es.md', 'hola.es.md']);
    expect((await site.cli('build')).code).toBe(0);
    expect((await site.readJson<{ content: unknown[] }>('api/v1/content.json')).content).toHaveLength(2);
  });
});

describe("a site generator's own folder as the output", () => {
  it.each([
    ['layouts', 'layouts/_default/single.html', "is Hugo's templates folder"],
    ['static', 'static/favicon.ico', "is Hugo's static files folder"],
    ['src', 'src/pages/index.astro', "is the site's source folder (Astro's src/)"],
  ])('refuses %s holding files, outside git too, and moves nothing', async (out, file, reason) => {
    site = await tempSite({ ...POST, [file]: 'mine\n' });
    const result = await site.cli('build', '--out', out);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${out}: out: ${reason}, and holds files`);
    expect(result.stderr).toContain('hint: choose the folder the site generator writes');
    expect(await isLink(join(site.root, out))).toBe(false);
    expect(await readFile(join(site.root, file), 'utf8')).toBe('mine\n');
    // An empty one is a folder like any other.
    await rm(join(site.root, out), { recursive: true });
    await mkdir(join(site.root, out));
    expect((await site.cli('build', '--out', out)).code).toBe(0);
  });
});

describe('an existing output folder holding files git tracks', () => {
  const git = (root: string, ...args: string[]) =>
    run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: root });

  it('is refused, naming the folder, the files and what to do; an untracked one becomes the link', async () => {
    site = await tempSite({
      ...POST,
      'site/index.html': '<h1>Mine, committed</h1>\n',
      'site/about/index.html': '<h1>About</h1>\n',
      'generated/index.html': '<h1>From the site generator</h1>\n',
      '.gitignore': '/generated\n/.content-index/\n/versions.lock.json\n',
      'wrangler.toml': 'name = "site"\npages_build_output_dir = "generated"\n',
    });
    await git(site.root, 'init', '-q');
    await git(site.root, 'add', '.');
    await git(site.root, 'commit', '-q', '-m', 'sources');

    const result = await site.cli('build', '--out', 'site');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'site: out: holds files tracked by git (site/about/index.html, site/index.html); the build would make site a link into the git-ignored .content-index/',
    );
    expect(result.stderr).toContain(
      'hint: choose another output folder (--out), or, if these files are build output that does not belong in git: git rm -r --cached site, add /site to .gitignore, and build again',
    );
    expect(await isLink(join(site.root, 'site'))).toBe(false);
    expect((await git(site.root, 'status', '--porcelain')).stdout).toBe('');

    // A folder of files git does not track (ignored output) is the build's to link, its files kept.
    const built = await site.cli('build', '--out', 'generated');
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    expect(await isLink(join(site.root, 'generated'))).toBe(true);
    expect(await readFile(join(site.root, 'generated/index.html'), 'utf8')).toContain('site generator');
    expect((await git(site.root, 'status', '--porcelain')).stdout).toBe('');
  });

  it('is refused by dev as well, before anything is served', async () => {
    site = await tempSite({ ...POST, 'site/index.html': '<h1>Mine</h1>\n' });
    await git(site.root, 'init', '-q');
    await git(site.root, 'add', 'site');
    await git(site.root, 'commit', '-q', '-m', 'site');
    const result = await run(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'content-index.js'), 'dev', '--out', 'site'],
      {
        cwd: site.root,
        timeout: 60_000,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('site: out: holds files tracked by git (site/index.html)');
    expect(await isLink(join(site.root, 'site'))).toBe(false);
  });
});
