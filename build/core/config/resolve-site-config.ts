import { DEFAULT_API_REFERENCE } from '../discovery/addresses.ts';
import { CONTENT_TYPES, LANGUAGES, type Language } from '../edge/languages.ts';
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
  DEFAULT_ROUTES,
  type Env,
  type LocalizedText,
  type RoutePatterns,
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
    throw new ContentIndexError(problems);
  }
  const config = raw as unknown as SiteConfigInput;
  const site = withTrailingSlash(new URL(config.site).href);
  const routes = structuredClone(DEFAULT_ROUTES) as RoutePatterns;
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
    defaultLanguage: layout.defaultLanguage ?? DEFAULT_LAYOUT.defaultLanguage,
  };
  for (const type of CONTENT_TYPES) {
    const globs = layout.types?.[type];
    if (globs !== undefined) content.types[type] = typeof globs === 'string' ? [globs] : [...globs];
  }
  const name = perLanguage(config.name, true);
  const description = perLanguage(config.description, false);
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
        ...(name.es !== undefined && { name: name.es }),
        ...(description.es !== undefined && { description: description.es }),
      },
      file,
    ),
    aiPluginDefaulted: AI_PLUGIN_KEYS.filter((key) => config.aiPlugin?.[key] === undefined),
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
  if (name.es !== undefined) resolved.name = name.es;
  if (description.es !== undefined) resolved.description = description.es;
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

/**
 * A name is a proper noun: one given as plain text is every language's. A description is prose: one
 * given as plain text is the Spanish (canonical) one only, so other languages never show it as theirs.
 */
function perLanguage(value: LocalizedText | undefined, shared: boolean): Partial<Record<Language, string>> {
  if (value === undefined) return {};
  if (typeof value === 'string') {
    return shared ? Object.fromEntries(LANGUAGES.map((lang) => [lang, value])) : { es: value };
  }
  return shared ? Object.fromEntries(LANGUAGES.map((lang) => [lang, value[lang] ?? value.es])) : { ...value };
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
