import { DEFAULT_API_REFERENCE } from '../discovery/addresses.ts';
import {
  CONTENT_TYPES,
  DEFAULT_CANONICAL_LANGUAGE,
  isLanguage,
  LANGUAGES,
  type Language,
} from '../edge/languages.ts';
import { ContentIndexError, type Problem } from '../errors.ts';
import { ajvProblems } from '../validation/_ajv.ts';
import { builtInValidator } from '../validation/validators.ts';
import { resolveAiPlugin } from './ai-plugin-config.ts';
import { AS_WRITTEN } from './route-pattern.ts';
import {
  type AiPluginInput,
  type ContentLayout,
  DEFAULT_D1,
  DEFAULT_LAYOUT,
  defaultRoutes,
  type Env,
  type LocalizedText,
  SITE_ENV,
  type SiteConfig,
  type SiteConfigInput,
  siteUrl,
  withTrailingSlash,
} from './site-config.ts';

/** What the project says besides site.config.ts. */
export interface ProjectFacts {
  /** The Cloudflare Pages project's name (wrangler.toml `name`): its hosts are the site's too. */
  pagesProject?: string;
  /** A Hugo site's languages: only those Hugo publishes are the site's. */
  hugo?: HugoLanguages;
}

/** The languages a Hugo site's configuration has, and those it disables (publication.ts, HugoPublication). */
export interface HugoLanguages {
  languages: readonly Language[];
  disabledLanguages: readonly Language[];
  file: string;
}

/**
 * Applies environment overrides and defaults, then validates. Throws ContentIndexError naming
 * `file` (and the environment variable, when the bad value came from one).
 */
export function resolveSiteConfig(
  input: unknown,
  env: Env,
  file: string,
  project: ProjectFacts = {},
): SiteConfig {
  const raw = { ...(isRecord(input) ? input : {}) } as Record<string, unknown>;
  const fromEnv = new Set<string>();
  for (const [key, variable] of Object.entries(SITE_ENV)) {
    const value = env[variable];
    if (value !== undefined && value !== '') {
      raw[key] = value;
      fromEnv.add(key);
    }
  }
  const validateConfig = builtInValidator('site-config');
  const target = isRecord(input) ? raw : input;
  const untexted = canonicalTextProblems(raw, file);
  if (!validateConfig(target)) {
    const problems: Problem[] = ajvProblems(validateConfig, { file, code: 'config_invalid' }).map((p) => {
      const top = p.field?.split('.')[0] ?? '';
      if (!fromEnv.has(top)) return p;
      const variable = SITE_ENV[top as keyof typeof SITE_ENV];
      return {
        ...p,
        file: `environment variable ${variable}`,
        hint: `${variable} overrides ${top} in ${file}`,
      };
    });
    throw new ContentIndexError([...problems, ...untexted]);
  }
  if (untexted.length > 0) throw new ContentIndexError(untexted);
  const config = raw as unknown as SiteConfigInput;
  const languages = siteLanguages(config, file, project.hugo);
  const canonical = languages[0] as Language;
  const site = withTrailingSlash(new URL(config.site).href);
  const routes = defaultRoutes(canonical);
  for (const type of CONTENT_TYPES) {
    for (const lang of LANGUAGES) {
      const pattern = config.routes?.[type]?.[lang];
      if (pattern) routes[type][lang] = pattern;
    }
  }
  const layout = config.content ?? {};
  const content: ContentLayout = {
    dir: layout.dir ?? DEFAULT_LAYOUT.dir,
    types: { ...DEFAULT_LAYOUT.types },
    language: layout.language ?? DEFAULT_LAYOUT.language,
    languageField: layout.languageField ?? DEFAULT_LAYOUT.languageField,
    languageFolders: { ...DEFAULT_LAYOUT.languageFolders, ...layout.languageFolders },
    ...(layout.languageSuffixes && { languageSuffixes: { ...layout.languageSuffixes } }),
    skipLanguages: (layout.skipLanguages ?? []).map((l) => l.toLowerCase()),
    defaultLanguage: layout.defaultLanguage ?? canonical,
    withoutCanonical: layout.withoutCanonical ?? DEFAULT_LAYOUT.withoutCanonical,
  };
  for (const type of CONTENT_TYPES) {
    const globs = layout.types?.[type];
    if (globs !== undefined) content.types[type] = typeof globs === 'string' ? [globs] : [...globs];
  }
  const name = perLanguage(config.name, true, canonical);
  const description = perLanguage(config.description, false, canonical);
  const referencePath = config.apiReference ?? DEFAULT_API_REFERENCE;
  const apiReference = { path: referencePath.slice(1), url: siteUrl(site, referencePath) };
  const resolved: SiteConfig = {
    site,
    images: withTrailingSlash(new URL(config.images).href),
    documentation:
      config.documentation === undefined ? apiReference.url : siteUrl(site, config.documentation),
    apiReference,
    sections: (config.sections ?? []).map((s) => ({ name: s.name, url: siteUrl(site, s.url) })),
    routes,
    urls: {
      style: config.urls?.style ?? AS_WRITTEN.style,
      lowercase: config.urls?.lowercase ?? config.urls?.style === 'hugo',
      removeAccents: config.urls?.removeAccents ?? false,
    },
    aiPlugin: resolveAiPlugin(
      config.aiPlugin,
      {
        site,
        reference: apiReference.url,
        ...(name[canonical] !== undefined && { name: name[canonical] }),
        ...(description[canonical] !== undefined && { description: description[canonical] }),
        languages,
      },
      file,
    ),
    aiPluginDefaulted: AI_PLUGIN_KEYS.filter((key) => config.aiPlugin?.[key] === undefined),
    languages,
    canonicalLanguage: canonical,
    llmsTxt: Object.fromEntries(
      languages.map((lang) => [
        lang,
        lang === canonical ? 'llms.txt' : `${(config.languagePaths?.[lang] ?? `/${lang}/`).slice(1)}llms.txt`,
      ]),
    ),
    perLanguage: {} as SiteConfig['perLanguage'],
    license: { name: 'Terms of use' },
    content,
    mcp: {
      allowedHosts: [
        ...new Set([
          ...(config.mcp?.allowedHosts ?? []).map((host) => host.toLowerCase()),
          ...pagesHosts(project.pagesProject),
        ]),
      ],
      backend: config.mcp?.backend ?? 'embedded',
      d1: { ...DEFAULT_D1, ...config.mcp?.d1 },
      bodies: config.mcp?.bodies ?? true,
    },
    generatorStatic:
      typeof config.generatorStatic === 'string'
        ? [config.generatorStatic]
        : [...(config.generatorStatic ?? [])],
    landingPage: config.landingPage ?? false,
    plan: config.plan ?? 'free',
  };
  for (const lang of LANGUAGES) {
    resolved.perLanguage[lang] = {
      ...(name[lang] !== undefined && { name: name[lang] }),
      ...(description[lang] !== undefined && { description: description[lang] }),
    };
  }
  // Without a licence of its own, the API's terms are the site's: the page the manifest names.
  const license = config.license ?? { name: 'Terms of use', url: resolved.aiPlugin.legalInfoUrl };
  resolved.license = {
    name: license.name,
    ...(license.identifier !== undefined && { identifier: license.identifier }),
    ...(license.url !== undefined && { url: siteUrl(site, license.url) }),
  };
  if (config.static !== undefined) resolved.static = config.static;
  if (name[canonical] !== undefined) resolved.name = name[canonical];
  if (description[canonical] !== undefined) resolved.description = description[canonical];
  return resolved;
}

const AI_PLUGIN_KEYS: (keyof AiPluginInput)[] = [
  'nameForHuman',
  'nameForModel',
  'descriptionForHuman',
  'descriptionForModel',
  'logoUrl',
  'contactEmail',
  'legalInfoUrl',
];

/** `name` or `description` given per language without the canonical language's text. */
function canonicalTextProblems(raw: Record<string, unknown>, file: string): Problem[] {
  const given = raw.canonicalLanguage;
  const canonical = typeof given === 'string' && isLanguage(given) ? given : DEFAULT_CANONICAL_LANGUAGE;
  if (given !== undefined && given !== canonical) return []; // the schema names what is wrong with it
  return (['name', 'description'] as const).flatMap((key): Problem[] => {
    const value = raw[key];
    if (!isRecord(value) || value[canonical] !== undefined) return [];
    return [
      {
        code: 'config_invalid',
        file,
        field: `${key}.${canonical}`,
        message: `is required: ${canonical} is the canonical language (canonicalLanguage), whose ${key} the index and the manifest carry`,
        hint: `give ${key} its ${canonical} text, e.g. ${key}: { ${canonical === 'pt-br' ? "'pt-br'" : canonical}: '…' }, or one text for every language`,
      },
    ];
  });
}

/**
 * The site's languages, canonical first and the others in the order of LANGUAGES; the canonical
 * language must be one of them, and so must each language given a path.
 */
function siteLanguages(config: SiteConfigInput, file: string, hugo: HugoLanguages | undefined): Language[] {
  const canonical = config.canonicalLanguage ?? DEFAULT_CANONICAL_LANGUAGE;
  const configured = config.languages ?? [...LANGUAGES];
  const listed = configured.filter(
    (lang) => !hugo || (hugo.languages.includes(lang) && !hugo.disabledLanguages.includes(lang)),
  );
  const problems: Problem[] = [];
  if (!configured.includes(canonical)) {
    problems.push({
      code: 'config_invalid',
      file,
      field: config.canonicalLanguage === undefined ? 'languages' : 'canonicalLanguage',
      message:
        config.canonicalLanguage === undefined
          ? `does not list es, the canonical language unless canonicalLanguage names another`
          : `is ${canonical}, which is not one of languages (${configured.join(', ')})`,
      hint: `set canonicalLanguage to the language every item is written in (one of ${configured.join(', ')}), or add ${canonical} to languages`,
    });
  }
  for (const lang of Object.keys(config.languagePaths ?? {}) as Language[]) {
    if (lang === canonical || !configured.includes(lang)) {
      problems.push({
        code: 'config_invalid',
        file,
        field: `languagePaths.${lang}`,
        message:
          lang === canonical
            ? `is the canonical language's, whose llms.txt is always /llms.txt`
            : `names ${lang}, which is not one of languages (${configured.join(', ')})`,
        hint: `remove languagePaths.${lang}`,
      });
    }
  }
  const layoutDefault = config.content?.defaultLanguage;
  if (layoutDefault !== undefined && !configured.includes(layoutDefault)) {
    problems.push({
      code: 'config_invalid',
      file,
      field: 'content.defaultLanguage',
      message: `is ${layoutDefault}, which is not one of languages (${configured.join(', ')})`,
      hint: `add ${layoutDefault} to languages, or remove content.defaultLanguage (files that name no language are then ${canonical})`,
    });
  }
  if (problems.length > 0) throw new ContentIndexError(problems);
  if (hugo && !listed.includes(canonical)) {
    const disabled = hugo.disabledLanguages.includes(canonical);
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file,
        field: 'canonicalLanguage',
        message: `is ${canonical}, and ${hugo.file} ${disabled ? 'disables it' : 'has no such language'}: Hugo publishes no ${canonical} page`,
        hint: `set canonicalLanguage to the language of Hugo's defaultContentLanguage (${listed.join(', ') || 'none of es, en, pt-br is published'}), or ${disabled ? `enable ${canonical} in ${hugo.file}` : `add ${canonical} to Hugo's languages`}`,
      },
    ]);
  }
  return [canonical, ...LANGUAGES.filter((lang) => lang !== canonical && listed.includes(lang))];
}

/**
 * A name is a proper noun: one given as plain text is every language's. A description is prose: one
 * given as plain text is the canonical language's only, so other languages never show it as theirs.
 */
function perLanguage(
  value: LocalizedText | undefined,
  shared: boolean,
  canonical: Language,
): Partial<Record<Language, string>> {
  if (value === undefined) return {};
  if (typeof value === 'string') {
    return shared ? Object.fromEntries(LANGUAGES.map((lang) => [lang, value])) : { [canonical]: value };
  }
  const fallback = value[canonical];
  if (!shared || fallback === undefined) return { ...value };
  return Object.fromEntries(LANGUAGES.map((lang) => [lang, value[lang] ?? fallback]));
}

/**
 * A Pages project answers at `<name>.pages.dev` and each preview deployment at `<hash>.<name>.pages.dev`
 * (or `<branch>.<name>.pages.dev`): the site's own hosts, which `/mcp` answers without configuration.
 */
export function pagesHosts(name: string | undefined): string[] {
  if (name === undefined || !PAGES_PROJECT.test(name)) return [];
  const host = `${name.toLowerCase()}.pages.dev`;
  return [host, `*.${host}`];
}

// Cloudflare's rule for a project name, which is also a DNS label: letters, digits and inner hyphens.
const PAGES_PROJECT = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
