import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

const VALID = {
  'content/posts/hola.es.md': md({ title: 'Hola mundo', date: '2024-01-01', image: 'posts/hola.png' }),
  'content/posts/hola.en.md': md({ title: 'Hello world', slug: 'hello-world' }),
  'content/projects/motor.es.md': md({ title: 'Motor', technologies: ['Rust'] }),
  'content/tips/atajo.es.md': md({ title: 'Un atajo' }),
  'public/robots.txt': 'User-agent: *\nAllow: /\n',
};

let site: TempSite;
let before: Record<string, string>;

beforeEach(async () => {
  site = await tempSite(VALID);
  expect((await site.cli('build')).code).toBe(0);
  before = await site.snapshot();
  expect(Object.keys(before)).toContain('api/v1/content.json');
});
afterEach(() => site.dispose());

/** Adds `files`, builds, and checks the build failed, printed `expected` lines, and left public/ alone. */
async function expectFailure(files: Record<string, string>, expected: (string | RegExp)[]) {
  for (const [path, content] of Object.entries(files)) await site.write(path, content);
  const result = await site.cli('build');
  expect(result.code).toBe(1);
  for (const line of expected) {
    if (typeof line === 'string') expect(result.stderr).toContain(line);
    else expect(result.stderr).toMatch(line);
  }
  expect(result.stderr).not.toMatch(/^\s+at /m); // no stack trace
  expect(result.stderr).toContain('the output folder was not changed');
  expect(await site.snapshot()).toEqual(before);
  return result;
}

describe('a build with invalid sources', () => {
  it('reports malformed YAML with its line', async () => {
    await expectFailure(
      { 'content/posts/roto.es.md': '---\ntitle: Roto\ntags: [uno, dos\ndate: 2024-01-01\n---\n' },
      [/content\/posts\/roto\.es\.md:\d+: front matter is not valid YAML/],
    );
  });

  it('reports a missing title and an empty title', async () => {
    await expectFailure(
      {
        'content/posts/sin-titulo.es.md': md({ description: 'Sin título' }),
        'content/tips/vacio.es.md': md({ title: '   ' }),
      },
      [
        'content/posts/sin-titulo.es.md:1: title: is required',
        'content/tips/vacio.es.md:2: title: must not be empty',
      ],
    );
  });

  it('points a missing title at a near-miss key', async () => {
    await expectFailure({ 'content/posts/typo.es.md': '---\ndescription: x\ntitel: Hola\n---\n' }, [
      'content/posts/typo.es.md:3: title: is required',
      '`titel` looks like a typo: did you mean `title`?',
    ]);
  });

  it('reports wrong types, naming the field', async () => {
    await expectFailure(
      { 'content/posts/tipos.es.md': '---\ntitle: Tipos\ndraft: "yes"\ntags: ia\ndate: mañana\n---\n' },
      [
        'content/posts/tipos.es.md:3: draft: must be true or false, got "yes"',
        'content/posts/tipos.es.md:4: tags: must be a list, got "ia"',
        'content/posts/tipos.es.md:5: date: must be a date',
      ],
    );
  });

  it('reports an image address that is not a URI', async () => {
    await expectFailure({ 'content/posts/img.es.md': md({ title: 'Imagen', image: 'http://[roto' }) }, [
      'content/posts/img.es.md:3: image: is not a valid address',
    ]);
  });

  it('reports an image on another host', async () => {
    await expectFailure(
      { 'content/posts/img.es.md': md({ title: 'Imagen', image: 'https://cdn.other.net/a.png' }) },
      [
        'content/posts/img.es.md:3: image: https://cdn.other.net/a.png is not on the image host images.example.com',
      ],
    );
  });

  it('refuses an image address with a user name or password, or plain http, on the image host', async () => {
    const result = await expectFailure(
      {
        'content/posts/img.es.md': md({
          title: 'Imagen',
          image: 'https://user:secreto@images.example.com/a.png',
        }),
        'content/posts/http.es.md': md({ title: 'Http', image: 'http://images.example.com/a.png' }),
      },
      [
        'content/posts/img.es.md:3: image: must not carry a user name or password (user:password@host)',
        'content/posts/http.es.md:3: image: http://images.example.com/a.png must be an https: address',
      ],
    );
    expect(result.stderr).not.toContain('secreto');
  });

  it('quotes an image value as written when it is not an https: address (javascript:, data:)', async () => {
    await expectFailure(
      {
        'content/posts/js.es.md': md({ title: 'JS', image: 'javascript:alert(1)' }),
        'content/posts/data.es.md': md({ title: 'Data', image: 'data:image/png;base64,AAAA' }),
      },
      [
        'content/posts/js.es.md:3: image: javascript:alert(1) must be an https: address on the image host images.example.com',
        'content/posts/data.es.md:3: image: data:image/png;base64,AAAA must be an https: address on the image host images.example.com',
      ],
    ).then((result) => expect(result.stderr).not.toContain('javascript://'));
  });

  it('refuses an image path with .. segments, or one that leaves the image host’s folder, never normalised away', async () => {
    await site.write(
      'site.config.ts',
      `export default ${JSON.stringify({ ...FIXTURE_CONFIG, images: 'https://images.example.com/sitio/' })};\n`,
    );
    expect((await site.cli('build')).code).toBe(0);
    before = await site.snapshot();
    const dots =
      'hint: write the path from the image host’s folder https://images.example.com/sitio/ without .. segments, e.g. image: posts/cover.png';
    await expectFailure(
      {
        'content/posts/arriba.es.md': md({ title: 'Arriba', image: '../../etc/passwd' }),
        'content/posts/dentro.es.md': md({ title: 'Dentro', image: 'posts/../portada.png' }),
        'content/posts/codificado.es.md': md({ title: 'Codificado', image: 'posts/%2e%2e/%2E%2E/x.png' }),
        'content/posts/barra.es.md': md({ title: 'Barra', image: 'posts\\..\\..\\x.png' }),
        'content/posts/absoluta.es.md': md({
          title: 'Absoluta',
          image: 'https://images.example.com/sitio/a/../../x.png',
        }),
        'content/posts/raiz.es.md': md({ title: 'Raíz', image: '/otra/x.png' }),
      },
      [
        `content/posts/arriba.es.md:3: image: ../../etc/passwd has a .. segment, which would publish another address than the one written\n  ${dots}`,
        'content/posts/dentro.es.md:3: image: posts/../portada.png has a .. segment',
        'content/posts/codificado.es.md:3: image: posts/%2e%2e/%2E%2E/x.png has a .. segment',
        'content/posts/barra.es.md:3: image: posts\\..\\..\\x.png has a .. segment',
        'content/posts/absoluta.es.md:3: image: https://images.example.com/sitio/a/../../x.png has a .. segment',
        'content/posts/raiz.es.md:3: image: /otra/x.png resolves to https://images.example.com/otra/x.png, outside the image host’s folder https://images.example.com/sitio/',
      ],
    );
  });

  it('refuses control characters in published text, and line breaks in one-line fields, naming the field', async () => {
    await expectFailure(
      {
        'content/posts/nul.es.md': md('title: "Nul \\0 aqui"'),
        'content/posts/esc.es.md': md('title: Escape\ndescription: "Color \\e[31m rojo"'),
        'content/posts/c1.es.md': md('title: "Next \\N line"'),
        'content/posts/csi.es.md': md('title: "CSI \\x9b aqui"'),
        'content/posts/salto.es.md': md('title: >\n  Salto al final'),
        'content/posts/etiquetas.es.md': md('title: Etiquetas\ntags: [bien, "mal\\nlínea"]'),
        'content/projects/tec.es.md': md('title: Tec\ntechnologies: ["Rust\\u0007"]'),
        'content/posts/imagen.es.md': md('title: Imagen\nimage: "posts/a\\tb\\n.png"'),
      },
      [
        'content/posts/nul.es.md:2: title: contains a control character (U+0000) at character 5, which would be published as is\n  hint: remove it: published text holds printable characters only (a tab is allowed)',
        'content/posts/esc.es.md:3: description: contains a control character (U+001B) at character 7',
        'content/posts/c1.es.md:2: title: contains a line break (U+0085) at character 6; a title is one line',
        'content/posts/csi.es.md:2: title: contains a control character (U+009B) at character 5',
        'content/posts/salto.es.md:2: title: contains a line break (U+000A) at character 15; a title is one line\n  hint: write it on one line (a YAML > or | block keeps a line break at its end: use >- or |-, or a quoted value)',
        'content/posts/etiquetas.es.md:3: tags.1: contains a line break (U+000A) at character 4; a tag is one line',
        'content/projects/tec.es.md:3: technologies.0: contains a control character (U+0007) at character 5',
        'content/posts/imagen.es.md:3: image: contains a line break (U+000A) at character 10; an image address is one line',
      ],
    );
  });

  it('publishes tabs anywhere and line breaks in a description', async () => {
    await site.write('content/posts/tab.es.md', md('title: "Con\\ttab"\ndescription: |\n  Dos\n  líneas'));
    expect((await site.cli('build')).code).toBe(0);
    const index = await site.readJson<{ content: { title: string; description?: string }[] }>(
      'api/v1/content.json',
    );
    expect(index.content.find((c) => c.title === 'Con\ttab')?.description).toBe('Dos\nlíneas\n');
  });

  it('refuses the slugs .. and ., which would publish at the site or section root', async () => {
    await expectFailure(
      {
        'content/posts/arriba.es.md': md({ title: 'Arriba', slug: '..' }),
        'content/posts/aqui.es.md': md({ title: 'Aquí', slug: '.' }),
        'content/posts/arriba.en.md': md({ title: 'Up', slug: '..' }),
      },
      [
        `content/posts/arriba.es.md:3: slug: must be one URL path segment: ".." would publish at the parent's address, not a page of its own`,
        `content/posts/aqui.es.md:3: slug: must be one URL path segment: "." would publish at the section's address, not a page of its own`,
        'content/posts/arriba.en.md:3: slug: must be one URL path segment',
      ],
    );
  });

  it('refuses a file name that cannot be a slug, naming the file, unless the file gives its own slug', async () => {
    await expectFailure(
      {
        'content/posts/nueva\nlínea.es.md': md({ title: 'Nueva línea' }),
        'content/posts/con espacio.es.md': md({ title: 'Con espacio' }),
        'content/posts/con espacio bien.es.md': md({ title: 'Con slug', slug: 'con-slug' }),
      },
      [
        'content/posts/nueva\\nlínea.es.md:1: slug: the file name cannot be the page\'s slug: "nueva\\nlínea" contains a control character',
        'content/posts/con espacio.es.md:1: slug: the file name cannot be the page\'s slug: "con espacio" contains a space',
        'hint: rename the file (or its bundle folder), or give it a slug: in the front matter',
      ],
    ).then((result) => expect(result.stderr).not.toContain('con espacio bien'));
  });

  it('reports a file that fails to parse once, without calling its translations orphans', async () => {
    const result = await expectFailure(
      {
        'content/posts/roto.es.md': "---\ntitle: 'sin cerrar\n---\n",
        'content/posts/roto.en.md': md({ title: 'Broken' }),
        'content/posts/roto.pt-br.md': md({ title: 'Quebrado' }),
        // Paired by translationKey: the broken file's key is still seen.
        'content/tips/clave-rota.es.md': '---\ntranslationKey: clave\ntitle: [sin cerrar\n---\n',
        'content/tips/key.en.md': md({ title: 'Key', translationKey: 'clave' }),
      },
      [
        /content\/posts\/roto\.es\.md:\d+: front matter is not valid YAML/,
        /content\/tips\/clave-rota\.es\.md:\d+: front matter is not valid YAML/,
      ],
    );
    expect(result.stderr).not.toContain('orphan');
    expect(result.stderr).not.toContain('has no Spanish');
    expect(result.stderr).toContain('✗ 2 problems');
  });

  it('still reports a real orphan beside an unreadable file', async () => {
    await expectFailure(
      {
        'content/posts/roto.es.md': "---\ntitle: 'sin cerrar\n---\n",
        'content/posts/solo.en.md': md({ title: 'Alone' }),
      },
      ['content/posts/solo.en.md:1: translationKey: this en translation has no Spanish (canonical) file'],
    );
  });

  it('refuses a published title or description that is still the placeholder of `new`', async () => {
    await expectFailure(
      {
        'content/posts/nuevo.es.md': md({ title: 'Título en español', description: 'Algo real' }),
        'content/posts/nuevo.en.md': md({
          title: 'A real title',
          description: 'One or two sentences that summarise the page.',
        }),
        'content/posts/borrador.es.md': md({ title: 'Título en español', draft: true }),
      },
      [
        'content/posts/nuevo.es.md:2: title: is still the placeholder "Título en español" that `content-index new` wrote',
        'hint: write the title of this page, or keep draft: true until it is ready',
        'content/posts/nuevo.en.md:3: description: is still the placeholder',
      ],
    ).then((result) => expect(result.stderr).not.toContain('borrador'));
  });

  it('refuses technologies on a post or a tip', async () => {
    await expectFailure(
      {
        'content/posts/tec.es.md': md({ title: 'Post', technologies: ['Python'] }),
        'content/tips/tec.es.md': md({ title: 'Tip', technologies: ['Go'] }),
      },
      [
        'content/posts/tec.es.md:3: technologies: only projects may list technologies',
        'content/tips/tec.es.md:3: technologies: only projects may list technologies',
      ],
    );
  });

  it('names both files when two items would publish the same address', async () => {
    await expectFailure({ 'content/posts/otro.es.md': md({ title: 'Otro', slug: 'hola' }) }, [
      /content\/posts\/(hola|otro)\.es\.md:\d+: slug: publishes https:\/\/example\.com\/blog\/hola\/, the same address as content\/posts\/(hola|otro)\.es\.md/,
    ]);
  });

  it('names both files when their addresses differ only in Unicode form (NFC and NFD): one word, one address', async () => {
    // `café` saved composed (U+00E9) and decomposed (e + U+0301): two file names, one word to a reader.
    await expectFailure(
      {
        'content/posts/caf\u00e9.es.md': md({ title: 'Café compuesto' }),
        'content/posts/cafe\u0301.es.md': md({ title: 'Café descompuesto' }),
      },
      [
        /content\/posts\/caf(?:\u00e9|e\u0301)\.es\.md:1: slug: publishes https:\/\/example\.com\/blog\/caf(e%CC%81|%C3%A9)\/, the same address, once its Unicode is normalized \(NFC\), as https:\/\/example\.com\/blog\/caf(e%CC%81|%C3%A9)\/ of content\/posts\/caf(?:\u00e9|e\u0301)\.es\.md/,
      ],
    );
  });

  it('names both files when their addresses differ only by case', async () => {
    await expectFailure({ 'content/posts/Hola.es.md': md({ title: 'Hola otra vez' }) }, [
      /content\/posts\/(Hola|hola)\.es\.md:1: slug: publishes https:\/\/example\.com\/blog\/(Hola|hola)\/, an address that differs only by case from https:\/\/example\.com\/blog\/(Hola|hola)\/ of content\/posts\/(Hola|hola)\.es\.md/,
    ]);
  });

  it('refuses a translation without its Spanish file', async () => {
    await expectFailure({ 'content/tips/huerfano.pt-br.md': md({ title: 'Órfão' }) }, [
      'content/tips/huerfano.pt-br.md:1: translationKey: this pt-br translation has no Spanish (canonical) file',
      'hint: add content/tips/huerfano.es.md',
    ]);
  });

  it('refuses an unknown language suffix', async () => {
    await expectFailure({ 'content/posts/hola.fr.md': md({ title: 'Bonjour' }) }, [
      'content/posts/hola.fr.md:1: language: unknown language suffix ".fr"',
    ]);
    await expectFailure({ 'content/posts/hola.pt.md': md({ title: 'Olá' }) }, [
      '(Brazilian Portuguese is pt-br)',
    ]);
  });

  it('refuses two Spanish files for one item', async () => {
    await expectFailure({ 'content/posts/hola/index.es.md': md({ title: 'Otra vez', slug: 'otra' }) }, [
      /content\/posts\/hola(\/index)?\.es\.md:1: translationKey: a second es file for "post\/hola"/,
    ]);
  });

  it('reports every problem of a build at once', async () => {
    const result = await expectFailure(
      {
        'content/posts/a.es.md': md({ title: '' }),
        'content/posts/b.es.md': md({ title: 'B', technologies: ['x'] }),
        'content/tips/c.en.md': md({ title: 'C' }),
      },
      ['content/posts/a.es.md', 'content/posts/b.es.md', 'content/tips/c.en.md'],
    );
    expect(result.stderr).toContain('✗ 3 problems');
  });

  it('reports an invalid site address in the configuration', async () => {
    await expectFailure(
      { 'site.config.ts': 'export default { site: "example.com", images: "https://i.example.com/" };\n' },
      ['site.config.ts: site: must be an absolute address'],
    );
  });

  it('names the environment variable when an override is invalid', async () => {
    const before = process.env.CONTENT_INDEX_IMAGE_BASE_URL;
    process.env.CONTENT_INDEX_IMAGE_BASE_URL = 'ftp://images';
    try {
      await expectFailure({}, [
        'environment variable CONTENT_INDEX_IMAGE_BASE_URL: images: must be an https address without a user name or password',
      ]);
    } finally {
      // Put back as it was: the suite's files share their process (vitest.config.ts).
      if (before === undefined) delete process.env.CONTENT_INDEX_IMAGE_BASE_URL;
      else process.env.CONTENT_INDEX_IMAGE_BASE_URL = before;
    }
  });
});

describe('never emptied by accident', () => {
  it('a content folder that is not there is an error naming it (a submodule not checked out, a wrong --content)', async () => {
    await rename(join(site.root, 'content'), join(site.root, 'elsewhere'));
    const result = await expectFailure({}, [
      'content: does not exist: there is no content to publish, and an empty index is never published by accident',
      'git submodule update --init',
    ]);
    expect(result.stdout).not.toContain('0 items');
    const wrong = await site.cli('build', '--content', 'contnet');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('contnet: does not exist');
    expect(await site.snapshot()).toEqual(before);
  });

  it('a content folder without one content file is an error naming it', async () => {
    await rm(join(site.root, 'content'), { recursive: true });
    await site.write('content/README.md', '# Not a post\n');
    await expectFailure({}, [
      'content: holds no content file: none matches content.types (posts/**/*.{md,markdown,mdx}, projects/**/*.{md,markdown,mdx}, tips/**/*.{md,markdown,mdx})',
    ]);
  });
});

describe('check', () => {
  it('validates without writing', async () => {
    await site.write('content/posts/nuevo.es.md', md({ title: 'Nuevo' }));
    const ok = await site.cli('check');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('4 items');
    expect(await site.snapshot()).toEqual(before);
    await site.write('content/posts/nuevo.es.md', md({ title: '' }));
    const bad = await site.cli('check');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('content/posts/nuevo.es.md:2: title: must not be empty');
  });
});
