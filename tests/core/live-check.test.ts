import { describe, expect, it } from 'vitest';
import type { Lifecycle } from '../../build/core/edge/lifecycle.ts';
import type { ManifestVersion } from '../../build/core/edge/version-manifest.ts';
import { announceFromLive, fieldPaths, type LiveSite } from '../../build/core/versions/live-check.ts';

const base = 'https://example.com/';

function lifecycle(v2Published: string): Lifecycle {
  return {
    versions: [
      {
        version: 'v1',
        published: new Date('2025-01-15T00:00:00Z'),
        deprecated: new Date(v2Published),
        sunset: new Date('2030-01-01T00:00:00Z'),
        documentation: `${base}docs/`,
      },
      { version: 'v2', published: new Date(v2Published), documentation: `${base}docs/` },
    ],
    scheduled: [],
    cache: { maxAge: 300, staleWhileRevalidate: 3600 },
  };
}

function live(v1: Partial<ManifestVersion> | null): LiveSite {
  if (!v1) return { url: base, manifest: null, bodies: {} };
  const entry: ManifestVersion = {
    version: 'v1',
    url: `${base}api/v1/content.json`,
    routes: [],
    published_at: '2025-01-15T00:00:00Z',
    deprecated_at: null,
    sunset_at: null,
    documentation: `${base}docs/`,
    ...v1,
  };
  return {
    url: base,
    manifest: {
      current: 'v1',
      current_url: entry.url,
      documentation: `${base}docs/`,
      cache_control: { max_age: 300, stale_while_revalidate: 3600 },
      versions: [entry],
    },
    bodies: {},
  };
}

const announced = (l: LiveSite, v2Published: string, now: string) =>
  announceFromLive(lifecycle(v2Published), l, new Date(now)).versions[0]?.deprecated?.toISOString();

describe('the day a deprecation is first published', () => {
  it('v1 still current on the live site: the day of this deploy, not a backdated configured date', () => {
    expect(announced(live({}), '2025-06-01', '2026-11-22T15:42:07Z')).toBe('2026-11-22T00:00:00.000Z');
  });

  it('the configured instant when it is later the same day', () => {
    expect(announced(live({}), '2026-11-22T09:00:00Z', '2026-11-22T15:42:07Z')).toBe(
      '2026-11-22T09:00:00.000Z',
    );
  });

  it('already deprecated on the live site: the live record, whatever the configuration now says', () => {
    const l = live({ deprecated_at: '2026-11-20T00:00:00Z', sunset_at: '2028-01-01T00:00:00Z' });
    expect(announced(l, '2026-06-01', '2027-01-10T00:00:00Z')).toBe('2026-11-20T00:00:00.000Z');
  });

  it('nothing live (a first deploy): the configured date', () => {
    expect(announced(live(null), '2026-06-01', '2026-11-22T15:42:07Z')).toBe('2026-06-01T00:00:00.000Z');
  });
});

describe('fieldPaths', () => {
  it('every key a body carries, items as [], with how many carry it; null values count as present', () => {
    const paths = fieldPaths({
      content: [{ url: 'a', image: 'i' }, { url: 'b' }],
      versions: { deprecation: null },
      languages: ['es', 'en'],
    });
    expect(Object.fromEntries(paths)).toEqual({
      content: 1,
      'content[]': 2,
      'content[].url': 2,
      'content[].image': 1,
      versions: 1,
      'versions.deprecation': 1,
      languages: 1,
      'languages[]': 2,
    });
  });
});
