import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { build } from '../build/index.ts';
import { WITH_V2 } from './fixtures/v2/serializer.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from './helpers/site.ts';

// The "Publishing a new version" walk-through in docs/versions.md is checked against the build: its example
// configuration is valid, and the dates and header values it promises are the ones clients get.
let site: TempSite | undefined;
afterEach(() => site?.dispose());

async function section(): Promise<string> {
  const page = await readFile(join(PROJECT_ROOT, 'docs/versions.md'), 'utf8');
  // From the top of the page to the next second-level heading (the shape guard).
  return page.slice(0, page.indexOf('\n## '));
}

it('explains how an author publishes a new version and what clients see on which date', async () => {
  const text = await section();
  expect(text).toContain('### Publishing a new version');
  // As a user writes it: `import { defineHeaders } from 'content-index'`.
  const config = /```ts\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  expect(config).toContain("from 'content-index'");
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }), 'headers.config.ts': config });

  // Before v2's date: v2 is left out, v1 stays current.
  const before = await build({
    root: site.root,
    clock: () => new Date('2027-02-28T12:00:00Z'),
    serializers: WITH_V2,
  });
  expect(before.warnings.map((w) => w.field)).toEqual(['versions.v2.published']);
  expect(await site.readJson('api/content.json')).toMatchObject({
    versions: { current: 'v1', deprecation: null },
  });

  // The release deploy: the header values the README's table quotes.
  await build({ root: site.root, clock: () => new Date('2027-03-01T00:00:00Z'), serializers: WITH_V2 });
  const headers = await readFile(join(site.out, '_headers'), 'utf8');
  const promised = /`(Deprecation: @\d+)`, `(Sunset: [^`]+)`/.exec(text);
  expect(promised).not.toBeNull();
  expect(headers).toContain(`  ${promised?.[1]}\n`);
  expect(headers).toContain(`  ${promised?.[2]}\n`);
  expect(await site.readJson('api/versions.json')).toMatchObject({
    current: 'v2',
    versions: [{ version: 'v1', sunset_at: '2028-03-01T00:00:00Z' }, { version: 'v2' }],
  });
});

it('says which Cache-Control the API sends, and why', async () => {
  const page = await readFile(join(PROJECT_ROOT, 'docs/configuration.md'), 'utf8');
  site = await tempSite({ 'content/posts/hola.es.md': md({ title: 'Hola' }) });
  await build({ root: PROJECT_ROOT, out: site.out });
  const sent = /Cache-Control: (.+)/.exec(await readFile(join(site.out, '_headers'), 'utf8'))?.[1];
  expect(page).toContain(`**Cache-Control: \`${sent}\`.**`);
});
