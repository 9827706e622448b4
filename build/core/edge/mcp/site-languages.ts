import { LANGUAGES, type Language } from '../languages.ts';
import type { McpSite } from './mcp-data.ts';
import type { JsonSchema } from './tool-schemas.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';

/**
 * What the MCP server says about languages and kinds, in the site's own: its instructions, its identity's
 * description, its tools' descriptions and the `lang` argument they take name exactly the languages the
 * site publishes, canonical first, never the three content-index can publish.
 */

const NAMES: Record<Language, string> = { es: 'Spanish', en: 'English', 'pt-br': 'Brazilian Portuguese' };
/** Each code in any case (`pt-BR`, `pt_br` too), as normalizeLanguage reads it. */
const PATTERNS: Record<Language, string> = {
  es: '[Ee][Ss]',
  en: '[Ee][Nn]',
  'pt-br': '[Pp][Tt][-_][Bb][Rr]',
};

export interface SiteLanguages {
  /** Canonical first, then the others in the order of LANGUAGES. */
  languages: Language[];
  canonical: Language;
  /** The kinds the site has (`posts`, `tips`), all three for an empty site or data without counts. */
  kinds: string[];
}

const KINDS = ['posts', 'projects', 'tips'] as const;

/** The site's languages as its MCP data says them (data without the list: all three, as before it), and its kinds. */
export function siteLanguages(
  site: Pick<McpSite, 'languages' | 'canonicalLanguage'>,
  counts?: Partial<Record<(typeof KINDS)[number], number>>,
): SiteLanguages {
  const canonical: Language = site.canonicalLanguage ?? 'es';
  const listed: readonly Language[] = site.languages ?? LANGUAGES;
  const present = KINDS.filter((kind) => (counts?.[kind] ?? 0) > 0);
  return {
    canonical,
    languages: [canonical, ...LANGUAGES.filter((l) => l !== canonical && listed.includes(l))],
    kinds: present.length > 0 ? present : [...KINDS],
  };
}

/** `es`, `es and en`, `es, en and pt-br`. */
export function listed(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** The server's `instructions`: what the index holds and in which languages. */
export function instructionsFor(site: SiteLanguages): string {
  const [, ...others] = site.languages;
  const kind =
    site.languages.length === 1
      ? `a site in ${site.canonical}`
      : `a ${site.languages.length === 2 ? 'bilingual' : 'trilingual'} site (${[`${site.canonical} canonical`, ...others].join(', ')})`;
  return `Read-only access to the content index of ${kind}. Use search_content to find items by topic, list_content to browse or filter them, content_stats for an overview.`;
}

/** The tools as this site's server lists them: their words and `lang` argument in the site's languages. */
export function siteTools(site: SiteLanguages): ToolDefinition[] {
  const codes = listed(site.languages);
  const names = listed(site.languages.map((lang) => NAMES[lang]));
  return TOOLS.map((tool) => ({
    ...tool,
    description: tool.description
      .replace('the posts, projects and tips of the site', `the ${listed(site.kinds)} of the site`)
      .replace('(es, en, pt-br)', `(${site.languages.join(', ')})`)
      .replace(
        'in Spanish, English and Brazilian Portuguese at once',
        site.languages.length === 1 ? `in ${names}` : `in ${names} at once`,
      ),
    inputSchema: languageArgument(tool.inputSchema, site, codes),
  }));
}

/** An input schema whose `lang` takes the site's languages only, and says which. */
function languageArgument(schema: JsonSchema, site: SiteLanguages, codes: string): JsonSchema {
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!defs?.LanguageArgument || !properties?.lang) return schema;
  const named = site.languages
    .map(
      (lang) =>
        `${lang} (${NAMES[lang]}${lang === site.canonical ? ', canonical' : ''}${lang === 'pt-br' ? '; pt-BR and pt_br too' : ''})`,
    )
    .join(', ');
  return {
    ...schema,
    properties: {
      ...properties,
      lang: {
        ...properties.lang,
        description: String(properties.lang.description ?? '').replace(
          /es, en or pt-br, in any case \(pt-BR too\)/,
          `${codes.replace(/ and /, ' or ')}, in any case${site.languages.includes('pt-br') ? ' (pt-BR too)' : ''}`,
        ),
      },
    },
    $defs: {
      ...defs,
      LanguageArgument: {
        ...defs.LanguageArgument,
        pattern: `^(${site.languages.map((lang) => PATTERNS[lang]).join('|')})$`,
        examples: [...site.languages],
        description: `Language code, in any case: ${named}. Answers always use the lower-case code.`,
      },
    },
  };
}
