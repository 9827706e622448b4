import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { verifyOutput } from '../../build/runtime/verify-output.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

const LIFECYCLE = `export default ${JSON.stringify({
  versions: {
    v1: { published: '2025-01-15', sunset: '2027-11-01T00:00:00Z' },
    v2: { published: '2026-11-01' },
  },
})};\n`;
const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola' }), 'headers.config.ts': LIFECYCLE };

let site: TempSite | undefined;
afterEach(() => site?.dispose());

it('checks every served version against its own schema, and the alias against the current one', async () => {
  site = await tempSite(FILES);
  const now = new Date('2026-11-22T00:00:00Z');
  await build({ root: site.root, clock: () => now, serializers: WITH_V2 });
  await expect(verifyOutput(site.out, now, WITH_V2)).resolves.toBeUndefined();

  const v1 = await site.readJson<{ content: unknown[] }>('api/v1/content.json');
  await writeFile(join(site.out, 'api/v1/content.json'), JSON.stringify({ ...v1, content: 'x' }));
  await expect(verifyOutput(site.out, now, WITH_V2)).rejects.toThrow(
    /api\/v1\/content\.json: content: must be a list/,
  );
  await writeFile(join(site.out, 'api/content.json'), '{}');
  await expect(verifyOutput(site.out, now, WITH_V2)).rejects.toThrow(
    /api\/content\.json: differs from api\/v2\/content\.json/,
  );
});

it('passes once a version is withdrawn and its files are gone (a deploy after the sunset)', async () => {
  site = await tempSite(FILES);
  const after = new Date('2027-11-02T00:00:00Z');
  await build({ root: site.root, clock: () => after, serializers: WITH_V2 });
  await expect(verifyOutput(site.out, after, WITH_V2)).resolves.toBeUndefined();
});
