import type { AiPluginInput, ContentLayoutInput, SiteConfigInput } from '../core/config/site-config.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language } from '../core/edge/languages.ts';
import aiPluginSchema from '../schemas/ai-plugin.schema.json' with { type: 'json' };
import type { HugoLanguage, HugoSettings } from './hugo-config.ts';

/**
 * What `init` writes into site.config.ts for a Hugo site, worked out from its configuration and its
 * content folder: which sections are posts, projects and tips, which files are which language, and the
 * address Hugo gives each page. Pure. Whatever it had to assume, or could not reproduce, it says in
 * `notes` (printed) and `todos` (comments beside the route).
 */

/** Hugo's sections (top folders of the content folder) that are a content type, by name. */
export const SECTION_TYPES: Record<ContentType, readonly string[]> = {
  post: ['posts', 'post', 'blog', 'articles', 'articulos', 'artigos'],
  project: ['projects', 'project', 'proyectos', 'projetos'],
  tip: ['tips', 'tip', 'consejos', 'dicas'],
};

export interface HugoSetup {
  site?: string;
  name?: SiteConfigInput['name'];
  /** From `params.description`, per language where Hugo has one. */
  description?: SiteConfigInput['description'];
  /** ai-plugin.json's values Hugo's configuration gives, made valid (a long title shortened). */
  aiPlugin: AiPluginInput;
  /** Said beside aiPlugin in site.config.ts (what was shortened, from what). */
  aiPluginComments: string[];
  /** Hugo's static folders, which it copies into the output (their _headers and _redirects are merged). */
  generatorStatic: string[];
  /** The logo found in them (`static/logo.png`), which the build takes with no setting. */
  servedLogo?: string;
  /** The languages Hugo publishes (of es, en, pt-br), the default one first. */
  languages: Language[];
  /** Hugo's default language: the index's canonical one. */
  canonicalLanguage: Language;
  /** Where a language's pages are when its Hugo key is not its code (`pt` → `/pt/`). */
  languagePaths?: Partial<Record<Language, string>>;
  out: string;
  content: ContentLayoutInput;
  routes: Partial<Record<ContentType, Partial<Record<Language, string>>>>;
  urls: NonNullable<SiteConfigInput['urls']>;
  /** Route → why it is not exactly what Hugo serves; written as a TODO comment beside it. */
  todos: Partial<Record<ContentType, Partial<Record<Language, string>>>>;
  /** Section → type, for the comment that says what was assumed. */
  mapped: Record<string, ContentType>;
  /** Sections no type matches. */
  unmapped: string[];
  /** The published sections' list pages in the default language (the index's `sections`). */
  sections: { name: string; url: string }[];
  /** What init assumed or could not do, one sentence each. */
  notes: string[];
}

export type HugoSetupResult = { ok: true; setup: HugoSetup } | { ok: false; message: string; hint: string };

const EXTENSIONS = '**/*.{md,markdown,mdx}';

/** A Hugo language key (lowercased, as Hugo keeps it) as one of the languages content-index publishes. */
export function languageOfKey(key: string): Language | undefined {
  if (key === 'es' || key.startsWith('es-') || key.startsWith('es_')) return 'es';
  if (key === 'en' || key.startsWith('en-') || key.startsWith('en_')) return 'en';
  if (key === 'pt' || key === 'pt-br' || key === 'pt_br') return 'pt-br';
  return undefined;
}

/**
 * @param sections the top folders of each content folder Hugo reads (`content` → `['posts', 'about']`),
 *   keyed by the folder relative to the project root.
 */
export function planHugoSite(
  settings: HugoSettings,
  sections: Record<string, string[]>,
  /** A logo among the files Hugo copies from its static folders (`static/logo.png`), which the build finds. */
  served: { logo?: string } = {},
): HugoSetupResult {
  const notes: string[] = [];
  const configFile = settings.files[0] ?? 'hugo.toml';

  // Languages: the ones content-index publishes, each under the key Hugo gives it; the rest left out.
  const published = new Map<Language, HugoLanguage>();
  const skipped: string[] = [];
  const defaultKey = settings.defaultContentLanguage;
  // The default language first: with `es` and `es-mx`, the one unsuffixed files are in is the site's es.
  const ordered = [...settings.languages].sort(
    (a, b) => Number(b.key === defaultKey) - Number(a.key === defaultKey),
  );
  for (const language of ordered) {
    const lang = languageOfKey(language.key);
    if (language.disabled) {
      if (isSuffix(language.key)) skipped.push(language.key);
    } else if (!lang) {
      if (isSuffix(language.key)) {
        skipped.push(language.key);
        notes.push(
          `language ${language.key}: content-index publishes es, en and pt-br; its files are left out (content.skipLanguages)`,
        );
      } else {
        // Hugo takes the last dot-separated part of a file name as its language: `name.zh.hant.md` is a
        // page of the default language named `name.zh.hant`, and so it is to content-index.
        notes.push(
          `language ${language.key}: a file name cannot carry this key (Hugo reads name.${language.key}.md as a page of the default language), so none is left out for it`,
        );
      }
    } else if (published.has(lang)) {
      if (isSuffix(language.key)) skipped.push(language.key);
      notes.push(
        `language ${language.key}: ${published.get(lang)?.key} is already the site's ${lang}; the files of ${language.key} are left out`,
      );
    } else {
      published.set(lang, language);
      if (language.key === 'pt') notes.push('language pt: assumed to be Brazilian Portuguese (pt-br)');
    }
  }
  const defaultLanguage = languageOfKey(defaultKey);
  if (!defaultLanguage || published.get(defaultLanguage)?.key !== defaultKey) {
    return {
      ok: false,
      message: `defaultContentLanguage is ${JSON.stringify(defaultKey)}: Hugo reads every file without a language suffix as ${defaultKey}, a language content-index does not publish (es, en, pt-br)`,
      hint: `set defaultContentLanguage in ${configFile} to the language those files are written in, or write content in site.config.ts by hand (docs/existing-site.md)`,
    };
  }
  if (defaultLanguage !== 'es') {
    notes.push(
      `defaultContentLanguage is ${defaultKey}${settings.defaultContentLanguageSet ? '' : ' (Hugo’s default: it is not set)'}: the index's canonical language is ${defaultLanguage} (canonicalLanguage), so each item's url, title and description are its ${defaultLanguage} page's, and /llms.txt is ${defaultLanguage}`,
    );
    if (settings.languageCode?.toLowerCase().startsWith('es')) {
      notes.push(
        `languageCode is ${settings.languageCode}, which Hugo does not use for files: if they are Spanish, set defaultContentLanguage = 'es' in ${configFile} and run init again (delete site.config.ts first)`,
      );
    }
  }
  if (published.size > 1) {
    notes.push(
      `a page with no ${defaultLanguage} version is left out of the index and named in the build report (content.withoutCanonical: 'leave-out'): each item's url is its ${defaultLanguage} page`,
    );
  }

  // Where the files are: one content folder with language suffixes, or a folder per language.
  const content: ContentLayoutInput = {};
  const dirs = [...published.values()].map((l) => l.contentDir ?? settings.contentDir);
  const perLanguageDirs = new Set(dirs).size > 1;
  let languageFolders: Partial<Record<Language, string>> | undefined;
  let parent = settings.contentDir;
  if (perLanguageDirs) {
    const parents = new Set(dirs.map((d) => (d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '.')));
    if (parents.size !== 1 || dirs.some((d) => d === '' || d.startsWith('../'))) {
      notes.push(
        `each language has its own content folder (${dirs.join(', ')}), not side by side in one folder: content-index cannot read that layout; write content in site.config.ts by hand (docs/existing-site.md)`,
      );
    } else {
      parent = [...parents][0] as string;
      languageFolders = {};
      for (const [lang, language] of published) {
        const dir = language.contentDir ?? settings.contentDir;
        languageFolders[lang] = dir.slice(dir.lastIndexOf('/') + 1);
      }
      content.dir = parent;
      content.language = 'folder';
      content.languageFolders = languageFolders;
    }
  } else {
    if (settings.contentDir !== 'content') content.dir = settings.contentDir;
    content.languageSuffixes = Object.fromEntries([...published].map(([lang, l]) => [lang, l.key]));
  }
  if (skipped.length > 0) content.skipLanguages = skipped;
  // Hugo publishes an untranslated page at its own address: the index leaves it out and says so.
  if (published.size > 1) content.withoutCanonical = 'leave-out';

  // Sections → types.
  const found = [...new Set(Object.values(sections).flat())].sort();
  const mapped: Record<string, ContentType> = {};
  const unmapped: string[] = [];
  for (const section of found) {
    const type = CONTENT_TYPES.find((t) => SECTION_TYPES[t].includes(section.toLowerCase()));
    if (type) mapped[section] = type;
    else unmapped.push(section);
  }
  const types: Partial<Record<ContentType, string[]>> = {};
  for (const [section, type] of Object.entries(mapped)) {
    const prefix = languageFolders ? `{${Object.values(languageFolders).map(escapeGlob).join(',')}}/` : '';
    types[type] = [...(types[type] ?? []), `${prefix}${escapeGlob(section)}/${EXTENSIONS}`];
  }
  if (Object.keys(types).length > 0) {
    content.types = Object.fromEntries(
      Object.entries(types).map(([type, globs]) => [type, globs.length === 1 ? globs[0] : globs]),
    );
  } else {
    notes.push(
      `no section of the content folder is named like posts, projects or tips (${found.join(', ') || 'none found'}): set content.types in site.config.ts to the folders to publish`,
    );
  }

  // Routes: where Hugo writes each section's pages, per language.
  const routes: HugoSetup['routes'] = {};
  const todos: HugoSetup['todos'] = {};
  for (const type of CONTENT_TYPES) {
    const typeSections = Object.entries(mapped)
      .filter(([, t]) => t === type)
      .map(([s]) => s);
    if (typeSections.length === 0) continue;
    for (const [lang, language] of published) {
      const prefix = language.baseURL
        ? language.baseURL.replace(/\/$/, '')
        : language.key === defaultKey && !settings.defaultContentLanguageInSubdir
          ? ''
          : `/${language.key}`;
      const permalinkOf = (section: string) =>
        language.permalinks[section.toLowerCase()] ?? settings.permalinks[section.toLowerCase()];
      const first = typeSections[0] as string;
      const permalink = permalinkOf(first);
      const todo: string[] = [];
      const other = typeSections.find((s) => permalinkOf(s) !== permalink);
      if (other)
        todo.push(`sections ${first} and ${other} have different permalinks; this route is ${first}'s`);
      const ugly =
        settings.uglyURLs === true || (typeof settings.uglyURLs === 'object' && settings.uglyURLs[first]);
      const path = permalink === undefined ? '/{path}/{slug}/' : fromPermalink(permalink, todo);
      routes[type] = { ...routes[type], [lang]: `${prefix}${ugly ? path.replace(/\/$/, '.html') : path}` };
      if (todo.length > 0) todos[type] = { ...todos[type], [lang]: todo.join('; ') };
    }
  }
  for (const [type, byLang] of Object.entries(todos)) {
    for (const todo of new Set(Object.values(byLang)))
      notes.push(`the ${type} route (TODO in site.config.ts): ${todo}`);
  }
  if ([...published.values()].some((l) => l.baseURL)) {
    notes.push(
      'languages have addresses of their own (baseURL per language): the routes are absolute; Hugo writes each language into its own folder of the output, which one Pages project does not serve as several hosts',
    );
  }

  const urls: HugoSetup['urls'] = { style: 'hugo' };
  if (settings.disablePathToLower) urls.lowercase = false;
  if (settings.removePathAccents) urls.removeAccents = true;

  const order = [
    'dir',
    'types',
    'language',
    'languageFolders',
    'languageSuffixes',
    'skipLanguages',
    'defaultLanguage',
    'withoutCanonical',
  ];
  const setup: HugoSetup = {
    out: settings.publishDir,
    content: Object.fromEntries(
      Object.entries(content).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)),
    ) as ContentLayoutInput,
    languages: [defaultLanguage, ...LANGUAGES.filter((l) => l !== defaultLanguage && published.has(l))],
    canonicalLanguage: defaultLanguage,
    routes,
    urls,
    todos,
    mapped,
    unmapped,
    sections: Object.keys(mapped)
      .sort()
      .map((section) => {
        const path = settings.disablePathToLower ? section : section.toLowerCase();
        const ugly =
          settings.uglyURLs === true ||
          (typeof settings.uglyURLs === 'object' && settings.uglyURLs[section.toLowerCase()] === true);
        return {
          name: section.charAt(0).toUpperCase() + section.slice(1),
          // Hugo's list page of the section, relative to the site (the default language's folder first);
          // with uglyURLs, `posts.html` beside the folder.
          url: `${settings.defaultContentLanguageInSubdir ? `${defaultKey}/` : ''}${path}${ugly ? '.html' : '/'}`,
        };
      }),
    aiPlugin: {},
    aiPluginComments: [],
    generatorStatic: settings.staticDirs,
    ...(served.logo !== undefined && { servedLogo: served.logo }),
    notes,
  };
  const site = published.get(defaultLanguage)?.baseURL ?? settings.baseURL;
  if (site) setup.site = site;
  // Each other language's llms.txt goes where Hugo puts its pages: under its key (`/pt/`).
  const languagePaths: Partial<Record<Language, string>> = {};
  for (const [lang, language] of published) {
    if (lang !== defaultLanguage && !language.baseURL && language.key !== lang)
      languagePaths[lang] = `/${language.key}/`;
  }
  if (Object.keys(languagePaths).length > 0) setup.languagePaths = languagePaths;
  const name = siteNames(settings, published, defaultLanguage);
  if (name) setup.name = name;
  const description = siteDescriptions(settings, published, defaultLanguage);
  if (description) setup.description = description;
  const canonical = typeof name === 'string' ? name : name?.[defaultLanguage];
  if (canonical !== undefined && Array.from(canonical).length > NAME_FOR_HUMAN_LIMIT) {
    // ai-plugin.json names the site to people in at most 20 characters; a longer title fails the build.
    const short = shortName(canonical, NAME_FOR_HUMAN_LIMIT);
    setup.aiPlugin.nameForHuman = short;
    setup.aiPluginComments.push(
      `Hugo's title is ${Array.from(canonical).length} characters; ai-plugin.json's name_for_human takes ${NAME_FOR_HUMAN_LIMIT}: shortened.`,
    );
    notes.push(
      `title: "${canonical}" is longer than the ${NAME_FOR_HUMAN_LIMIT} characters of ai-plugin.json's name_for_human, which is "${short}" (aiPlugin.nameForHuman: edit it to taste)`,
    );
  }
  if (settings.email && EMAIL.test(settings.email)) setup.aiPlugin.contactEmail = settings.email;
  if (settings.logo && !/^(data|javascript):/i.test(settings.logo)) {
    // A theme's logo path is relative to the site (static/images/logo.png is served at /images/logo.png).
    setup.aiPlugin.logoUrl = /^https?:\/\//i.test(settings.logo)
      ? settings.logo
      : `/${settings.logo.replace(/^\/+/, '')}`;
  }
  return { ok: true, setup };
}

const NAME_FOR_HUMAN_LIMIT = aiPluginSchema.properties.name_for_human.maxLength;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Hugo's separators between a site's name and its tagline: `Name | Tagline`, `Name - Tagline`. */
const TAGLINE = /\s+[|·—–-]\s+|:\s+/;

/**
 * A name of at most `limit` characters from a longer one: the part before a tagline when it fits, else
 * whole words up to the limit (a single long word is cut), no trailing punctuation.
 */
export function shortName(name: string, limit: number): string {
  const fits = (text: string) => Array.from(text).length <= limit;
  const trimmed = (text: string) => text.replace(/[\s,;:.|·—–-]+$/u, '').trim();
  const head = trimmed(name.split(TAGLINE)[0] ?? '');
  if (head && fits(head)) return head;
  const words: string[] = [];
  for (const word of name.trim().split(/\s+/)) {
    if (!fits(trimmed([...words, word].join(' ')))) break;
    words.push(word);
  }
  // "Apuntes de" reads as cut short: a name does not end on a word that joins it to the next.
  while (words.length > 1 && JOINING.has((words.at(-1) as string).toLowerCase())) words.pop();
  return trimmed(words.join(' ')) || Array.from(name.trim()).slice(0, limit).join('').trim();
}

const JOINING = new Set(
  'a al and com da das de del do dos e el en for in la las los of on o or the to y with'.split(' '),
);

/**
 * A Hugo permalink (`/:year/:month/:slug/`) as a route. Tokens with no route equivalent are written as
 * the closest one, and said in `todo`.
 */
export function fromPermalink(permalink: string, todo: string[]): string {
  const exact: Record<string, string> = {
    year: '{year}',
    month: '{month}',
    day: '{day}',
    section: '{section}',
    title: '{title}',
    slug: '{slugOrTitle}',
    slugorfilename: '{slug}',
    filename: '{filename}',
  };
  const closest: Record<string, string> = { monthname: '{month}', sections: '{path}' };
  let route = permalink.replace(/:(\w+)(\[[^\]]*\])?/g, (whole, name: string, range?: string) => {
    const token = name.toLowerCase();
    if (!range && exact[token]) return exact[token];
    const near = closest[token];
    todo.push(
      `Hugo's ${whole} has no route token${near ? `; written as ${near}` : ' and was left out'}: check the addresses this route gives against what hugo writes`,
    );
    return near ?? '';
  });
  route = route.replace(/\/{2,}/g, '/');
  if (!route.startsWith('/')) route = `/${route}`;
  // Hugo writes a page at `<permalink>/index.html` and links it with the slash.
  if (!route.endsWith('/') && !/\.[a-z0-9]+$/i.test(route)) route = `${route}/`;
  if (!/\{(slug|filename|title|slugOrTitle)\}/.test(route)) {
    todo.push(
      `the permalink ${permalink} names no page; {slug} was added so each page has an address of its own`,
    );
    route = `${route}{slug}/`;
  }
  return route;
}

function siteNames(
  settings: HugoSettings,
  published: Map<Language, HugoLanguage>,
  canonical: Language,
): SiteConfigInput['name'] | undefined {
  const titles: Partial<Record<Language, string>> = {};
  for (const lang of LANGUAGES) {
    if (!published.has(lang)) continue;
    const title = published.get(lang)?.title ?? settings.title;
    if (title) titles[lang] = title;
  }
  const first = titles[canonical];
  if (!first) return settings.title;
  const distinct = new Set(Object.values(titles));
  return distinct.size === 1 ? first : { ...titles, [canonical]: first };
}

/**
 * Hugo's `params.description` per language (a language's own over the site's, as Hugo reads them):
 * one text per published language, the default (canonical) language's required; without one there is
 * no description (the others' alone would be refused: the canonical text is the index's).
 */
function siteDescriptions(
  settings: HugoSettings,
  published: Map<Language, HugoLanguage>,
  defaultLanguage: Language,
): SiteConfigInput['description'] | undefined {
  const texts: Partial<Record<Language, string>> = {};
  for (const lang of LANGUAGES) {
    const language = published.get(lang);
    const text = language && (language.description ?? settings.description);
    if (text) texts[lang] = text;
  }
  const canonical = texts[defaultLanguage];
  if (!canonical) return undefined;
  return Object.keys(texts).length === 1 ? canonical : texts;
}

/** Whether a Hugo language key can be a file's language suffix (and so a skipLanguages entry). */
function isSuffix(key: string): boolean {
  return /^[^./\\]+$/.test(key);
}

function escapeGlob(name: string): string {
  return name.replace(/[*?[\]{}()!\\]/g, (c) => `\\${c}`);
}
