import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblems } from '../../build/core/errors.ts';
import type { SerializerRegistry } from '../../build/core/serializers/registry.ts';
import { build, isContentIndexError } from '../../build/index.ts';
import { V2, WITH_V2 } from '../fixtures/v2/serializer.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from '../helpers/site.ts';

const clock = () => new Date('2026-11-22T12:00:00Z');
const FILES = { 'content/posts/hola.es.md': md({ title: 'Hola', date: '2026-01-01' }) };

function headersConfig(versions: Record<string, Record<string, string>>, extra = ''): string {
  const helper = join(PROJECT_ROOT, 'build/core/config/lifecycle-config.ts');
  return `import { defineHeaders } from ${JSON.stringify(helper)};\nexport default defineHeaders({ versions: ${JSON.stringify(versions)}${extra} });\n`;
}

let site: TempSite;
let before: Record<string, string>;
beforeEach(async () => {
  // A good build first: every refused configuration below must leave its output exactly as it was.
  site = await tempSite(FILES);
  await build({ root: site.root, clock });
  before = await site.snapshot();
});
afterEach(() => site.dispose());

async function refused(versions: Record<string, Record<string, string>>, serializers = WITH_V2) {
  await site.write('headers.config.ts', headersConfig(versions));
  const error = await build({ root: site.root, clock, serializers }).catch((e: unknown) => e);
  expect(isContentIndexError(error), String(error)).toBe(true);
  expect(await site.snapshot()).toEqual(before);
  return isContentIndexError(error) ? error.problems : [];
}

describe('headers.config.ts: the build refuses a lifecycle that breaks the promise', () => {
  it('a sunset earlier than 12 months after the successor’s publication', async () => {
    const problems = await refused({
      v1: { published: '2025-01-15', sunset: '2027-10-31T23:59:59Z' },
      v2: { published: '2026-11-01' },
    });
    expect(formatProblems(problems)).toBe(
      [
        "headers.config.ts: versions.v1.sunset: v1's sunset 2027-10-31T23:59:59Z is earlier than 12 months after v2's publication (2026-11-01T00:00:00Z); the API promises to serve a superseded version for at least 12 months (rule: sunset-min-12-months)",
        "  hint: set v1's sunset on or after 2027-11-01T00:00:00Z",
      ].join('\n'),
    );
  });

  it('accepts a sunset exactly 12 months after the successor’s publication', async () => {
    await site.write(
      'headers.config.ts',
      headersConfig({
        v1: { published: '2025-01-15', sunset: '2027-11-01' },
        v2: { published: '2026-11-01' },
      }),
    );
    await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(await site.readJson('api/versions.json')).toMatchObject({ current: 'v2' });
  });

  it('a sunset before the deprecation date (RFC 9745 forbids it)', async () => {
    const problems = await refused({
      v1: { published: '2025-01-15', sunset: '2026-10-01' },
      v2: { published: '2026-11-01' },
    });
    expect(problems).toMatchObject([
      {
        code: 'lifecycle_invalid',
        field: 'versions.v1.sunset',
        message: expect.stringMatching(
          /before its deprecation .* RFC 9745 .*\(rule: sunset-after-deprecation\)$/,
        ),
      },
    ]);
  });

  it('a version with no serializer (through the CLI: exit 1, output untouched)', async () => {
    await site.write(
      'headers.config.ts',
      headersConfig({
        v1: { published: '2025-01-15', sunset: '2027-12-01' },
        v2: { published: '2026-11-01' },
      }),
    );
    const result = await site.cli('build'); // the CLI knows v1 only
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'headers.config.ts: versions.v2: v2 has no serializer, so it cannot be published (rule: serializer-required)',
    );
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(await site.snapshot()).toEqual(before);
  });

  it('two current versions: two versions published at the same instant', async () => {
    const problems = await refused({
      v1: { published: '2026-11-01', sunset: '2027-12-01' },
      v2: { published: '2026-11-01' },
    });
    expect(problems.map((p) => p.message)).toEqual([
      'v1 and v2 are both published at 2026-11-01T00:00:00Z, so two versions would be current (rule: one-current)',
    ]);
  });

  it('two current versions: a superseded version with no sunset', async () => {
    const problems = await refused({ v1: { published: '2025-01-15' }, v2: { published: '2026-11-01' } });
    expect(problems).toMatchObject([
      {
        field: 'versions.v1.sunset',
        message:
          'v1 has no sunset although v2 replaces it, so v1 and v2 would both stay current (rule: one-current)',
        hint: expect.stringContaining('2027-11-01T00:00:00Z'),
      },
    ]);
  });

  it('a sunset on the latest version, which nothing replaces', async () => {
    const problems = await refused({ v1: { published: '2025-01-15', sunset: '2027-01-01' } });
    expect(problems[0]?.message).toMatch(/\(rule: sunset-needs-successor\)$/);
  });

  it('a newer version number published before an older one', async () => {
    const problems = await refused({
      v1: { published: '2026-11-01', sunset: '2027-12-01' },
      v2: { published: '2025-01-15' },
    });
    expect(problems.map((p) => p.message).join('\n')).toContain('(rule: version-order)');
  });

  it('no version published yet at the build time', async () => {
    const problems = await refused({ v1: { published: '2027-01-01' } });
    expect(problems[0]?.message).toMatch(/no version is published .*\(rule: published-version-required\)$/);
  });

  it('dates that are not ISO 8601 with a zone, and unknown keys', async () => {
    await site.write(
      'headers.config.ts',
      'export default { versions: { v1: { published: "01/15/2025" }, V2: { published: "2026-02-30" } }, cache: {} };\n',
    );
    const error = await build({ root: site.root, clock }).catch((e: unknown) => e);
    expect(isContentIndexError(error) && formatProblems(error.problems)).toBe(
      [
        'headers.config.ts: cache: is not a known field',
        'headers.config.ts: versions.v1.published: must be a date such as 2026-03-01 or a date-time with its time zone such as 2026-03-01T09:00:00Z',
        '  hint: a date alone means midnight UTC; times are whole seconds, because Deprecation and Sunset carry seconds',
        'headers.config.ts: versions.V2: version names are v1, v2, v3…',
        '  hint: name each version after its route segment: /api/v2/content.json is v2',
      ].join('\n'),
    );
  });

  it('a date that is not on the calendar', async () => {
    const problems = await refused({ v1: { published: '2025-02-30' } });
    expect(formatProblems(problems)).toBe(
      'headers.config.ts: versions.v1.published: "2025-02-30" is not a calendar date: February 2025 has 28 days',
    );
  });

  it('a missing headers.config.ts', async () => {
    await site.remove('headers.config.ts');
    const result = await site.cli('build');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('headers.config.ts: headers configuration not found');
    expect(result.stderr).toContain('or pass --headers');
  });
});

describe('headers.config.ts: what the build accepts', () => {
  it('does not need a serializer for a version that is already withdrawn', async () => {
    const onlyV2: SerializerRegistry = { v2: V2 };
    await site.write(
      'headers.config.ts',
      headersConfig({
        v1: { published: '2025-01-15', sunset: '2026-06-01' },
        v2: { published: '2025-06-01' },
      }),
    );
    await build({ root: site.root, clock, serializers: onlyV2 });
    const files = Object.keys(await site.snapshot()).sort();
    expect(files).toContain('api/v2/content.json');
    expect(files.filter((f) => f.startsWith('api/v1/'))).toEqual([]);
  });

  it('leaves out a version dated after the build time, with a warning, until a later build', async () => {
    await site.write(
      'headers.config.ts',
      headersConfig({
        v1: { published: '2025-01-15', sunset: '2028-01-01' },
        v2: { published: '2027-01-01' },
      }),
    );
    const result = await build({ root: site.root, clock, serializers: WITH_V2 });
    expect(result.warnings.map((w) => w.message)).toEqual([
      'v2 is dated 2027-01-01T00:00:00Z, after the build time: it is left out until a build on or after that date',
    ]);
    expect(await site.readJson('api/versions.json')).toMatchObject({
      current: 'v1',
      versions: [{ version: 'v1', deprecated_at: null, sunset_at: null }],
    });
    expect(await site.readJson('api/v1/content.json')).toMatchObject({ versions: { deprecation: null } });
    expect(Object.keys(await site.snapshot())).not.toContain('api/v2/content.json');

    await build({ root: site.root, clock: () => new Date('2027-01-01T00:00:00Z'), serializers: WITH_V2 });
    expect(await site.readJson('api/content.json')).toMatchObject({ versions: { current: 'v2' } });
  });
});
