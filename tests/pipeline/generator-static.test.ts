import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// A site generator copies its static folder into the output on every run: Hugo writes static/_redirects
// over public/_redirects (through the link, into the build's own file). The build merges that file as it
// does the project root's, and takes the generator's copy in the output for what it is, build after build.
const POST = { 'content/posts/hola.es.md': md({ title: 'Hola' }) };
const STATIC = {
  'static/_redirects': '/viejo /nuevo 301\n',
  'static/_headers': '/blog/*\n  X-Frame-Options: DENY\n',
};

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

/** What `hugo` does to the output: static/'s files written over the output's, in place. */
async function generatorCopies(s: TempSite): Promise<void> {
  for (const name of ['_redirects', '_headers'])
    await writeFile(join(s.out, name), await readFile(join(s.root, 'static', name)));
}

describe('generatorStatic', () => {
  it('merges static/_redirects and _headers that the generator copies into the output, on every build, with no conflict', async () => {
    site = await tempSite(
      { ...POST, ...STATIC, _redirects: '/raiz /otra 302\n', 'public/index.html': '<h1>Hugo</h1>\n' },
      { ...FIXTURE_CONFIG, generatorStatic: ['static'] },
    );
    for (let run = 0; run < 3; run++) {
      await generatorCopies(site);
      const built = await site.cli('build');
      expect(built.code, built.stderr).toBe(0);
      expect(built.stderr).not.toMatch(/changed since|was not written by content-index/);
      const redirects = await readFile(join(site.out, '_redirects'), 'utf8');
      // The project root's rules first, then the generator folder's, then the API's.
      expect(redirects).toMatch(
        /# From _redirects:\n\/raiz \/otra 302\n# From static\/_redirects:\n\/viejo \/nuevo 301\n/,
      );
      const headers = await readFile(join(site.out, '_headers'), 'utf8');
      expect(headers).toContain('# From static/_headers:\n/blog/*\n  X-Frame-Options: DENY\n');
      expect(headers).toContain('/api/*');
    }
    expect(await readFile(join(site.out, 'index.html'), 'utf8')).toBe('<h1>Hugo</h1>\n');

    // A rule removed from static/ is gone from the next build's merge, once the generator copied it.
    await site.write('static/_redirects', '/solo /esta 301\n');
    await generatorCopies(site);
    expect((await site.cli('build')).code).toBe(0);
    const redirects = await readFile(join(site.out, '_redirects'), 'utf8');
    expect(redirects).toContain('/solo /esta 301');
    expect(redirects).not.toContain('/viejo');
  });

  it('without it, names the static/ file the copy came from and the setting that merges it', async () => {
    site = await tempSite({ ...POST, ...STATIC });
    await site.write('public/_redirects', STATIC['static/_redirects']);
    const first = await site.cli('build');
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      'public/_redirects: is a copy of static/_redirects, put there by your site generator; the build writes _redirects',
    );
    expect(first.stderr).toContain("add generatorStatic: ['static'] to site.config.ts");

    // After a build, the generator's next run writes over the build's file: said as such, not as an edit.
    await site.remove('public/_redirects');
    expect((await site.cli('build')).code).toBe(0);
    await generatorCopies(site);
    const second = await site.cli('build');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      'public/_redirects: is a copy of static/_redirects, put there by your site generator over the file an earlier build wrote',
    );
    expect(second.stderr).not.toContain('has been changed since');
  });
});
