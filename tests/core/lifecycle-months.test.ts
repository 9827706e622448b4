import { describe, expect, it } from 'vitest';
import { resolveHeadersConfig } from '../../build/core/config/resolve-lifecycle-config.ts';
import { addMonths, isoSeconds, type Lifecycle } from '../../build/core/edge/lifecycle.ts';
import type { VersionManifest } from '../../build/core/edge/version-manifest.ts';
import { formatProblems } from '../../build/core/errors.ts';
import { announceFromLive, compareWithLive, type LiveSite } from '../../build/core/versions/live-check.ts';
import { WITH_V2 } from '../fixtures/v2/serializer.ts';

// The 12-month arithmetic every lifecycle rule shares: the same day of the month and time, 12 calendar
// months later, in UTC; 29 February rolls over to 1 March, so the period is never shorter than promised.

const later = (iso: string) => isoSeconds(addMonths(new Date(iso), 12));

describe('12 months later', () => {
  it.each([
    ['2028-02-29T00:00:00Z', '2029-03-01T00:00:00Z'], // leap day: the next year has none
    ['2028-02-29T18:30:00Z', '2029-03-01T18:30:00Z'],
    ['2028-02-28T00:00:00Z', '2029-02-28T00:00:00Z'],
    ['2027-02-28T00:00:00Z', '2028-02-28T00:00:00Z'], // into a leap year: still the 28th
    ['2027-03-01T00:00:00Z', '2028-03-01T00:00:00Z'],
    ['2027-01-31T23:59:59Z', '2028-01-31T23:59:59Z'],
    ['2027-08-31T00:00:00Z', '2028-08-31T00:00:00Z'],
    ['2027-12-31T23:59:59Z', '2028-12-31T23:59:59Z'], // year end
  ])('%s → %s', (from, to) => {
    expect(later(from)).toBe(to);
  });

  it('is never shorter than 365 days, nor longer than 366, for every day of eight years', () => {
    const day = 86_400_000;
    for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2032, 0, 1); t += day) {
      const length = (addMonths(new Date(t), 12).getTime() - t) / day;
      expect([365, 366], new Date(t).toISOString()).toContain(length);
    }
  });
});

function resolve(v2Published: string, v1Sunset: string) {
  return resolveHeadersConfig(
    { versions: { v1: { published: '2025-01-15', sunset: v1Sunset }, v2: { published: v2Published } } },
    {
      file: 'headers.config.ts',
      now: new Date('2030-01-01T00:00:00Z'),
      serializers: WITH_V2,
      site: 'https://example.com/',
      documentation: 'https://example.com/docs/',
    },
  );
}

describe('sunset-min-12-months on the configured dates', () => {
  it('a successor published on 29 February: the earliest sunset is 1 March of the next year', () => {
    expect(() => resolve('2028-02-29', '2029-02-28T23:59:59Z')).toThrow(
      "v1's sunset 2029-02-28T23:59:59Z is earlier than 12 months after v2's publication (2028-02-29T00:00:00Z); the API promises to serve a superseded version for at least 12 months (rule: sunset-min-12-months)",
    );
    expect(() => resolve('2028-02-29', '2029-02-28T23:59:59Z')).toThrow(
      "set v1's sunset on or after 2029-03-01T00:00:00Z",
    );
    expect(resolve('2028-02-29', '2029-03-01').lifecycle.versions[0]?.sunset?.toISOString()).toBe(
      '2029-03-01T00:00:00.000Z',
    );
  });

  it('a date-time with a zone is compared in UTC: 29 February 23:30 at -02:00 is 1 March 01:30 UTC', () => {
    expect(() => resolve('2028-02-29T23:30:00-02:00', '2029-03-01T01:29:59Z')).toThrow(
      "set v1's sunset on or after 2029-03-01T01:30:00Z",
    );
    expect(() => resolve('2028-02-29T23:30:00-02:00', '2029-03-01T01:30:00Z')).not.toThrow();
  });

  it('a successor published on the last day of a 31-day month', () => {
    expect(() => resolve('2027-08-31', '2028-08-30T23:59:59Z')).toThrow('on or after 2028-08-31T00:00:00Z');
    expect(() => resolve('2027-08-31', '2028-08-31')).not.toThrow();
  });
});

describe('sunset-min-12-months from the day the live site first published the deprecation', () => {
  const base = 'https://example.com/';
  /** A live manifest deployed without the check (an older tool): its own sunset is already too early. */
  function liveSite(deprecatedAt: string, sunsetAt: string): LiveSite {
    const manifest: VersionManifest = {
      current: 'v2',
      current_url: `${base}api/v2/content.json`,
      documentation: `${base}docs/`,
      cache_control: { max_age: 300, stale_while_revalidate: 3600 },
      versions: [
        {
          version: 'v1',
          url: `${base}api/v1/content.json`,
          routes: ['/api/v1/content.json', '/api/v1/schema.json'],
          published_at: '2025-01-15T00:00:00Z',
          deprecated_at: deprecatedAt,
          sunset_at: sunsetAt,
          documentation: `${base}docs/`,
        },
        {
          version: 'v2',
          url: `${base}api/v2/content.json`,
          routes: ['/api/v2/content.json', '/api/v2/schema.json'],
          published_at: '2026-11-01T00:00:00Z',
          deprecated_at: null,
          sunset_at: null,
          documentation: `${base}docs/`,
        },
      ],
    };
    return { url: base, manifest, bodies: {} };
  }
  function check(live: LiveSite, sunset: string): string {
    const configured: Lifecycle = {
      versions: [
        {
          version: 'v1',
          published: new Date('2025-01-15T00:00:00Z'),
          deprecated: new Date('2026-11-01T00:00:00Z'), // the configured date, earlier than the live one
          sunset: new Date(sunset),
          documentation: `${base}docs/`,
        },
        { version: 'v2', published: new Date('2026-11-01T00:00:00Z'), documentation: `${base}docs/` },
      ],
      scheduled: [],
      cache: { maxAge: 300, staleWhileRevalidate: 3600 },
    };
    const now = new Date('2028-06-01T00:00:00Z');
    const lifecycle = announceFromLive(configured, live, now);
    expect(lifecycle.versions[0]?.deprecated).toEqual(
      new Date(live.manifest?.versions[0]?.deprecated_at ?? ''),
    );
    return formatProblems(
      compareWithLive(live, { lifecycle, bodies: {} }, { now, file: 'headers.config.ts' }),
    );
  }

  it('first published on 29 February: a sunset on 28 February of the next year is a day short', () => {
    const live = liveSite('2028-02-29T00:00:00Z', '2029-02-28T00:00:00Z');
    expect(check(live, '2029-02-28T12:00:00Z')).toBe(
      [
        "headers.config.ts: versions.v1.sunset: v1's sunset 2029-02-28T12:00:00Z is earlier than 12 months after the live site first published its deprecation (2028-02-29T00:00:00Z, https://example.com/api/versions.json) (rule: sunset-min-12-months)",
        "  hint: set v1's sunset on or after 2029-03-01T00:00:00Z",
      ].join('\n'),
    );
    expect(check(live, '2029-03-01T00:00:00Z')).toBe('');
  });

  it('first published on the last day of a month', () => {
    const live = liveSite('2027-08-31T09:00:00Z', '2028-08-01T00:00:00Z');
    expect(check(live, '2028-08-31T08:59:59Z')).toContain('on or after 2028-08-31T09:00:00Z');
    expect(check(live, '2028-08-31T09:00:00Z')).toBe('');
  });
});
