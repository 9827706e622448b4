import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import type { BuildReport } from '../../build/report.ts';
import { projectEntries } from '../helpers/mcp.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

/**
 * A Hugo site as `hugo new` leaves it: TOML from the default archetype (the date quoted, as Hugo ≥ 0.120
 * writes it, and unquoted, as older archetypes did), a page bundle, a `[params]` table, and JSON front
 * matter (a file that starts with `{`), with Hugo's capitalised keys and its own `images` key.
 */
const HUGO_SITE = {
  'content/posts/redes-neuronales/index.es.md': [
    '+++',
    "date = '2025-03-14T09:30:00+02:00'",
    'draft = false',
    "title = 'Redes neuronales'",
    'description = "Una introducción práctica"',
    'tags = ["ia", "python"]',
    'images = ["portada.png"]',
    '',
    '[params]',
    'author = "Ana"',
    'date = 1999-01-01',
    '+++',
    '',
    'Cuerpo con una línea +++ que no cierra nada.',
    '',
  ].join('\n'),
  'content/posts/redes-neuronales/index.en.md': [
    '+++',
    'date = 2025-03-14T09:30:00+02:00',
    'title = "Neural networks"',
    'slug = "neural-networks"',
    '+++',
    'Body.',
    '',
  ].join('\n'),
  'content/projects/motor.es.md': [
    '{',
    '  "title": "Motor de búsqueda",',
    '  "date": "2024-11-02",',
    '  "technologies": ["Rust", "WebAssembly"],',
    '  "description": "Un motor con { llaves } y \\"comillas\\" en el texto",',
    '  "params": { "nested": { "deep": true } }',
    '}',
    '',
    'Cuerpo.',
    '',
  ].join('\n'),
  'content/projects/motor.en.md': '{ "Title": "Search engine", "Slug": "search-engine" }\nBody.\n',
  'content/tips/atajo.es.md': md('Title: Un atajo\nDate: 2023-05-06\nDraft: false\nTags: [git]'),
};

describe('front matter as Hugo reads it', () => {
  it('reads TOML (+++) and JSON ({ … }) front matter, with keys in any case, and publishes them', async () => {
    site = await tempSite(HUGO_SITE);
    const result = await site.cli('build', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BuildReport;
    // `images`, `params` and capitalised known keys are Hugo's: no typo warning for any of them.
    expect(report.warnings).toEqual([]);
    const index = await site.readJson<ContentIndexV1>('api/v1/content.json');
    expect(index.content).toEqual([
      {
        type: 'post',
        title: 'Redes neuronales',
        description: 'Una introducción práctica',
        url: 'https://example.com/blog/redes-neuronales/',
        url_en: 'https://example.com/en/blog/neural-networks/',
      },
      {
        type: 'project',
        title: 'Motor de búsqueda',
        description: 'Un motor con { llaves } y "comillas" en el texto',
        url: 'https://example.com/proyectos/motor/',
        url_en: 'https://example.com/en/projects/search-engine/',
        technologies: ['Rust', 'WebAssembly'],
      },
      { type: 'tip', title: 'Un atajo', url: 'https://example.com/consejos/atajo/' },
    ]);
    const entries = await projectEntries(site.root);
    // The top-level date, not the one under [params]; the offset read as written.
    expect(entries.map((e) => e.date)).toEqual([
      '2025-03-14T07:30:00Z',
      '2024-11-02T00:00:00Z',
      '2023-05-06T00:00:00Z',
    ]);
  });

  it('reads files saved with Windows line endings, with the same lines in messages', async () => {
    site = await tempSite({
      'content/posts/crlf.es.md':
        '+++\r\ntitle = "CRLF"\r\ndate = 2025-01-02\r\ntags = ["a"]\r\n+++\r\nCuerpo.\r\n',
      'content/tips/crlf.es.md': '{\r\n  "title": "CRLF"\r\n}\r\nCuerpo.\r\n',
    });
    expect((await site.cli('build')).code).toBe(0);
    await site.write('content/posts/crlf.es.md', '+++\r\ntitle = "CRLF"\r\ndate = 2025-02-29\r\n+++\r\n');
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content/posts/crlf.es.md:3: date: "2025-02-29" is not a calendar date');
  });

  it('reports a TOML syntax error with its line', async () => {
    site = await tempSite({
      'content/posts/roto.es.md': '+++\ntitle = "Roto"\ndraft = yes\n+++\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^content\/posts\/roto\.es\.md:3: front matter is not valid TOML: .+/m);
  });

  it('reports a JSON syntax error with its line, computed from where the text goes wrong', async () => {
    site = await tempSite({
      'content/posts/coma.es.md': '{\n  "title": "Coma",\n  "tags": ["a",],\n  "draft": false\n}\n',
      'content/posts/falta.es.md': '{\n  "title": "Falta"\n  "draft": false\n}\n',
      'content/posts/comillas.es.md': "{\n  'title': 'Comillas'\n}\n",
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/posts/coma.es.md:3: front matter is not valid JSON: expected a value (no comma after the last item)',
    );
    expect(result.stderr).toContain(
      'content/posts/falta.es.md:3: front matter is not valid JSON: expected , between values',
    );
    expect(result.stderr).toContain('content/posts/comillas.es.md:2: front matter is not valid JSON:');
  });

  it('points field errors at their lines in TOML and JSON too', async () => {
    site = await tempSite({
      'content/posts/tipos.es.md': '+++\ntitle = "Tipos"\n\ndraft = "sí"\ntags = "ia"\n+++\n',
      'content/posts/json.es.md': '{\n  "title": "JSON",\n\n  "draft": "no"\n}\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('content/posts/tipos.es.md:4: draft: must be true or false, got "sí"');
    expect(result.stderr).toContain('content/posts/tipos.es.md:5: tags: must be a list, got "ia"');
    expect(result.stderr).toContain('content/posts/json.es.md:4: draft: must be true or false, got "no"');
  });

  it('reports front matter that is opened and never closed, in each format', async () => {
    site = await tempSite({
      'content/posts/yaml.es.md': '---\ntitle: Abierto\n\nCuerpo sin cierre.\n',
      'content/posts/toml.es.md': '+++\ntitle = "Abierto"\n\nCuerpo sin cierre.\n',
      'content/posts/json.es.md': '{\n  "title": "Abierto"\n\nCuerpo sin cierre.\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/posts/yaml.es.md:1: the YAML front matter opened on line 1 is not closed\n  hint: close the front matter with a line containing only ---',
    );
    expect(result.stderr).toContain(
      'content/posts/toml.es.md:1: the TOML front matter opened on line 1 is not closed\n  hint: close the front matter with a line containing only +++',
    );
    expect(result.stderr).toContain(
      'content/posts/json.es.md:1: the JSON front matter opened on line 1 is not closed',
    );
  });

  it('still refuses front matter in other languages, and never runs it', async () => {
    site = await tempSite({
      'content/posts/js.es.md': '---js\n{ title: (() => { throw new Error("ran") })() }\n---\n',
      'content/posts/coffee.es.md': '---coffee\ntitle: "x"\n---\n',
      'content/posts/toml-in-dashes.es.md': '---toml\ntitle = "x"\n---\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('ran');
    for (const [file, language] of [
      ['js', 'js'],
      ['coffee', 'coffee'],
      ['toml-in-dashes', 'toml'],
    ]) {
      expect(result.stderr).toContain(
        `content/posts/${file}.es.md:1: front matter in ${language} is not supported\n  hint: write front matter in YAML (between --- lines), TOML (between +++ lines) or JSON (one { … } object), as Hugo reads it`,
      );
    }
  });

  it('reads keys without regard to case, and refuses one key given twice under two spellings', async () => {
    site = await tempSite({
      'content/posts/doble.es.md': md('title: Uno\nTitle: Dos'),
      'content/posts/toml.es.md': '+++\nTITLE = "Tres"\ntitle = "Cuatro"\n+++\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/posts/doble.es.md:3: Title: repeats title: keys are read without regard to case, as Hugo reads them',
    );
    expect(result.stderr).toContain('content/posts/toml.es.md:3: title: repeats title');
  });

  it('refuses a JSON key given twice, at the line of the second, as YAML and TOML do', async () => {
    site = await tempSite({
      'content/posts/json.es.md': '{\n  "title": "Uno",\n  "draft": false,\n  "title": "Dos"\n}\n',
      'content/posts/anidado.es.md': '{ "title": "Anidado",\n  "params": { "a": 1,\n    "a": 2 } }\n',
      'content/posts/yaml.es.md': md('title: Uno\ntitle: Dos'),
      'content/posts/toml.es.md': '+++\ntitle = "Uno"\ntitle = "Dos"\n+++\n',
    });
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      [
        'content/posts/json.es.md:4: title: is given twice (first on line 2); JSON keeps only the last, so the first would be lost unannounced',
        '  hint: keep one title key',
      ].join('\n'),
    );
    expect(result.stderr).toContain(
      'content/posts/anidado.es.md:3: params.a: is given twice (first on line 2)',
    );
    expect(result.stderr).toMatch(
      /^content\/posts\/yaml\.es\.md:3: front matter is not valid YAML: duplicated mapping key.*\n {2}hint: keep each key once/m,
    );
    expect(result.stderr).toMatch(/^content\/posts\/toml\.es\.md:3: front matter is not valid TOML: /m);
  });

  it('refuses bytes that are not UTF-8 anywhere in the front matter, with their line', async () => {
    const padding = Array.from(
      { length: 300 },
      (_, i) => `clave${i}: relleno para pasar de los primeros 4 KiB`,
    );
    site = await tempSite({});
    await mkdir(join(site.root, 'content/posts'), { recursive: true });
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    await writeFile(
      join(site.root, 'content/posts/mal.es.md'),
      bytes('---\ntitle: Mal ', [0xff, 0xfe], ' codificado\n---\nCuerpo.\n'),
    );
    await writeFile(
      join(site.root, 'content/posts/lejos.es.md'),
      bytes(`---\ntitle: Lejos\n${padding.join('\n')}\ndescription: Latin-1 `, [0xe9], 't\xe9\n---\n'),
    );
    // In the body, which the index never reads: no concern of the build.
    await writeFile(
      join(site.root, 'content/posts/cuerpo.es.md'),
      bytes('---\ntitle: Cuerpo\n---\n', [0xff]),
    );
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      [
        'content/posts/mal.es.md:2: is not valid UTF-8: this line has bytes that do not decode (shown as �)',
        '  hint: save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8), or retype the characters on this line',
      ].join('\n'),
    );
    expect(result.stderr).toContain(`content/posts/lejos.es.md:${padding.length + 3}: is not valid UTF-8`);
    expect(result.stderr).not.toContain('cuerpo.es.md');
    expect(result.stderr).toContain('✗ 2 problems');
  });

  it('gives typo hints for real typos only', async () => {
    site = await tempSite({
      'content/posts/hola.es.md': md(
        'title: Hola\nTAGS: [a]\nimages: [a.png]\nlastmod: 2025-01-01\ntgas: [b]',
      ),
    });
    const result = await site.cli('build', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as BuildReport;
    expect(report.warnings).toEqual([
      {
        code: 'field_invalid',
        file: 'content/posts/hola.es.md',
        line: 6,
        field: 'tgas',
        message: 'is not a key content-index reads',
        hint: 'did you mean `tags`?',
      },
    ]);
  });
});
