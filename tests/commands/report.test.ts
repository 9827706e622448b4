import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../build/cli.ts';
import type { BuildReport, FailureReport } from '../../build/report.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

/** Control characters other than the line feed and tab our own output uses. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

let site: TempSite;
beforeAll(async () => {
  site = await tempSite({
    'content/posts/uno.es.md': md({ title: 'Uno', date: '2024-01-01' }),
    'content/posts/uno.en.md': md({ title: 'One', slug: 'one' }),
    'content/posts/dos.es.md': md({ title: 'Dos' }),
    'content/posts/dos.pt-br.md': md({ title: 'Dois', slug: 'dois' }),
    'content/projects/tres.es.md': md({ title: 'Tres', technologies: ['Go'] }),
    'content/tips/borrador.es.md': md({ title: 'Borrador', draft: true }),
    'content/tips/manana.es.md': md({ title: 'Mañana', date: '2999-01-01' }),
  });
});
afterAll(() => site.dispose());

describe('the build report', () => {
  it('as text: items per type, translation coverage, what was left out and why, files with sizes, time', async () => {
    const { code, stdout } = await site.cli('build');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ 3 items → \d+ files in .+ \(\d+ ms\)$/m);
    expect(stdout).toContain('items         posts 2 · projects 1 · tips 0');
    expect(stdout).toContain('translations  es 3/3 (100%) · en 1/3 (33.3%) · pt-br 1/3 (33.3%)');
    expect(stdout).toContain(
      [
        '  left out      drafts: 1 item (1 file) · in the future: 1 item (1 file)',
        '                content/tips/borrador.es.md (draft)',
        '                content/tips/manana.es.md (dated 2999-01-01T00:00:00Z, in the future)',
      ].join('\n'),
    );
    expect(stdout).toMatch(/files +_headers +[\d.]+ (B|KiB) +gzip +\d+ B/);
    expect(stdout).toMatch(/^ +files +\S+ +[\d.]+ (B|KiB|MiB) +gzip/m);
    expect(stdout).toMatch(/ +api\/content\.json +\d+(\.\d)? (B|KiB) +gzip +\d+(\.\d)? (B|KiB)/);
    expect(stdout).toMatch(/api\/v1\/content\.json +[\d.]+ (B|KiB) +gzip/);
  });

  it('as JSON with --json, the same figures for scripts', async () => {
    const { code, stdout } = await site.cli('build', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as BuildReport;
    expect(report.ok).toBe(true);
    expect(report.items).toEqual({ posts: 2, projects: 1, tips: 0, total: 3 });
    expect(report.translations).toEqual({
      es: { items: 3, percent: 100 },
      en: { items: 1, percent: 33.3 },
      'pt-br': { items: 1, percent: 33.3 },
    });
    expect(report.leftOut.map((l) => [l.file, l.reason])).toEqual([
      ['content/tips/borrador.es.md', 'draft'],
      ['content/tips/manana.es.md', 'future'],
    ]);
    const index = report.files.find((f) => f.path === 'api/v1/content.json');
    expect(index?.bytes).toBeGreaterThan(index?.gzipBytes ?? Number.POSITIVE_INFINITY);
    expect(Object.keys(report.timings)).toEqual(['config', 'load', 'assemble', 'render', 'mcp', 'write']);
    expect(report.durationMs).toBeGreaterThan(0);
  });

  it('as JSON on failure: ok false with every problem', async () => {
    await site.write('content/posts/mal.es.md', md({ title: '' }));
    try {
      const { code, stdout } = await site.cli('build', '--json');
      expect(code).toBe(1);
      const report = JSON.parse(stdout) as FailureReport;
      expect(report).toEqual({
        ok: false,
        problems: [
          expect.objectContaining({
            code: 'field_invalid',
            file: 'content/posts/mal.es.md',
            line: 2,
            field: 'title',
          }),
        ],
      });
    } finally {
      await site.remove('content/posts/mal.es.md');
    }
  });

  it('draws a self-rewriting status line on a terminal, and clears it before the report', async () => {
    let stderr = '';
    let stdout = '';
    const cwd = process.cwd();
    process.chdir(site.root);
    try {
      // From nothing (a build that finds nothing changed since the last one runs no stage past the first two).
      const code = await main(
        ['build', '--no-cache'],
        {
          out: { write: (s: string) => (stdout += s) },
          err: { write: (s: string) => (stderr += s), isTTY: true },
        },
        {},
      );
      expect(code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    for (const stage of [
      'Reading the configuration',
      'Reading content files',
      'Validating',
      'Rendering',
      'Writing',
    ]) {
      expect(stderr).toContain(`\r\u001b[2K… ${stage}`);
    }
    expect(stderr.endsWith('\r\u001b[2K')).toBe(true);
    expect(stdout).toMatch(/^✓ 3 items/);
  });

  it('draws no progress line off a terminal', async () => {
    const { stderr } = await site.cli('build');
    expect(stderr).not.toContain('\r');
  });
});

describe('under GitHub Actions', () => {
  it('prints errors and warnings as workflow annotations too', async () => {
    await site.write('content/posts/mal.es.md', '---\ntitle: Mal\ndraft: "no"\ntgas: [a]\n---\n');
    await site.write('content/posts/raro.es.md', '---\ntitle: "Raro, con: comas"\ntitel: x\n---\n');
    try {
      const failed = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain(
        '::error file=content/posts/mal.es.md,line=3,title=draft::must be true or false, got "no" (write draft: true or draft: false, without quotes)',
      );
      await site.write('content/posts/mal.es.md', '---\ntitle: Mal\ntgas: [a]\n---\n');
      const warned = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(warned.code).toBe(0);
      expect(warned.stdout).toContain(
        '::warning file=content/posts/mal.es.md,line=3,title=tgas::is not a key content-index reads (did you mean `tags`?)',
      );
      const plain = await site.cliWithEnv({}, 'build');
      expect(plain.stdout).not.toContain('::warning');
      expect(plain.stderr).toContain('content/posts/mal.es.md:3: tgas: is not a key content-index reads');
    } finally {
      await site.remove('content/posts/mal.es.md');
      await site.remove('content/posts/raro.es.md');
    }
  });

  it('escapes file names, so no line of the output is a command the file name wrote', async () => {
    const forged = 'mal\n::error file=forged.md,line=1::forged\u001b[2J\r::warning::x';
    await site.write(`content/posts/${forged}.es.md`, md({ title: 'Mal' }));
    try {
      const result = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(result.code).toBe(1);
      const output = `${result.stdout}${result.stderr}`;
      expect(output).not.toMatch(RAW_CONTROL); // no escape sequence, no carriage return
      // GitHub reads a line as a command when it starts with :: after its leading spaces.
      const commands = output.split('\n').filter((line) => line.trimStart().startsWith('::'));
      expect(commands).toEqual([
        '::error file=content/posts/mal\\n%3A%3Aerror file=forged.md%2Cline=1%3A%3Aforged\\u001b[2J\\r%3A%3Awarning%3A%3Ax.es.md,line=1,title=slug::the file name cannot be the page\'s slug: "mal\\n::error file=forged.md,line=1::forged\\u001b[2J\\r::warning::x" contains a control character (rename the file (or its bundle folder), or give it a slug: in the front matter)',
      ]);
      expect(result.stderr).toContain(
        'content/posts/mal\\n::error file=forged.md,line=1::forged\\u001b[2J\\r::warning::x.es.md:1: slug:',
      );
      // With a slug of its own the file is valid; as a draft, the report names it among the left out.
      await site.write(`content/posts/${forged}.es.md`, md({ title: 'Mal', slug: 'mal', draft: true }));
      const built = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(built.code).toBe(0);
      expect(built.stdout).not.toMatch(RAW_CONTROL);
      expect(built.stdout.split('\n').filter((line) => line.trimStart().startsWith('::'))).toEqual([]);
      expect(built.stdout).toContain(
        '                content/posts/mal\\n::error file=forged.md,line=1::forged\\u001b[2J\\r::warning::x.es.md (draft)',
      );
    } finally {
      await site.remove(`content/posts/${forged}.es.md`);
    }
  });
});

describe('the left-out summary', () => {
  it('counts drafts and future items and names the first few; --verbose names all, --json keeps all', async () => {
    const many = await tempSite({
      'content/posts/publicado.es.md': md({ title: 'Publicado' }),
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `content/posts/borrador-${String(i).padStart(2, '0')}.es.md`,
          md({ title: `Borrador ${i}`, draft: true }),
        ]),
      ),
      'content/tips/futuro.es.md': md({ title: 'Futuro', date: '2999-01-01' }),
    });
    try {
      const text = await many.cli('build');
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        [
          '  left out      drafts: 12 items (12 files) · in the future: 1 item (1 file)',
          '                content/posts/borrador-00.es.md (draft)',
          '                content/posts/borrador-01.es.md (draft)',
          '                content/posts/borrador-02.es.md (draft)',
          '                content/posts/borrador-03.es.md (draft)',
          '                content/posts/borrador-04.es.md (draft)',
          '                … and 8 more (--verbose lists every file)',
          '  files ',
        ].join('\n'),
      );
      const verbose = await many.cli('build', '--verbose');
      expect(verbose.stdout).toContain('content/posts/borrador-11.es.md (draft)');
      expect(verbose.stdout).toContain(
        'content/tips/futuro.es.md (dated 2999-01-01T00:00:00Z, in the future)',
      );
      expect(verbose.stdout).not.toContain('more (--verbose');
      const json = JSON.parse((await many.cli('build', '--json')).stdout) as BuildReport;
      expect(json.leftOut).toHaveLength(13);
    } finally {
      await many.dispose();
    }
  });

  it('counts an item in two languages as one item and two files, and a draft translation as a translation', async () => {
    const site2 = await tempSite({
      'content/posts/publicado.es.md': md({ title: 'Publicado' }),
      'content/posts/publicado.en.md': md({ title: 'Published', slug: 'published', draft: true }),
      'content/posts/ambos.es.md': md({ title: 'Ambos', draft: true }),
      'content/posts/ambos.en.md': md({ title: 'Both', slug: 'both', draft: true }),
      'content/posts/arrastra.es.md': md({ title: 'Arrastra', draft: true }),
      'content/posts/arrastra.pt-br.md': md({ title: 'Arrasta', slug: 'arrasta' }),
    });
    try {
      const text = await site2.cli('build');
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        [
          '  left out      drafts: 2 items (4 files), 1 translation',
          '                content/posts/ambos.en.md (draft)',
          '                content/posts/ambos.es.md (draft, with its translations)',
          '                content/posts/arrastra.es.md (draft, with its translations)',
          '                content/posts/arrastra.pt-br.md (with its Spanish file)',
          '                content/posts/publicado.en.md (draft)',
        ].join('\n'),
      );
      const json = JSON.parse((await site2.cli('build', '--json')).stdout) as BuildReport;
      // Each with the address its page would have had, to tell it among the site generator's pages.
      expect(json.leftOut.map(({ url, ...rest }) => [rest, url])).toEqual([
        [
          { file: 'content/posts/ambos.en.md', item: 'post/ambos', reason: 'draft', wholeItem: false },
          'https://example.com/en/blog/both/',
        ],
        [
          { file: 'content/posts/ambos.es.md', item: 'post/ambos', reason: 'draft', wholeItem: true },
          'https://example.com/blog/ambos/',
        ],
        [
          { file: 'content/posts/arrastra.es.md', item: 'post/arrastra', reason: 'draft', wholeItem: true },
          'https://example.com/blog/arrastra/',
        ],
        [
          {
            file: 'content/posts/arrastra.pt-br.md',
            item: 'post/arrastra',
            reason: 'draft',
            wholeItem: false,
            along: true,
          },
          expect.stringMatching(/^https:\/\/example\.com\/pt-br\/blog\//),
        ],
        [
          {
            file: 'content/posts/publicado.en.md',
            item: 'post/publicado',
            reason: 'draft',
            wholeItem: false,
          },
          expect.stringMatching(/^https:\/\/example\.com\/en\/blog\//),
        ],
      ]);
    } finally {
      await site2.dispose();
    }
  });
});
