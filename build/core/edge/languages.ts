/** The languages content-index can publish; a site publishes these or some of them (`languages`). */
export const LANGUAGES = ['es', 'en', 'pt-br'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A count per language, every one at zero, as plain properties (a build counts items into them). */
export function languageCounts(): Record<Language, number> {
  return { es: 0, en: 0, 'pt-br': 0 };
}

/**
 * The canonical language unless the site names another (`canonicalLanguage`): its file is required, its
 * title and description go into the index body, and its address is the item's `url`.
 */
export const DEFAULT_CANONICAL_LANGUAGE: Language = 'es';

/**
 * The ContentItem field that carries an English or Portuguese page's address (docs/api.md, ContentItem),
 * whenever that page exists, the canonical one included. `url` is the canonical page's, whatever its
 * language; so a Spanish page that is not the canonical one has no field of its own in v1.
 */
export const URL_FIELD = { en: 'url_en', 'pt-br': 'url_pt' } as const satisfies Record<
  Exclude<Language, 'es'>,
  string
>;

/** The fields of an item that hold addresses, as `URL_FIELD` and `url` give them. */
export interface ItemAddresses {
  url: string;
  url_en?: string;
  url_pt?: string;
}

/** An item's page in `lang`, read off its address fields: undefined when it has none (or v1 cannot say). */
export function itemUrl(item: ItemAddresses, lang: Language, canonical: Language): string | undefined {
  if (lang === canonical) return item.url;
  return lang === 'es' ? undefined : item[URL_FIELD[lang]];
}

export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

/**
 * `EN`, `pt-BR` and `pt_br` are what authors write (and agents send); the index speaks `en` and `pt-br`.
 * The build reads languages in file names, folders and front matter this way, and the MCP tools their
 * `lang` argument.
 */
export function normalizeLanguage(value: string): Language | undefined {
  const code = value.toLowerCase().replace('_', '-');
  return isLanguage(code) ? code : undefined;
}

export const CONTENT_TYPES = ['post', 'project', 'tip'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** Plural keys used by `counts` and by the default content folders. */
export const PLURAL = { post: 'posts', project: 'projects', tip: 'tips' } as const satisfies Record<
  ContentType,
  string
>;
