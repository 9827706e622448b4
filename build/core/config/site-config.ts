import { type ContentType, DEFAULT_CANONICAL_LANGUAGE, LANGUAGES, type Language } from '../edge/languages.ts';
import type { UrlStyle } from './route-pattern.ts';

/** `aiPlugin` in `site.config.ts`: every key optional. */
export interface AiPluginInput {
  /** At most 20 characters. Default: `name`, else the site's host. */
  nameForHuman?: string;
  /** At most 50 letters, digits and underscores. Default: `name` folded to ASCII snake case. */
  nameForModel?: string;
  /** At most 100 characters. Default: `description`, shortened at a word to fit. */
  descriptionForHuman?: string;
  /** At most 8,000 characters. Default: a description of the API and the MCP server. */
  descriptionForModel?: string;
  /**
   * Absolute, or relative to the site. Default: the site's own logo, the first of `/logo.png`,
   * `/logo.svg`, `/images/logo.png`… (then favicons) it serves; with none, `/logo.png` and a warning.
   */
  logoUrl?: string;
  /** Default: `webmaster@<site host>` (the mailbox RFC 2142 reserves for web services), with a warning. */
  contactEmail?: string;
  /** Absolute, or relative to the site. Default: the API reference page (`/docs/`), which states the terms of use. */
  legalInfoUrl?: string;
}

/** Every value filled in; addresses absolute. */
export type AiPluginConfig = Required<AiPluginInput>;

export type RoutePatterns = Record<ContentType, Record<Language, string>>;

/**
 * How a file's language is known: `suffix` (Hugo: `name.en.md`, `name/index.en.md`), `folder`
 * (Astro i18n: `blog/en/name.md`) or `field` (a front-matter key such as `lang: en`).
 */
export type LanguageRule = 'suffix' | 'folder' | 'field';

export interface ContentLayoutInput {
  /** Folder the globs are relative to. Default `content`; the CLI's --content overrides it. */
  dir?: string;
  /** Globs per type. Default: `posts/**`, `projects/**`, `tips/**` (Markdown files). */
  types?: Partial<Record<ContentType, string | string[]>>;
  /** Default `suffix`. */
  language?: LanguageRule;
  /** Front-matter key for the `field` rule. Default `lang`. */
  languageField?: string;
  /** Folder name of each language for the `folder` rule. Default: the language code. */
  languageFolders?: Partial<Record<Language, string>>;
  /**
   * The suffix of each language under the `suffix` rule, as Hugo's language keys are (`name.pt.md`:
   * `{ es: 'es', en: 'en', 'pt-br': 'pt' }`). When set it is the whole list, as in Hugo: any other suffix
   * is part of the file name (`charla.api.md` is the page `charla.api`). Default: each language by its
   * code, and another suffix that looks like a language is an error.
   */
  languageSuffixes?: Partial<Record<Language, string>>;
  /**
   * Suffixes of the site's other languages, which content-index does not publish (a Hugo site's `fr`):
   * their files are left out.
   */
  skipLanguages?: string[];
  /**
   * The language of a file that names none (no suffix, no language folder, no language field). Default:
   * the canonical language (`canonicalLanguage`), as Hugo reads a file without a suffix as its
   * `defaultContentLanguage`.
   */
  defaultLanguage?: Language;
  /**
   * An item without a file in the canonical language: `error` (the default) stops the build naming
   * each such file; `leave-out` leaves it out of the index, named in the build report with its files.
   * A site whose pages are not all translated (Hugo publishes an English page with no Spanish one at
   * its own address) chooses `leave-out`; v1 has no item without a canonical address.
   */
  withoutCanonical?: WithoutCanonical;
}

export type WithoutCanonical = 'error' | 'leave-out';

export interface ContentLayout {
  dir: string;
  types: Record<ContentType, string[]>;
  language: LanguageRule;
  languageField: string;
  languageFolders: Record<Language, string>;
  /** Undefined: every language by its code. */
  languageSuffixes?: Partial<Record<Language, string>>;
  skipLanguages: string[];
  defaultLanguage: Language;
  withoutCanonical: WithoutCanonical;
}

export const DEFAULT_LAYOUT: ContentLayout = {
  dir: 'content',
  types: {
    post: ['posts/**/*.{md,markdown,mdx}'],
    project: ['projects/**/*.{md,markdown,mdx}'],
    tip: ['tips/**/*.{md,markdown,mdx}'],
  },
  language: 'suffix',
  languageField: 'lang',
  languageFolders: { es: 'es', en: 'en', 'pt-br': 'pt-br' },
  skipLanguages: [],
  defaultLanguage: DEFAULT_CANONICAL_LANGUAGE,
  withoutCanonical: 'error',
};

export interface SectionInput {
  name: string;
  /** Absolute, or relative to the site address. */
  url: string;
}

/** What an author writes in `site.config.ts`. */
export interface SiteConfigInput {
  /** Address of the site, e.g. `https://example.com/`. Env: CONTENT_INDEX_SITE_URL. */
  site: string;
  /** Base address of the image host; relative `image` values resolve against it. Env: CONTENT_INDEX_IMAGE_BASE_URL. */
  images: string;
  /**
   * The languages the site publishes, of `es`, `en` and `pt-br`. Default: all three. The index, the
   * `llms.txt` files, the manifest and the OpenAPI text offer exactly these; a file in another language
   * is an error (or left out with `content.skipLanguages`).
   */
  languages?: Language[];
  /**
   * The language every item is published in: its file is required (see `content.withoutCanonical`), its
   * title and description are the index's, its address is `url`, and its `llms.txt` is `/llms.txt`.
   * Default `es`. A Hugo site's is its `defaultContentLanguage` (`init` writes it).
   */
  canonicalLanguage?: Language;
  /**
   * Where each other language's pages live on the site, a folder from `/` to `/` such as `/en/`: its
   * `llms.txt` is published there. Default: `/<code>/` (`/en/`, `/pt-br/`), Hugo's language prefix.
   */
  languagePaths?: Partial<Record<Language, string>>;
  /** The site's name: one for every language, or one per language (the canonical one required, the others default to it). */
  name?: LocalizedText;
  /**
   * The site's description. A plain string is the canonical language's: the other languages' `llms.txt`
   * then open with a summary in their own language. Give one per language to choose those too.
   */
  description?: LocalizedText;
  /** The API's licence in `/openapi.json`. Default: the site's terms of use at `aiPlugin.legalInfoUrl`. */
  license?: LicenseInput;
  /** Address of the human documentation. Default: the API reference page (`apiReference`). */
  documentation?: string;
  /**
   * Where the build writes the API reference page (`index.html` and its renderer), a folder on the site
   * such as `/api-docs/`. Every document links to it, and each problem `type` is an anchor on it.
   * Default `/docs/`: move it when the site has a `/docs/` of its own.
   */
  apiReference?: string;
  sections?: SectionInput[];
  /**
   * Per type and language, the address of a page: relative to the site address (or absolute), with
   * tokens such as `{slug}`, `{path}` or `{year}` (docs/configuration.md, Routes). Missing entries use
   * defaults.
   */
  routes?: Partial<Record<ContentType, Partial<Record<Language, string>>>>;
  /**
   * How routes turn values into addresses: `as-written` (default; values percent-encoded as they are) or
   * `hugo` (the path made as Hugo makes it: lowercase, spaces to hyphens, and the front matter's `url`).
   */
  urls?: { style?: UrlStyle['style']; lowercase?: boolean; removeAccents?: boolean };
  /** Values of `/.well-known/ai-plugin.json`; each has a default derived from the rest of the configuration. */
  aiPlugin?: AiPluginInput;
  /** Where the content is and how its language is told, for existing Hugo or Astro trees. */
  content?: ContentLayoutInput;
  /**
   * A folder of your own files (robots.txt, a logo) published into the output folder as they are, like
   * Hugo's `static/`. Leave it unset in a site whose generator already copies that folder.
   */
  static?: string;
  /**
   * The folders your site generator copies into the output folder as they are: Hugo's `static/` (its
   * `staticDir`), Astro's `public/`. A `_headers` or `_redirects` there reaches the output through the
   * generator; the build merges its rules with the API's, after those of the project root's file, and
   * writes the merged file over the generator's copy (which it recognises by its bytes), build after
   * build. `init` sets it from the generator's configuration. Default: none.
   */
  generatorStatic?: string | string[];
  /** The MCP server at `/mcp`. */
  mcp?: McpConfigInput;
  /**
   * Write `index.html` at the root of the output folder: a page listing what is served (the API
   * addresses, `/docs/`, `/mcp`, the `llms.txt` files). Default `false`: a site's own home page is never
   * replaced, and the build stops rather than overwrite an `index.html` it did not write.
   */
  landingPage?: boolean;
  /**
   * The Cloudflare plan the site is deployed on (`free` or `paid`, Workers Paid): it sets the limits the
   * build checks (files per deployment, Worker size). Default `free`.
   */
  plan?: CloudflarePlan;
}

/** A text for every language, or one per language with the canonical language's required. */
export type LocalizedText = string | Partial<Record<Language, string>>;

/** OpenAPI's License Object: a name, and an SPDX `identifier` or a `url`. */
export interface LicenseInput {
  name: string;
  identifier?: string;
  /** Absolute, or relative to the site. */
  url?: string;
}

export type CloudflarePlan = 'free' | 'paid';

/**
 * Where `/mcp` reads the index from: `embedded` (bundled into the Function; the default, for sites
 * that fit one isolate), `d1` (Cloudflare D1, for large sites) or `auto` (embedded while it fits the
 * plan's limits, D1 past them).
 */
export type McpBackendName = 'embedded' | 'd1' | 'auto';

export interface McpConfigInput {
  /**
   * Host names (no scheme, no port) the MCP endpoint answers for besides the site's own host, its Pages
   * project's (`<name>.pages.dev` and `*.<name>.pages.dev`, from wrangler.toml) and loopback, e.g. a
   * second domain, or `*.staging.example.org`. Any other `Host` is refused (DNS-rebinding defence).
   */
  allowedHosts?: string[];
  /** Default `embedded`. */
  backend?: McpBackendName;
  /** The D1 database of the `d1` backend, as bound in wrangler.toml. */
  d1?: { database?: string; binding?: string };
  /**
   * Whether `search_content` searches each item's Markdown body besides its title, description and
   * tags (default `true`). `false`: the build reads only the files' front matter, and the index is
   * smaller (a site stays embedded longer; see docs/mcp.md).
   */
  bodies?: boolean;
}

export const DEFAULT_D1 = { database: 'content-index', binding: 'CONTENT_INDEX_DB' } as const;

export interface ResolvedSection {
  name: string;
  url: string;
}

/** The configuration after defaults, environment overrides and normalisation. */
export interface SiteConfig {
  /** Always ends with `/`. */
  site: string;
  /** Always ends with `/`. */
  images: string;
  /** The languages the site publishes: the canonical one first, then the others in the order es, en, pt-br. */
  languages: Language[];
  canonicalLanguage: Language;
  /**
   * Each published language's `llms.txt`, relative to the site (`llms.txt` for the canonical language,
   * `en/llms.txt`…), where its pages live.
   */
  llmsTxt: Partial<Record<Language, string>>;
  /** The canonical language's name: the one of content.json, the OpenAPI title and the MCP server. */
  name?: string;
  /** The canonical language's description. */
  description?: string;
  /** Each language's name and description, for the documents written in that language (llms.txt). */
  perLanguage: Record<Language, { name?: string; description?: string }>;
  /** `identifier` and `url` are exclusive (OpenAPI); `url` is absolute. */
  license: { name: string; identifier?: string; url?: string };
  documentation: string;
  /** The API reference page: its folder in the output (`docs/`, relative, ends with `/`) and its address. */
  apiReference: { path: string; url: string };
  sections: ResolvedSection[];
  routes: RoutePatterns;
  urls: UrlStyle;
  aiPlugin: AiPluginConfig;
  /** The `aiPlugin` values the configuration left to their defaults (the build says so when it matters). */
  aiPluginDefaulted: (keyof AiPluginInput)[];
  content: ContentLayout;
  /** Relative to the project root; unset: none. */
  static?: string;
  /** Relative to the project root, in the order given; empty: none. */
  generatorStatic: string[];
  mcp: {
    allowedHosts: string[];
    backend: McpBackendName;
    d1: { database: string; binding: string };
    bodies: boolean;
  };
  landingPage: boolean;
  plan: CloudflarePlan;
}

/** Each type's section in each language's words, the folder of its pages in the default routes. */
const SECTION_WORDS: RoutePatterns = {
  post: { es: 'blog', en: 'blog', 'pt-br': 'blog' },
  project: { es: 'proyectos', en: 'projects', 'pt-br': 'projetos' },
  tip: { es: 'consejos', en: 'tips', 'pt-br': 'dicas' },
};

/**
 * The routes of a site that sets none: the canonical language's pages at the root (`/blog/{slug}/`), the
 * others under their language's folder (`/en/blog/{slug}/`), in each language's words.
 */
export function defaultRoutes(canonical: Language = DEFAULT_CANONICAL_LANGUAGE): RoutePatterns {
  const routes = {} as RoutePatterns;
  for (const [type, words] of Object.entries(SECTION_WORDS) as [ContentType, Record<Language, string>][]) {
    routes[type] = {} as Record<Language, string>;
    for (const lang of LANGUAGES) {
      routes[type][lang] = `${lang === canonical ? '' : `/${lang}`}/${words[lang]}/{slug}/`;
    }
  }
  return routes;
}

/** The routes of the default site, Spanish canonical. */
export const DEFAULT_ROUTES: RoutePatterns = defaultRoutes();

/** The site's name for titles and headings in `lang` (default: the canonical language): the configured one, or its host name. */
export function siteName(
  config: Pick<SiteConfig, 'name' | 'site'> & {
    perLanguage?: SiteConfig['perLanguage'];
    canonicalLanguage?: Language;
  },
  lang: Language = config.canonicalLanguage ?? DEFAULT_CANONICAL_LANGUAGE,
): string {
  return config.perLanguage?.[lang].name ?? config.name ?? new URL(config.site).host;
}

/** The site's description written in `lang`, when the configuration has one. */
export function siteDescription(config: Pick<SiteConfig, 'perLanguage'>, lang: Language): string | undefined {
  return config.perLanguage[lang].description;
}

/** Identity helper that gives `site.config.ts` type checking and editor completion. */
export function defineSite(config: SiteConfigInput): SiteConfigInput {
  return config;
}

/** Environment variables that override the configuration, for preview deployments. */
export const SITE_ENV = {
  site: 'CONTENT_INDEX_SITE_URL',
  images: 'CONTENT_INDEX_IMAGE_BASE_URL',
} as const;

export type Env = Readonly<Record<string, string | undefined>>;

export function withTrailingSlash(address: string): string {
  return address.endsWith('/') ? address : `${address}/`;
}

/**
 * Resolves `path` (absolute or relative to the site) against the site address. A leading `/` is taken
 * as "the site root", which keeps a site published under a sub-path (`https://host/blog/`) working.
 */
export function siteUrl(site: string, path: string): string {
  if (SCHEME.test(path)) return new URL(path).href;
  const relative = path.replace(/^\/+/, '');
  // Every translation's address comes through here: a path the URL parser would leave as it is (no
  // character it encodes, no dot segment) after a site address it would leave as it is, is joined as
  // text. tests/core/site-url.test.ts holds this to the parser.
  // `/a:` without its slash reads as a scheme to the parser: such a path is left to it.
  if (
    PLAIN_PATH.test(relative) &&
    !DOT_SEGMENT.test(relative) &&
    !SCHEME.test(relative) &&
    isNormalSite(site)
  )
    return site + relative;
  return new URL(relative, site).href;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
// `%2e` is a dot to the parser too.
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;
const NORMAL_SITES = new Map<string, boolean>();

function isNormalSite(site: string): boolean {
  let normal = NORMAL_SITES.get(site);
  if (normal === undefined) {
    try {
      const url = new URL(site);
      normal = url.href === site && site.endsWith('/') && url.search === '' && url.hash === '';
    } catch {
      normal = false;
    }
    if (NORMAL_SITES.size > 100) NORMAL_SITES.clear();
    NORMAL_SITES.set(site, normal);
  }
  return normal;
}
