import type { ContentLayout, ResolvedSection } from '../config/site-config.ts';
import type { Language } from '../edge/languages.ts';
import type { Problem } from '../errors.ts';
import type { BranchFile, ContentModel, LeftOutReason } from './model.ts';

/**
 * A Hugo section's list page exists only while the section holds a page Hugo publishes: once its last
 * item is a draft, expires or is taken away, Hugo writes no page at the section's address. The index
 * then leaves the section out of its `sections` (saying so), rather than publish an address that is no
 * page or stop a build over a state the site reaches on its own; the section comes back with its next
 * published item.
 */

export interface PublishedSections {
  /** The sections that hold a published item, with their place in the configuration (`sections.<i>`). */
  kept: { section: ResolvedSection; index: number }[];
  /** One warning per section left out, naming its files left out and why. */
  warnings: Problem[];
}

export function publishedSections(
  sections: readonly ResolvedSection[],
  model: ContentModel,
  options: {
    site: string;
    layout: ContentLayout;
    /** The content folder, relative to the project root (POSIX, `.` for the root itself). */
    contentDir: string;
    configFile: string;
    /** List pages Hugo writes no page for (cascade.ts unrenderedLists). */
    unrenderedLists?: readonly BranchFile[];
    canonicalLanguage?: Language;
  },
): PublishedSections {
  const sectionOf = (file: string) => hugoSection(file, options.contentDir, options.layout);
  const held = new Set<string>();
  const urls: string[] = [];
  for (const entry of model.entries) {
    for (const translation of Object.values(entry.translations)) {
      if (!translation) continue;
      const section = sectionOf(translation.file);
      if (section !== undefined) held.add(section);
      urls.push(translation.url);
    }
  }
  const kept: PublishedSections['kept'] = [];
  const warnings: Problem[] = [];
  sections.forEach((section, index) => {
    const folder = sectionFolder(options.site, section.url);
    // Not a section of the content folder this can tell (another origin, the site's root): kept as written.
    if (folder === undefined) {
      kept.push({ section, index });
      return;
    }
    const name = folder.split('/').pop()?.toLowerCase() ?? '';
    // Its list page in the canonical language (the section's address is that language's) not rendered.
    const unrendered = options.unrenderedLists?.find(
      (list) => list.dir.toLowerCase() === name && list.lang === options.canonicalLanguage,
    );
    if (unrendered) {
      warnings.push({
        code: 'address_dead',
        file: options.configFile,
        field: `sections.${index}.url`,
        message: `${section.name}'s list page ${unrendered.path} is not rendered (its _build.render, or one a cascade gives it, says never or link), so the site generator writes no page at ${section.url}: the index leaves the section out`,
        hint: 'nothing to do if that is expected; let Hugo render the list page to list the section again, or remove the section from site.config.ts',
      });
      return;
    }
    const prefix = new URL(`${folder}/`, options.site).href.toLowerCase();
    if (held.has(name) || urls.some((url) => url.toLowerCase().startsWith(prefix))) {
      kept.push({ section, index });
      return;
    }
    const left = model.leftOut.filter((l) => sectionOf(l.file) === name);
    const why =
      left.length === 0
        ? 'none of its content files is published'
        : `its files are left out: ${left
            .slice(0, 3)
            .map((l) => `${l.file} (${REASON[l.reason]})`)
            .join(', ')}${left.length > 3 ? ` and ${left.length - 3} more` : ''}`;
    warnings.push({
      code: 'address_dead',
      file: options.configFile,
      field: `sections.${index}.url`,
      message: `${section.name} holds no published item (${why}), so the site generator writes no page at ${section.url}: the index leaves the section out until it holds one`,
      hint: 'nothing to do if that is expected; publish one of its items to list the section again, or remove the section from site.config.ts',
    });
  });
  return { kept, warnings };
}

const REASON: Record<LeftOutReason, string> = {
  draft: 'a draft',
  future: 'dated in the future',
  expired: 'expired',
  unrendered: 'no page rendered',
  unlisted: 'listed nowhere',
  headless: 'headless',
  'language-disabled': 'language disabled',
  'no-canonical': 'no file in the canonical language',
};

/** The folder a section's address names, relative to the site (`posts`, `es/posts`); undefined for the site's root or another origin. */
function sectionFolder(site: string, url: string): string | undefined {
  const base = new URL(site);
  let address: URL;
  try {
    address = new URL(url, base);
  } catch {
    return undefined;
  }
  if (address.origin !== base.origin || !address.pathname.startsWith(base.pathname)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(address.pathname.slice(base.pathname.length));
  } catch {
    return undefined;
  }
  path = path.replace(/\/(?:index\.html?)?$/i, '').replace(/\.html?$/i, '');
  return path === '' ? undefined : path;
}

/** Hugo's section of a content file: its first folder below the content folder (and below its language's folder). */
function hugoSection(file: string, contentDir: string, layout: ContentLayout): string | undefined {
  const within = contentDir === '.' || contentDir === '' ? file : file.slice(contentDir.length + 1);
  if (contentDir !== '.' && contentDir !== '' && !file.startsWith(`${contentDir}/`)) return undefined;
  const segments = within.split('/');
  if (layout.language === 'folder' && Object.values(layout.languageFolders).includes(segments[0] ?? ''))
    segments.shift();
  return segments.length > 1 ? segments[0]?.toLowerCase() : undefined;
}
