import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isContentIndexError } from '../../build/core/errors.ts';
import type { ContentIndexV1 } from '../../build/core/serializers/v1.ts';
import { build } from '../../build/index.ts';
import schema from '../../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import { clientAjv } from '../helpers/ajv.ts';
import { md, snapshotDir, type TempSite, tempSite } from '../helpers/site.ts';

const ajv = clientAjv();
const validateIndex = ajv.compile(schema);
const clock = () => new Date('2026-06-01T00:00:00Z');

// ---- arbitraries: front matter values, valid and hostile ----
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }), // any code point: odd Unicode, lone surrogates, controls
  fc.constantFrom(
    'Aprendizaje automático',
    '`torch.compile` [x](y)',
    '# título',
    '> cita',
    'línea\nnueva',
    '\u202Eevil',
  ),
  fc.string({ minLength: 2000, maxLength: 6000 }), // huge strings
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);
const deep = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.string(), fc.array(tie('node'), { maxLength: 3 })),
})).node;

const frontMatter = fc.record(
  {
    title: fc.oneof(text, wrongType, fc.constant('')),
    description: fc.oneof(text, wrongType),
    image: fc.oneof(
      fc.constantFrom(
        'posts/a.png',
        'https://images.example.com/x.webp',
        'https://evil.example.net/x.png',
        'http://[::1',
        '//cdn.other/x.png',
      ),
      text,
    ),
    date: fc.oneof(
      fc.constantFrom('2024-02-29', '2026-05-31T23:59:59Z', '2999-01-01', 'ayer', '2024-13-45'),
      fc.date({ noInvalidDate: true }),
      wrongType,
    ),
    draft: fc.oneof(fc.boolean(), wrongType),
    slug: fc.oneof(fc.constantFrom('hola', 'hola-mundo', 'con espacio', 'a/b', 'ñandú'), text),
    technologies: fc.oneof(fc.array(text, { maxLength: 4 }), wrongType),
    tags: fc.oneof(fc.array(text, { maxLength: 4 }), wrongType),
    translationKey: fc.oneof(fc.constantFrom('k1', 'k2'), wrongType),
    titel: text,
    extra: deep,
  },
  { requiredKeys: [] },
);

/** Front matter as YAML, dumped (valid) or with the constructs that trip parsers. */
const yamlText = fc.oneof(
  { weight: 6, arbitrary: frontMatter.map((data) => yaml.dump(data, { skipInvalid: true })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'title: &t Ancla\nalias: *t\n',
      'title: a\ntitle: b\n',
      'title: !!binary aGVsbG8=\n',
      'title: !custom x\n',
      'a: &a [1,2]\nb: [*a,*a,*a]\ntitle: x\n',
      'title: [\n',
      '- lista\n- no mapa\n',
      'title: "sin cerrar\n',
      '',
      '\t\ttitle: tab\n',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

const fileContent = fc.oneof(
  { weight: 8, arbitrary: yamlText.map((y) => `---\n${y}\n---\nCuerpo.\n`) },
  { weight: 1, arbitrary: fc.constant('') }, // empty file
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) }, // no front matter
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) }, // binary garbage
);

const filePath = fc
  .tuple(
    fc.constantFrom('posts', 'projects', 'tips'),
    fc.constantFrom('uno', 'dos', 'tres', 'hola-mundo', 'ñ'),
    fc.constantFrom('.es', '.es', '.en', '.pt-br', '', '.fr'),
    fc.boolean(),
  )
  .map(([dir, name, lang, bundle]) =>
    bundle ? `content/${dir}/${name}/index${lang}.md` : `content/${dir}/${name}${lang}.md`,
  );

const hostileTree = fc.uniqueArray(fc.tuple(filePath, fileContent), {
  minLength: 1,
  maxLength: 8,
  selector: ([path]) => path,
});

/** Valid front matter whose values are as odd as valid values get: any Unicode, control characters, huge. */
const oddText = text.filter((t) => /\S/.test(t));
const validFrontMatter = fc.record(
  {
    title: oddText,
    description: text,
    image: fc.constantFrom('posts/a.png', 'x/y z.webp', 'https://images.example.com/ok.png', 'ñ.png'),
    date: fc.date({ min: new Date('2000-01-01'), max: new Date('2026-06-01'), noInvalidDate: true }),
    draft: fc.boolean(),
    tags: fc.array(oddText, { maxLength: 3 }),
    unknownKey: deep,
  },
  { requiredKeys: ['title'] },
);
const validItem = fc.tuple(
  fc.constantFrom('posts', 'projects', 'tips'),
  fc.subarray(['en', 'pt-br'] as const),
  validFrontMatter,
);
/** Trees that are valid as a whole: every item has its Spanish file, slugs are unique. */
const validTree = fc.uniqueArray(validItem, { minLength: 1, maxLength: 6 }).chain((items) =>
  fc.tuple(...items.map(([, langs]) => fc.tuple(...langs.map(() => validFrontMatter)))).map((translations) =>
    items.flatMap(([dir, langs, es], i): [string, string][] => {
      const name = `item-${i}`;
      const files: [string, string][] = [[`content/${dir}/${name}.es.md`, `---\n${yaml.dump(es)}---\n`]];
      langs.forEach((lang, k) => {
        const data = { ...translations[i]?.[k], slug: `${lang}-${name}` };
        files.push([`content/${dir}/${name}.${lang}.md`, `---\n${yaml.dump(data)}---\n`]);
      });
      return files;
    }),
  ),
);

const tree = fc.oneof(validTree, hostileTree);

let site: TempSite;
beforeAll(async () => {
  site = await tempSite({ 'content/posts/base.es.md': md({ title: 'Base' }) });
  await build({ root: site.root, clock });
});
afterAll(() => site.dispose());

it('every generated tree either builds output that validates, or fails naming its files and leaves public/ alone', async () => {
  await fc.assert(
    fc.asyncProperty(tree, async (files) => {
      await rm(join(site.root, 'content'), { recursive: true, force: true });
      for (const [path, content] of files) {
        await mkdir(dirname(join(site.root, path)), { recursive: true });
        await writeFile(join(site.root, path), content);
      }
      const before = await snapshotDir(site.out);
      let outcome: Awaited<ReturnType<typeof build>> | undefined;
      try {
        outcome = await build({ root: site.root, clock });
      } catch (error) {
        // A crash would be anything but a ContentIndexError.
        expect(isContentIndexError(error), String((error as Error)?.stack)).toBe(true);
        if (!isContentIndexError(error)) return;
        const paths = files.map(([path]) => path);
        for (const problem of error.problems) {
          expect(problem.message.length).toBeGreaterThan(0);
          expect(paths, JSON.stringify(problem)).toContain(problem.file);
        }
        expect(await snapshotDir(site.out)).toEqual(before);
        return;
      }
      const index = await site.readJson<ContentIndexV1>('api/v1/content.json');
      expect(validateIndex(index), JSON.stringify(validateIndex.errors)).toBe(true);
      expect(index.content.length).toBe(outcome.model.entries.length);
      expect(index.counts.total).toBe(index.content.length);
      expect(Object.keys(await snapshotDir(site.out)).sort()).toEqual(
        outcome.files.map((f) => f.path).sort(),
      );
    }),
    { numRuns: 250, seed: Number(process.env.FC_SEED ?? 20261122) },
  );
}, 300_000);
