import { type SiteConfig, siteDescription, siteName } from '../config/site-config.ts';
import type { ContentModel, Translation } from '../content/model.ts';
import { CONTENT_TYPES, type ContentType, type Language } from '../edge/languages.ts';
import { joinName, patchedJoin } from '../output/patched-join.ts';
import { addressOf, DISCOVERY_PATHS, indexPath } from './addresses.ts';
import { LLMS_STRINGS } from './llms-txt-strings.ts';
import { headingText, linkDestination, markdownText } from './markdown-text.ts';

export interface LlmsTxtContext {
  config: SiteConfig;
  /** The current API version, whose versioned route the file points to. */
  version: string;
  /** The kinds of content the site has (in any language). */
  present: readonly ContentType[];
  /** RenderContext's: the output folder whose last llms.txt this one is patched from. */
  outputs?: string;
}

/** One item's line in a language's llms.txt: that translation's title, address and description. */
export function llmsLine(translation: Translation): string {
  return linkLine(translation.title, translation.url, translation.description);
}

/**
 * The kinds the site has (a blog of posts alone is not "posts, projects and tips"), in the order of
 * CONTENT_TYPES; all three for an empty one. Every document that names kinds names these.
 */
export function siteKinds(model: ContentModel): ContentType[] {
  const present = CONTENT_TYPES.filter((type) => model.entries.some((entry) => entry.type === type));
  return present.length > 0 ? present : [...CONTENT_TYPES];
}

/**
 * One llms.txt (llmstxt.org) for `lang`: an H1 with the site name, a blockquote summary, a paragraph on
 * the API and the MCP server, one H2 per content type with a line per item that exists in `lang`
 * (`lines`: each type's items' {@link llmsLine}, in index order), and `## Optional` for secondary links.
 */
export function llmsTxt(
  lines: Readonly<Partial<Record<ContentType, readonly string[]>>>,
  lang: Language,
  ctx: LlmsTxtContext,
): string {
  const { config } = ctx;
  const text = LLMS_STRINGS[lang];
  const at = (path: string) => addressOf(config.site, path);
  const name = siteName(config, lang);
  // The kinds the site has (a blog of posts alone is not "posts, projects and tips"); all for an empty one.
  const kinds = ctx.present.length > 0 ? ctx.present : CONTENT_TYPES;
  const blocks: string[] = [
    `# ${headingText(name)}`,
    `> ${markdownText(siteDescription(config, lang) ?? text.summary(name, kinds))}`,
    text.usage(
      {
        index: at(indexPath(ctx.version)),
        openapi: at(DISCOVERY_PATHS.openapi),
        mcp: at(DISCOVERY_PATHS.mcp),
      },
      kinds,
      wordList(
        config.languages.map((other) => text.languageNames[other]),
        text.and,
      ),
    ),
    text.scope(config.canonicalLanguage),
  ];
  const sections = CONTENT_TYPES.flatMap((type) => {
    const items = lines[type] ?? [];
    // A section without lines is left out: it has nothing to list, and the one join below takes a
    // heading's blank lines from the lines around it.
    return items.length > 0 ? [{ heading: `## ${text.sections[type]}`, items }] : [];
  });
  const { optional } = text;
  const others = config.languages
    .filter((other) => other !== lang)
    .map((other) => {
      const [label, description] = optional.llms(text.languageNames[other]);
      return linkLine(label, at(config.llmsTxt[other] as string), description);
    });
  const tail = [
    '## Optional',
    [
      linkLine(optional.index[0], at(indexPath(ctx.version)), optional.index[1]),
      linkLine(optional.openapi[0], at(DISCOVERY_PATHS.openapi), optional.openapi[1]),
      linkLine(optional.aiPlugin[0], at(DISCOVERY_PATHS.aiPlugin), optional.aiPlugin[1]),
      linkLine(optional.docs[0], config.documentation, optional.docs[1]),
      ...others,
    ].join('\n'),
  ].join('\n\n');
  // Every line in one join, a section's heading with the blank lines around it as one piece: joined in
  // steps (each section, then the file, then its last line break) the text was copied whole at each
  // step, some 2 MB of new memory a language at 10,000 items, at every save of dev. Patched from the last
  // one: an edit changes one language's lines at most, and the others get their last text back, which
  // the write knows already.
  const pieces = [blocks.join('\n\n')];
  for (const { heading, items } of sections) {
    pieces.push(`\n${heading}\n`);
    for (const line of items) pieces.push(line);
  }
  pieces.push(`\n${tail}\n`);
  return patchedJoin(joinName(ctx.outputs, `llms.txt ${lang}`), pieces, '\n');
}

/** `español, inglés y portugués`: a list in one language's words. */
function wordList(words: readonly string[], and: (last: string) => string): string {
  const last = words.at(-1) ?? '';
  return words.length < 2 ? last : `${words.slice(0, -1).join(', ')} ${and(last)} ${last}`;
}

/** `- [title](url): description`, the llms.txt file-list line; the description is optional. */
export function linkLine(title: string, url: string, description?: string): string {
  const line = `- [${markdownText(title)}](${linkDestination(url)})`;
  const folded = description === undefined ? '' : markdownText(description);
  return folded ? `${line}: ${folded}` : line;
}
