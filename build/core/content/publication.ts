import { readDate } from '../edge/dates.ts';
import type { Language } from '../edge/languages.ts';
import type { Problem } from '../errors.ts';
import type { FrontMatter } from './front-matter.ts';
import type { LeftOutReason, SourceFile } from './model.ts';

/**
 * Whether a page is published, decided as its site generator decides it. Every site: `draft` and a
 * `date` ahead of the build. A Hugo site (its configuration read by the CLI, build/runtime/hugo-rules.ts)
 * also: `publishDate` (and Hugo's other names for it), `expiryDate`, `_build` (and `build`, which Hugo
 * reads from 0.123 on), `headless` on a page bundle, and the languages Hugo publishes nothing in; with
 * the configuration's switches `buildDrafts`, `buildFuture` and `buildExpired` as the authority, as Hugo
 * 0.111 applies them (docs/authoring.md, Publication rules).
 */
export interface PublicationRules {
  /** Publish drafts (`--drafts`, or Hugo's `buildDrafts`). */
  drafts: boolean;
  /** Publish pages dated ahead (`--future`, or Hugo's `buildFuture`). */
  future: boolean;
  /** Hugo's page rules; absent for a site without Hugo, which keeps `draft` and `date` only. */
  hugo?: HugoPublication;
}

/** What a Hugo site's configuration says about publication (the CLI reads it: build/runtime/hugo-rules.ts). */
export interface HugoPublication {
  /** `buildDrafts`: publish drafts. */
  buildDrafts: boolean;
  /** `buildFuture`: publish pages whose publication date has not come. */
  buildFuture: boolean;
  /** `buildExpired`: publish pages whose `expiryDate` has passed. */
  buildExpired: boolean;
  /** The languages the Hugo configuration has (of es, en, pt-br), disabled ones included. */
  languages: readonly Language[];
  /** Languages Hugo publishes nothing in (`disableLanguages`, or `disabled` on the language). */
  disabledLanguages: readonly Language[];
  /** The Hugo configuration the switches come from, named in the report and in hints. */
  file: string;
}

/** Hugo's keys for a page's publication instant and expiry, in the order Hugo reads them (`frontmatter` defaults). */
const PUBLISH_KEYS = ['publishdate', 'pubdate', 'published'] as const;
const EXPIRY_KEYS = ['expirydate', 'unpublishdate'] as const;

export interface HugoPageFacts {
  /** When the page is published, in the published form: `publishDate`, else its date. */
  publishDate?: string;
  expiryDate?: string;
  /** `_build.render` is never or link (no page written). */
  unrendered: boolean;
  /** `_build.list` is never (listed in no page collection). */
  unlisted: boolean;
  /** A page bundle marked `headless: true` (no page written). */
  headless: boolean;
  /** A list page above it that Hugo does not publish (cascade.ts), which takes the page with it. */
  above?: UnpublishedBranch;
  problems: Problem[];
}

/** A list page (`_index.md`) Hugo does not publish: every page below it goes with it. */
export interface UnpublishedBranch {
  reason: Extract<LeftOutReason, 'draft' | 'future' | 'expired'>;
  date?: string;
  /** The list page's file. */
  file: string;
}

/** What Hugo reads about one page's publication, beyond `draft` and `date`; its dates checked as written. */
export function hugoPageFacts(file: SourceFile, data: FrontMatter): HugoPageFacts {
  const facts: HugoPageFacts = { unrendered: false, unlisted: false, headless: false, problems: [] };
  const raw = lowercased(file.data);
  if (!raw) return facts;
  const dateOf = (keys: readonly string[]): string | undefined => {
    const key = keys.find((k) => raw.has(k));
    if (key === undefined) return undefined;
    const { written, value } = raw.get(key) as { written: string; value: unknown };
    const date = typeof value === 'string' ? readDate(value) : undefined;
    if (date?.ok) return date.published;
    facts.problems.push({
      code: 'field_invalid',
      file: file.path,
      line: file.lines[written] ?? 1,
      field: written,
      message: date ? date.message : `must be a date, got ${JSON.stringify(value)}`,
      hint: 'write a date as 2025-03-14 or 2025-03-14T09:30:00+02:00 (Hugo stops on a date it cannot read too)',
    });
    return undefined;
  };
  const publishDate = dateOf(PUBLISH_KEYS) ?? data.date;
  if (publishDate !== undefined) facts.publishDate = publishDate;
  const expiryDate = dateOf(EXPIRY_KEYS);
  if (expiryDate !== undefined) facts.expiryDate = expiryDate;
  // `_build` is Hugo's name before 0.123 and still read after; `build` is read from 0.123 on.
  const build = raw.get('_build') ?? raw.get('build');
  const options = build && lowercased(build.value);
  if (options) {
    const render = optionValue(options.get('render')?.value);
    const list = optionValue(options.get('list')?.value);
    facts.unrendered = render === 'never' || render === 'link' || render === false;
    facts.unlisted = list === 'never' || list === false;
  }
  facts.headless = file.bundle === true && raw.get('headless')?.value === true;
  return facts;
}

/**
 * Why a file is left out, if it is, with the date that decides it. `now` is in the published form, which
 * sorts as time does.
 */
export function leftOutBecause(
  data: FrontMatter,
  hugo: HugoPageFacts | undefined,
  lang: Language,
  rules: PublicationRules,
  now: string,
): { reason: LeftOutReason; date?: string } | undefined {
  if (data.draft === true && !rules.drafts) return { reason: 'draft' };
  if (!rules.hugo || !hugo) {
    if (data.date && !rules.future && data.date > now) return { reason: 'future', date: data.date };
    return undefined;
  }
  if (rules.hugo.disabledLanguages.includes(lang)) return { reason: 'language-disabled' };
  if (hugo.above)
    return { reason: hugo.above.reason, ...(hugo.above.date !== undefined && { date: hugo.above.date }) };
  if (hugo.headless) return { reason: 'headless' };
  if (hugo.unrendered) return { reason: 'unrendered' };
  if (hugo.publishDate && !rules.future && hugo.publishDate > now)
    return { reason: 'future', date: hugo.publishDate };
  if (hugo.expiryDate && !rules.hugo.buildExpired && hugo.expiryDate <= now)
    return { reason: 'expired', date: hugo.expiryDate };
  if (hugo.unlisted) return { reason: 'unlisted' };
  return undefined;
}

/** Hugo's `_build` values: always, never, link, local, or the booleans of older sites. */
function optionValue(value: unknown): string | boolean | undefined {
  if (typeof value === 'string') return value.toLowerCase();
  return typeof value === 'boolean' ? value : undefined;
}

/** A mapping's keys without regard to case, as Hugo reads them: each with its spelling and value. */
function lowercased(value: unknown): Map<string, { written: string; value: unknown }> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out = new Map<string, { written: string; value: unknown }>();
  for (const [written, inner] of Object.entries(value)) {
    const key = written.toLowerCase();
    if (!out.has(key)) out.set(key, { written, value: inner });
  }
  return out;
}
