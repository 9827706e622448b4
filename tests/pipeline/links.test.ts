import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import type { BuildReport } from '../../build/report.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

// Symbolic links among the content: followed when they resolve inside the project (as a linked type
// folder already was), reported when they leave it, are broken or loop; never skipped in silence.

let site: TempSite | undefined;
const elsewhere: string[] = [];
afterEach(async () => {
  await site?.dispose();
  site = undefined;
  for (const dir of elsewhere.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function link(target: string, at: string): Promise<void> {
  await mkdir(dirname(at), { recursive: true });
  await symlink(target, at);
}

const BASE = { 'content/posts/hola.es.md': md({ title: 'Hola' }) };

describe('symbolic links in the content folder', () => {
  it('follows a file link and a bundle folder link that resolve inside the project, and says so', async () => {
    site = await tempSite({
      ...BASE,
      'shared/comp.md': md({ title: 'Compartido' }),
      'shared/carpeta/index.es.md': md({ title: 'Carpeta enlazada' }),
      'shared/carpeta/index.en.md': md({ title: 'Linked folder', slug: 'linked-folder' }),
    });
    await link('../../shared/comp.md', join(site.root, 'content/posts/compartido.es.md'));
    await link('../../shared/carpeta', join(site.root, 'content/posts/carpeta'));
    const text = await site.cli('build');
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const index = await site.readJson<ContentIndexV1>('api/v1/content.json');
    expect(index.content.map((item) => [item.title, item.url, item.url_en])).toEqual([
      ['Carpeta enlazada', 'https://example.com/blog/carpeta/', 'https://example.com/en/blog/linked-folder/'],
      ['Compartido', 'https://example.com/blog/compartido/', undefined],
      ['Hola', 'https://example.com/blog/hola/', undefined],
    ]);
    expect(text.stdout).toContain(
      [
        '  links         2 followed (inside the project)',
        '                content/posts/carpeta → shared/carpeta',
        '                content/posts/compartido.es.md → shared/comp.md',
      ].join('\n'),
    );
    const json = JSON.parse((await site.cli('build', '--json')).stdout) as BuildReport;
    expect(json.links).toEqual([
      { file: 'content/posts/carpeta', target: 'shared/carpeta' },
      { file: 'content/posts/compartido.es.md', target: 'shared/comp.md' },
    ]);
  });

  it('lists the first links and --verbose lists every one', async () => {
    site = await tempSite(BASE);
    for (let i = 0; i < 7; i++) {
      await site.write(`shared/n${i}.md`, md({ title: `Nota ${i}` }));
      await link(`../../shared/n${i}.md`, join(site.root, `content/posts/nota-${i}.es.md`));
    }
    const text = await site.cli('build');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('  links         7 followed (inside the project)');
    expect(text.stdout).toContain('… and 2 more (--verbose lists every link)');
    expect(text.stdout).not.toContain('nota-6.es.md');
    const verbose = await site.cli('build', '--verbose');
    expect(verbose.stdout).toContain('                content/posts/nota-6.es.md → shared/n6.md');
    expect(verbose.stdout).not.toContain('--verbose lists every link');
  });

  it('refuses links that leave the project, are broken or loop: every one named, nothing written', async () => {
    site = await tempSite(BASE);
    const outside = await mkdtemp(join(tmpdir(), 'content-index-outside-'));
    elsewhere.push(outside);
    await writeFile(join(outside, 'fuera.md'), md({ title: 'Fuera' }));
    await mkdir(join(outside, 'bundle'));
    await writeFile(join(outside, 'bundle/index.es.md'), md({ title: 'Bundle fuera' }));
    await link(join(outside, 'fuera.md'), join(site.root, 'content/posts/fuera.es.md'));
    await link(join(outside, 'bundle'), join(site.root, 'content/posts/bundle-fuera'));
    await link('../../shared/ya-no-existe.md', join(site.root, 'content/posts/roto.es.md'));
    await link('..', join(site.root, 'content/posts/bucle'));
    // Not a page's name, and what it pointed to is unknown: a warning, not an error.
    await link('nada.png', join(site.root, 'content/posts/portada.png'));

    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      [
        'content/posts/bucle: is a link to the folder content, which contains it, so it is not read',
        '  hint: a folder link must not lead to a folder that contains it; link to the folder that holds the content',
        `content/posts/bundle-fuera: is a link to the folder ${join(outside, 'bundle')}, outside the project, so it is not read`,
        '  hint: copy the file (or folder) into the project, or link to a place inside it: a clean checkout in CI has only what the repository holds',
        `content/posts/fuera.es.md: is a link to ${join(outside, 'fuera.md')}, outside the project, so it is not read`,
      ].join('\n'),
    );
    expect(result.stderr).toContain(
      'content/posts/roto.es.md: is a broken link (what it points to does not exist), so it is not read\n  hint: point the link at an existing file, or delete the link',
    );
    expect(result.stderr).toContain('✗ 4 problems');
    expect(result.stderr).not.toContain('portada.png');
    await expect(site.snapshot()).resolves.toEqual({});

    for (const name of ['fuera.es.md', 'bundle-fuera', 'roto.es.md', 'bucle'])
      await site.remove(`content/posts/${name}`);
    const warned = JSON.parse((await site.cli('build', '--json')).stdout) as BuildReport;
    expect(warned.warnings).toEqual([
      {
        code: 'source_unreadable',
        file: 'content/posts/portada.png',
        message: 'is a broken link (what it points to does not exist), so it is not read',
        hint: 'point the link at an existing file, or delete the link',
      },
    ]);
  });

  it('two folder links that lead to each other end the walk, each loop named', async () => {
    site = await tempSite({ ...BASE, 'content/posts/a/index.es.md': md({ title: 'A' }) });
    await link('../b', join(site.root, 'content/posts/a/ida'));
    await link('../a', join(site.root, 'content/posts/b/vuelta'));
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/posts/a/ida/vuelta: is a link to the folder content/posts/a, which contains it, so it is not read',
    );
    expect(result.stderr).toContain(
      'content/posts/b/vuelta/ida: is a link to the folder content/posts/b, which contains it, so it is not read',
    );
  });
});
