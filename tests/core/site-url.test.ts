import fc from 'fast-check';
import { expect, it } from 'vitest';
import { siteUrl } from '../../build/core/config/site-config.ts';

// siteUrl joins plain paths as text instead of parsing them: it must give what the URL parser gives.
it('siteUrl resolves every path as the URL parser does', () => {
  const sites = [
    'https://example.com/',
    'https://example.com/blog/',
    'https://EXAMPLE.com/',
    'https://example.com',
    'https://example.com/a?b',
    'http://[::1]:8080/x/',
  ];
  const units = [...'aZ09-._~!$&\'()*+,;=:@/%?#[]\\ "<>`{}|^', 'é', '%2e', '%2E', '%C3%A9', '..', '.'];
  fc.assert(
    fc.property(
      fc.constantFrom(...sites),
      fc.string({ unit: fc.constantFrom(...units), maxLength: 16 }),
      (site, path) => {
        let expected: string;
        try {
          expected = /^[a-z][a-z0-9+.-]*:/i.test(path)
            ? new URL(path).href
            : new URL(path.replace(/^\/+/, ''), site).href;
        } catch {
          expected = 'invalid';
        }
        let actual: string;
        try {
          actual = siteUrl(site, path);
        } catch {
          actual = 'invalid';
        }
        expect(actual).toBe(expected);
      },
    ),
    { numRuns: 20_000, examples: [['https://example.com/', '/a:']] },
  );
  expect(siteUrl('https://example.com/', '/blog/una-entrada/')).toBe('https://example.com/blog/una-entrada/');
});
