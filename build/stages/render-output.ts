import { relative, resolve } from 'node:path';
import { ContentIndexError, type Problem } from '../core/errors.ts';

import { type Rendered, render } from '../core/output/render.ts';
import { validateIndex } from '../core/output/validate-index.ts';
import { compareWithLive, type LiveSite } from '../core/versions/live-check.ts';
import { liveRemovals, type Removals } from '../core/versions/removals.ts';
import { docsAssets } from './docs-assets.ts';
import type { Items } from './items.ts';
import type { Setup } from './setup.ts';
import { checkSitePages, type SitePagesCheck } from './site-pages.ts';

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
  },
): Promise<RenderedOutput> {
  const { root, config, serializers, lifecycle } = setup;
  const { now } = options;
  const rendered = render(
    { items: items.items, leftOut: items.leftOut, model: items.model },
    {
      config: setup.plugin.config,
      now,
      sources: await setup.sourceDates,
      lifecycle,
      serializers,
      author: setup.author,
      // The API reference's renderer comes from node_modules: read here, published by the pure render().
      assets: await docsAssets(config.apiReference.path),
    },
  );
  const invalid = Object.entries(rendered.bodies).flatMap(([version, body]) => {
    const schema = serializers[version]?.schema;
    if (body.value) {
      const entries = items.model().entries;
      return validateIndex(version, body.value, (i) => entries[i]?.canonical.file, schema);
    }
    if (!body.envelope) return [];
    // Kept items were checked when they were made; the body is checked with the new ones in its list.
    const place = new Map(items.items.map((item, i) => [item, i]));
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
  return {
    ...rendered,
    ...(removals && { removals }),
    ...(await witnessed(setup, items, rendered, options)),
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
  options: { sitePages?: 'error' | 'warn' },
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
  const { stamp, ...sitePages } = await checkSitePages({
    root: setup.root,
    outDir: setup.outDir,
    config: setup.config,
    configFile: setup.configPath,
    translations: items.items.flatMap(({ facts }) =>
      facts.urls.map((url, i) => ({ url, file: facts.files[i] ?? facts.file })),
    ),
    leftOut: items.leftOut,
    ownPaths: new Set(rendered.files.map((file) => file.path)),
    mode: options.sitePages,
    warn: (problems) => warnings.push(...problems),
  });
  return { sitePages, pagesStamp: stamp, warnings };
}
