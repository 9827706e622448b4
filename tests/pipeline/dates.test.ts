import { afterEach, describe, expect, it } from 'vitest';
import type { BuildReport } from '../../build/report.ts';
import { projectEntries } from '../helpers/mcp.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

let site: TempSite | undefined;
afterEach(() => site?.dispose());

// Nothing here is left out for being in the future: only the date's own validity is tested.
const FUTURE = ['--future'];

/** One fixture per impossible value, as YAML (unquoted and quoted), TOML and JSON write it. */
const IMPOSSIBLE: [string, string, string][] = [
  [
    'yaml-feb-30',
    md('title: A\ndate: 2025-02-30'),
    ':3: date: "2025-02-30" is not a calendar date: February 2025 has 28 days',
  ],
  [
    'yaml-month-13',
    md('title: A\ndate: 2025-13-01'),
    ':3: date: "2025-13-01" is not a calendar date: there is no month 13',
  ],
  [
    'yaml-hour-25',
    md('title: A\ndate: 2025-03-14T25:00:00Z'),
    ':3: date: "2025-03-14T25:00:00Z" is not a valid time: hours go from 00 to 23',
  ],
  [
    'yaml-year-0',
    md('title: A\ndate: 0000-01-01'),
    ':3: date: "0000-01-01" is not a calendar date: there is no year 0',
  ],
  ['yaml-quoted-feb-30', md("title: A\ndate: '2025-02-30'"), ':3: date: "2025-02-30" is not a calendar date'],
  [
    'yaml-quoted-24h',
    md("title: A\ndate: '2025-03-14T24:00:00Z'"),
    ':3: date: "2025-03-14T24:00:00Z" is not a valid time',
  ],
  [
    'yaml-leap-2100',
    md('title: A\ndate: 2100-02-29'),
    ':3: date: "2100-02-29" is not a calendar date: February 2100 has 28 days',
  ],
  [
    'toml-feb-30',
    '+++\ntitle = "A"\ndate = 2025-02-30\n+++\n',
    ':3: date: "2025-02-30" is not a calendar date: February 2025 has 28 days',
  ],
  [
    'toml-quoted-feb-30',
    '+++\ntitle = "A"\ndate = "2025-02-30"\n+++\n',
    ':3: date: "2025-02-30" is not a calendar date',
  ],
  [
    'toml-year-0',
    '+++\ntitle = "A"\ndate = 0000-01-01\n+++\n',
    ':3: date: "0000-01-01" is not a calendar date: there is no year 0',
  ],
  // smol-toml itself refuses these two: the TOML error, with its line.
  [
    'toml-month-13',
    '+++\ntitle = "A"\ndate = 2025-13-01\n+++\n',
    ':3: front matter is not valid TOML: invalid date',
  ],
  [
    'toml-hour-24',
    '+++\ntitle = "A"\ndate = 2025-03-14T24:00:00Z\n+++\n',
    ':3: front matter is not valid TOML: invalid date',
  ],
  ['toml-time-only', '+++\ntitle = "A"\ndate = 09:30:00\n+++\n', ':3: date: must be a date such as'],
  [
    'json-feb-30',
    '{\n  "title": "A",\n  "date": "2025-02-30"\n}\n',
    ':3: date: "2025-02-30" is not a calendar date: February 2025 has 28 days',
  ],
  [
    'json-24h',
    '{\n  "title": "A",\n  "date": "2025-03-14T24:00:00Z"\n}\n',
    ':3: date: "2025-03-14T24:00:00Z" is not a valid time',
  ],
];

describe('dates are validated as written', () => {
  it.each(IMPOSSIBLE)('refuses %s with its line', async (name, content, expected) => {
    site = await tempSite({ [`content/posts/${name}.es.md`]: content });
    const result = await site.cli('build', ...FUTURE);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`content/posts/${name}.es.md${expected}`);
  });

  it('publishes every accepted form of every format in one form: UTC, whole seconds', async () => {
    site = await tempSite({
      'content/posts/a.es.md': md('title: A\ndate: 2025-03-14'),
      'content/posts/b.es.md': md("title: B\ndate: '2025-03-13'"),
      'content/posts/c.es.md': md('title: C\ndate: 2025-03-12T09:30:00+02:00'),
      'content/posts/d.es.md': md('title: D\ndate: 2025-03-11 09:30'),
      'content/posts/e.es.md': md('title: E\ndate: "2025-03-10T09:30:00.250Z"'),
      'content/posts/f.es.md': '+++\ntitle = "F"\ndate = 2025-03-09\n+++\n',
      'content/posts/g.es.md': '+++\ntitle = "G"\ndate = 2025-03-08T23:30:00-03:00\n+++\n',
      'content/posts/h.es.md': '+++\ntitle = "H"\ndate = \'2025-03-07T09:30:00\'\n+++\n',
      'content/posts/i.es.md': '+++\ntitle = "I"\ndate = 2025-03-06 09:30:00 # a comment\n+++\n',
      'content/posts/j.es.md': '{ "title": "J", "date": "2025-03-05t09:30:00z" }\n',
      'content/posts/k.es.md': md('title: K\ndate: 2999-01-01'),
    });
    const result = await site.cli('build', '--json');
    expect(result.code).toBe(0);
    const entries = await projectEntries(site.root);
    expect(entries.map((e) => [e.item.title, e.date])).toEqual([
      ['A', '2025-03-14T00:00:00Z'],
      ['B', '2025-03-13T00:00:00Z'],
      ['C', '2025-03-12T07:30:00Z'],
      ['D', '2025-03-11T09:30:00Z'],
      ['E', '2025-03-10T09:30:00Z'],
      ['G', '2025-03-09T02:30:00Z'],
      ['F', '2025-03-09T00:00:00Z'],
      ['H', '2025-03-07T09:30:00Z'],
      ['I', '2025-03-06T09:30:00Z'],
      ['J', '2025-03-05T09:30:00Z'],
    ]);
    const index = await site.readJson<{ generated: string }>('api/v1/content.json');
    expect(index.generated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const report = JSON.parse(result.stdout) as BuildReport;
    expect(report.leftOut).toEqual([
      {
        file: 'content/posts/k.es.md',
        item: 'post/k',
        reason: 'future',
        date: '2999-01-01T00:00:00Z',
        url: 'https://example.com/blog/k/',
        wholeItem: true,
      },
    ]);
  });
});
