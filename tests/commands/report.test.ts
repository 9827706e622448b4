import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../build/cli.ts';
import type { BuildReport, FailureReport } from '../../build/report.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

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
    expect(stdout).toContain('left out      content/tips/borrador.es.md (draft, with its translations)');
    expect(stdout).toContain(
      'content/tips/manana.es.md (dated 2999-01-01, in the future, with its translations)',
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
    expect(Object.keys(report.timings)).toEqual(['config', 'load', 'assemble', 'render', 'write']);
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
      const code = await main(
        ['build'],
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
    await site.write('content/posts/mal.es.md', '---\ntitle: Mal\ndraft: "no"\nTags: [a]\n---\n');
    await site.write('content/posts/raro.es.md', '---\ntitle: "Raro, con: comas"\ntitel: x\n---\n');
    try {
      const failed = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain(
        '::error file=content/posts/mal.es.md,line=3,title=draft::must be true or false, got "no" (write draft: true or draft: false, without quotes)',
      );
      await site.write('content/posts/mal.es.md', '---\ntitle: Mal\nTags: [a]\n---\n');
      const warned = await site.cliWithEnv({ GITHUB_ACTIONS: 'true' }, 'build');
      expect(warned.code).toBe(0);
      expect(warned.stdout).toContain(
        '::warning file=content/posts/mal.es.md,line=3,title=Tags::is not a key content-index reads (did you mean `tags`?)',
      );
      const plain = await site.cliWithEnv({}, 'build');
      expect(plain.stdout).not.toContain('::warning');
      expect(plain.stderr).toContain('content/posts/mal.es.md:3: Tags: is not a key content-index reads');
    } finally {
      await site.remove('content/posts/mal.es.md');
      await site.remove('content/posts/raro.es.md');
    }
  });
});
