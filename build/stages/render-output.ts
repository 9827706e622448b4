import { relative, resolve, sep } from 'node:path';
import { publishedSections } from '../core/content/section-items.ts';
import { CONTENT_TYPES, type ContentType } from '../core/edge/languages.ts';
import { ContentIndexError, type Problem } from '../core/errors.ts';

import { type Rendered, render } from '../core/output/render.ts';
import { validateIndex } from '../core/output/validate-index.ts';
import { compareWithLive, type LiveSite } from '../core/versions/live-check.ts';
import { liveRemovals, type Removals } from '../core/versions/removals.ts';
import { docsAssets } from './docs-assets.ts';
import type { Items } from './items.ts';
import type { Setup } from './setup.ts';
import { checkSitePages, type SitePagesCheck, type SitePagesOptions } from './site-pages.ts';

/**
 * The render stage: every output joined from the items' fragments (core/output/render.ts), then held
 * to the published schemas (each new item, and each body around its items), the manifest's schema and,
 * with the live site, its promises. Throws every problem found; nothing is written before this passes.
 */
export async function renderOutput(
  setup: Setup,
  items: Items,
  options: {
    now: Date;
    live?: LiveSite;
    allowDroppedFields?: readonly string[];
    allowRemovals?: boolean;
    /** Check the index against the site generator's pages (BuildOptions.sitePages). */
    sitePages?: 'error' | 'warn';
    /** Awaited before the site-pages check (BuildOptions.pagesReady). */
    pagesReady?: () => Promise<void>;
    /** BuildOptions.pagesPatienceMs. */
    pagesPatienceMs?: number;
    /** A Hugo site (BuildOptions.hugo): a section with no published item has no page of its own. */
    hugo?: unknown;
    /** dev (BuildOptions.publishFirst): its next save's joins are patched from this build's. */
    publishFirst?: boolean;
  },
): Promise<RenderedOutput> {
  const { root, config, serializers, lifecycle } = setup;
  const { now } = options;
  const contentDir = relative(root, setup.contentDir).split(sep).join('/') || '.';
  // A Hugo section with no published item has no page: left out of the published sections, said.
  const sections = options.hugo
    ? publishedSections(config.sections, items.model(), {
        site: config.site,
        layout: config.content,
        contentDir,
        configFile: setup.configPath,
        unrenderedLists: items.unrenderedLists,
        canonicalLanguage: config.canonicalLanguage,
      })
    : undefined;
  const published = sections
    ? { ...setup.plugin.config, sections: sections.kept.map((k) => k.section) }
    : setup.plugin.config;
  const notes: Problem[] = [...(sections?.warnings ?? [])];
  // Every file left out (all drafts, say): an empty index is published only with a word about it.
  if (items.items.length === 0 && items.leftOut.length > 0) {
    const count = items.leftOut.length;
    notes.push({
      code: 'content_missing',
      file: contentDir,
      message: `publishes no item: each of its ${count} content file${count === 1 ? ' is' : 's are'} left out (${[...new Set(items.leftOut.map((l) => l.reason))].join(', ')}), so the index is empty`,
      hint: 'the report lists each file and why; publish one (draft: false, a date that has come) to fill the index',
    });
  }
  const rendered = render(
    { items: items.items, leftOut: items.leftOut, model: items.model },
    {
      config: published,
      now,
      sources: await setup.sourceDates,
      lifecycle,
      serializers,
      author: setup.author,
      // The API reference's renderer comes from node_modules: read here, published by the pure render().
      assets: await docsAssets(config.apiReference.path),
      // Only where a next build in this process will patch them: a one-shot build's are not kept.
      ...(options.publishFirst && { outputs: setup.outDir }),
    },
  );
  // The new items' places in the index, found in one pass over it: a map of every item's, made for each
  // version, was some 5 ms of a dev save at 10,000 items.
  const place = placesOf(
    items.items,
    items.fresh.map((f) => f.fragments),
  );
  const invalid = Object.entries(rendered.bodies).flatMap(([version, body]) => {
    const schema = serializers[version]?.schema;
    if (body.value) {
      const entries = items.model().entries;
      return validateIndex(version, body.value, (i) => entries[i]?.canonical.file, schema);
    }
    if (!body.envelope) return [];
    // Kept items were checked when they were made; the body is checked with the new ones in its list.
    const fresh = items.fresh
      .filter((f) => version in f.values)
      .sort((a, b) => (place.get(a.fragments) ?? 0) - (place.get(b.fragments) ?? 0));
    const checked = { ...body.envelope.body, [body.envelope.items]: fresh.map((f) => f.values[version]) };
    const found = validateIndex(version, checked, (i) => fresh[i]?.fragments.facts.file, schema);
    if (found.length === 0) return found;
    // Named by the item's place in the whole body, as a build of every item names it.
    const prefix = `${body.envelope.items}.`;
    return found.map((problem) => {
      const field = problem.field ?? '';
      const match = field.startsWith(prefix) ? /^(\d+)(.*)$/.exec(field.slice(prefix.length)) : null;
      const item = match ? fresh[Number(match[1])]?.fragments : undefined;
      const at = item && place.get(item);
      return at === undefined || !match ? problem : { ...problem, field: `${prefix}${at}${match[2]}` };
    });
  });
  // The new items' values were kept for this check alone.
  items.fresh.splice(0);
  invalid.push(...rendered.manifestProblems);
  let removals: Removals | undefined;
  if (options.live) {
    const bodies = Object.fromEntries(
      Object.entries(rendered.bodies).map(([version, body]) => [version, JSON.parse(body.text) as object]),
    );
    removals = liveRemovals(options.live, bodies, {
      allow: options.allowRemovals ?? false,
      contentDir: relative(root, setup.contentDir) || '.',
    });
    invalid.push(...removals.problems);
    invalid.push(
      ...compareWithLive(
        options.live,
        { lifecycle, bodies },
        {
          now,
          file: relative(root, resolve(root, setup.headersFile)),
          ...(options.allowDroppedFields && { allowDroppedFields: options.allowDroppedFields }),
        },
      ),
    );
  }
  if (invalid.length > 0) throw new ContentIndexError(invalid);
  const sectionFields = sections?.kept.map((k) => `sections.${k.index}.url`);
  const pages = await witnessed(setup, items, rendered, { ...options, config: published, sectionFields });
  return {
    ...rendered,
    ...(removals && { removals }),
    ...pages,
    warnings: [...notes, ...pages.warnings],
  };
}

export interface RenderedOutput extends Rendered {
  /** With the live site: the live items this build's index no longer holds. */
  removals?: Removals;
  /** The index against the site generator's pages, and the pages' stamp when they were read. */
  sitePages: SitePagesCheck;
  pagesStamp?: string;
  /** Dead addresses, in `warn` mode. */
  warnings: Problem[];
}

/** The index against the site generator's pages in the output folder (stages/site-pages.ts), when asked. */
async function witnessed(
  setup: Setup,
  items: Items,
  rendered: Rendered,
  options: {
    sitePages?: 'error' | 'warn';
    pagesReady?: () => Promise<void>;
    pagesPatienceMs?: number;
    /** The configuration as published (a Hugo section with no item left out). */
    config: Setup['config'];
    sectionFields: readonly string[] | undefined;
  },
): Promise<Pick<RenderedOutput, 'sitePages' | 'pagesStamp' | 'warnings'>> {
  const warnings: Problem[] = [];
  if (!options.sitePages) {
    return {
      sitePages: {
        ran: false,
        why: 'no site generator (Hugo, Astro) in this project: there are no pages of its own to check the index against',
      },
      warnings,
    };
  }
  await options.pagesReady?.();
  // Worked out once: the check may run again below, on the same index.
  const pagesOptions: SitePagesOptions = {
    root: setup.root,
    outDir: setup.outDir,
    config: options.config,
    configFile: setup.configPath,
    ...(options.sectionFields && { sectionFields: options.sectionFields }),
    branches: items.branches,
    // The types the site has (a file of it, published or left out): another type's default route says nothing.
    present: CONTENT_TYPES.filter(
      (type: ContentType) =>
        items.items.some(({ facts }) => facts.type === type) ||
        items.leftOut.some((left) => left.item.split('/')[0] === type),
    ),
    translations: items.items.flatMap(({ facts }) =>
      facts.urls.map((url, i) => ({ url, file: facts.files[i] ?? facts.file })),
    ),
    leftOut: items.leftOut,
    ownPaths: new Set(rendered.files.map((file) => file.path)),
    mode: options.sitePages,
    warn: (problems) => warnings.push(...problems),
  };
  let result = await checkSitePages(pagesOptions);
  // dev --hugo: a file the watcher has not reported yet can be read here before Hugo has built its page
  // (a rename's second event); its address is dead only until Hugo's next build, so look again a while.
  const patience = Date.now() + (options.pagesPatienceMs ?? 0);
  while (result.ran && result.deadWarnings > 0 && Date.now() < patience) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    warnings.length = 0;
    result = await checkSitePages(pagesOptions);
  }
  const { stamp, ...sitePages } = result;
  return { sitePages, pagesStamp: stamp, warnings };
}

/** Where each of `wanted` stands in `all`. */
function placesOf<T>(all: readonly T[], wanted: readonly T[]): Map<T, number> {
  // Most of them (a build from nothing): every item's place.
  if (wanted.length * 4 > all.length) return new Map(all.map((item, i) => [item, i]));
  const place = new Map<T, number>();
  if (wanted.length === 0) return place;
  const look = new Set(wanted);
  for (let i = 0; i < all.length && place.size < look.size; i++) {
    const item = all[i] as T;
    if (look.has(item)) place.set(item, i);
  }
  return place;
}
