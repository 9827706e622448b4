import type { Problem } from '../errors.ts';
import { printable } from '../printable.ts';
import type { LiveSite } from './live-check.ts';

/**
 * Never emptied by accident: what a deploy would take off the live API. The live site's index (the
 * version both publish) is compared with the new one item by item; an item is kept when any of its
 * addresses (`url`, `url_en`, `url_pt`) is still published, so a page moved in one language is not a
 * removal. A whole section gone, or more than a tenth of the live items, is refused unless the operator
 * says so (`--allow-removals`): a content folder missing in CI, or a wrong `--content`, looks like that.
 */

/** More than this share of the live items gone is refused. */
export const MAX_REMOVED_SHARE = 0.1;

export interface RemovedItem {
  url: string;
  type: string;
  title: string;
}

export interface Removals {
  /** The version compared, when both publish one. */
  version?: string;
  liveItems: number;
  removed: RemovedItem[];
  problems: Problem[];
}

interface Item {
  type?: unknown;
  title?: unknown;
  url?: unknown;
  url_en?: unknown;
  url_pt?: unknown;
}

interface Body {
  content?: unknown;
  sections?: unknown;
}

export function liveRemovals(
  live: LiveSite,
  bodies: Readonly<Record<string, unknown>>,
  options: { allow: boolean; contentDir: string },
): Removals {
  // The newest version both publish: the one clients of the live site read today.
  const version = Object.keys(bodies)
    .filter((name) => live.bodies[name] !== undefined)
    .sort(byVersion)
    .at(-1);
  if (version === undefined) return { liveItems: 0, removed: [], problems: [] };
  const before = itemsOf(live.bodies[version]);
  const after = itemsOf(bodies[version]);
  const published = new Set(after.flatMap(addressesOf));
  const removed = before.filter((item) => !addressesOf(item).some((url) => published.has(url)));
  const result: Removals = {
    version,
    liveItems: before.length,
    removed: removed.map((item) => ({
      url: String(item.url),
      type: String(item.type),
      title: String(item.title),
    })),
    problems: [],
  };
  if (removed.length === 0 || options.allow) return result;

  const reasons: string[] = [];
  // A section empties when every live item of a type, or under a section's address, goes.
  const groups = new Map<string, { live: number; gone: number }>();
  const count = (key: string, gone: boolean) => {
    const group = groups.get(key) ?? { live: 0, gone: 0 };
    group.live++;
    if (gone) group.gone++;
    groups.set(key, group);
  };
  const sections = sectionsOf(live.bodies[version]);
  const gone = new Set(removed);
  for (const item of before) {
    count(`${String(item.type)}s`, gone.has(item));
    const section = sections.find((s) => typeof item.url === 'string' && item.url.startsWith(s.url));
    if (section) count(`section ${section.name} (${section.url})`, gone.has(item));
  }
  for (const [name, group] of groups) {
    if (group.gone === group.live) reasons.push(`every live item of ${name} (${group.live})`);
  }
  if (removed.length > before.length * MAX_REMOVED_SHARE) {
    reasons.push(
      `${removed.length} of the ${before.length} live items, more than ${Math.round(MAX_REMOVED_SHARE * 100)}%`,
    );
  }
  if (reasons.length === 0) return result;
  const listed = result.removed
    .slice(0, 5)
    .map((item) => printable(item.url))
    .join(', ');
  result.problems.push({
    code: 'removals_refused',
    file: options.contentDir,
    message: `this deploy would take ${reasons.join(' and ')} off the live API (/api/${version}/content.json): ${listed}${removed.length > 5 ? `, and ${removed.length - 5} more` : ''}; nothing was deployed`,
    hint: 'check that the content folder is all there (a git submodule checked out, the right --content); if these items are meant to go, deploy again with --allow-removals',
  });
  return result;
}

function itemsOf(body: unknown): Item[] {
  const content = (body as Body | undefined)?.content;
  return Array.isArray(content)
    ? content.filter((item): item is Item => typeof item === 'object' && item !== null)
    : [];
}

function sectionsOf(body: unknown): { name: string; url: string }[] {
  const sections = (body as Body | undefined)?.sections;
  if (!Array.isArray(sections)) return [];
  return sections.flatMap((s: { name?: unknown; url?: unknown }) =>
    typeof s?.name === 'string' && typeof s.url === 'string' ? [{ name: s.name, url: s.url }] : [],
  );
}

function addressesOf(item: Item): string[] {
  return [item.url, item.url_en, item.url_pt].filter((url): url is string => typeof url === 'string');
}

/** `v2` after `v1`, `v10` after `v9`. */
function byVersion(a: string, b: string): number {
  return Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || (a < b ? -1 : a > b ? 1 : 0);
}
