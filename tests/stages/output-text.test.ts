import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { textBytes, textDigest, textEncoded, textWritten } from '../../build/stages/output/output-text.ts';

// dev keeps a large output's UTF-8 once its text has changed, and makes the next text's from it
// (utf8-patch.ts): what it gives is what Buffer.from and sha256 give, save after save.
it("gives a changing large output's UTF-8, digest and size as Buffer.from does, save after save", () => {
  const path = 'output-text-test/api/v1/content.json';
  const line = (i: number, title: string) => `{"title":"${title} ${i}","url":"https://example.com/${i}/"}`;
  const texts = ['Visión', 'Visión, editada 😀', 'Visión', 'Visión 😁', 'V'].map((edit) =>
    Array.from({ length: 2000 }, (_, i) => line(i, i === 1000 ? edit : 'Visión')).join(','),
  );
  for (const content of texts) {
    expect(content.length).toBeGreaterThan(65_536);
    const file = { path, content };
    const bytes = Buffer.from(content);
    expect(textEncoded(file).equals(bytes)).toBe(true);
    expect(textDigest(file)).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(textBytes(file)).toBe(bytes.length);
    textWritten(file, true);
  }
});
