export const LANGUAGES = ['es', 'en', 'pt-br'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Spanish is canonical: its file is required and its title and description go into the index body. */
export const CANONICAL_LANGUAGE: Language = 'es';

/** The ContentItem field that carries each translation's address (docs/api.md, ContentItem). */
export const URL_FIELD = { es: 'url', en: 'url_en', 'pt-br': 'url_pt' } as const satisfies Record<
  Language,
  string
>;

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
