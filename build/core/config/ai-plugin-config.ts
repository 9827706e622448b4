import aiPluginSchema from '../../schemas/ai-plugin.schema.json' with { type: 'json' };
import { addressOf, DISCOVERY_PATHS, INDEX_ALIAS_PATH } from '../discovery/addresses.ts';
import { aiPluginManifest } from '../discovery/ai-plugin.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language, URL_FIELD } from '../edge/languages.ts';
import { ContentIndexError, type Problem } from '../errors.ts';
import { ajvProblems } from '../validation/_ajv.ts';
import { builtInValidator } from '../validation/validators.ts';
import {
  type AiPluginConfig,
  type AiPluginInput,
  type SiteConfig,
  siteDescription,
  siteName,
  siteUrl,
} from './site-config.ts';

export interface AiPluginSiteValues {
  /** Ends with `/`. */
  site: string;
  /** The API reference page's address (the default terms of use). */
  reference: string;
  name?: string;
  description?: string;
  /** The site's languages, the canonical one first. Default: es, en, pt-br. */
  languages?: readonly Language[];
  /** The kinds of content the site has (discovery/llms-txt.ts siteKinds). Default: post, project, tip. */
  kinds?: readonly ContentType[];
}

const KIND_PLURAL: Record<ContentType, string> = { post: 'posts', project: 'projects', tip: 'tips' };

/** `posts, projects and tips`, `posts and tips`: the site's kinds (`singular`: post, project and tip). */
export function kindList(kinds: readonly ContentType[] = CONTENT_TYPES, singular = false): string {
  return andList(kinds.map((kind) => (singular ? kind : KIND_PLURAL[kind])));
}

/**
 * The manifest with its defaulted descriptions written for the kinds the site has: the configuration is
 * resolved before the content is read, so its defaults name all three until the build knows better.
 */
export function aiPluginForKinds(config: SiteConfig, kinds: readonly ContentType[]): AiPluginConfig {
  const human = config.aiPluginDefaulted.includes('descriptionForHuman');
  const model = config.aiPluginDefaulted.includes('descriptionForModel');
  if (!human && !model) return config.aiPlugin;
  const description = siteDescription(config, config.canonicalLanguage);
  const values: AiPluginSiteValues = {
    site: config.site,
    reference: config.apiReference.url,
    name: siteName(config),
    ...(description !== undefined && { description }),
    languages: config.languages,
    kinds,
  };
  return {
    ...config.aiPlugin,
    ...(human && { descriptionForHuman: defaultHumanDescription(values) }),
    ...(model && { descriptionForModel: descriptionForModel(values.name as string, values) }),
  };
}

function defaultHumanDescription(values: AiPluginSiteValues): string {
  const name = values.name ?? new URL(values.site).host;
  const kinds = kindList(values.kinds);
  return shorten(
    values.description ??
      `${kinds.charAt(0).toUpperCase()}${kinds.slice(1)} from ${name}, in ${languageList(values.languages ?? LANGUAGES)}.`,
    HUMAN_DESCRIPTION_LIMIT,
  );
}

/** Languages as the English of the manifest names them. */
const LANGUAGE_NAMES: Record<Language, string> = {
  es: 'Spanish',
  en: 'English',
  'pt-br': 'Brazilian Portuguese',
};

/** `Spanish, English and Portuguese`: the site's languages in a sentence (`full`: Brazilian Portuguese). */
export function languageList(languages: readonly Language[], full = false): string {
  return andList(
    languages.map((lang) => (full ? LANGUAGE_NAMES[lang] : LANGUAGE_NAMES[lang].split(' ').at(-1))),
  );
}

function andList(words: readonly (string | undefined)[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** Manifest field → configuration key, so a problem names what the author can edit. */
const CONFIG_KEY: Record<string, keyof AiPluginInput> = {
  name_for_human: 'nameForHuman',
  name_for_model: 'nameForModel',
  description_for_human: 'descriptionForHuman',
  description_for_model: 'descriptionForModel',
  logo_url: 'logoUrl',
  contact_email: 'contactEmail',
  legal_info_url: 'legalInfoUrl',
};

const DEFAULT_FROM: Record<keyof AiPluginInput, string> = {
  nameForHuman: 'it defaults to name (or the site host)',
  nameForModel: 'it defaults to name folded to letters, digits and underscores',
  descriptionForHuman: 'it defaults to description, shortened',
  descriptionForModel: 'it defaults to a text built from name and description',
  logoUrl: 'it defaults to /logo.png on the site',
  contactEmail: 'it defaults to webmaster@ the site host',
  legalInfoUrl: 'it defaults to the API reference page (apiReference, /docs/ unless moved)',
};

/**
 * Fills in the defaults and checks the resulting manifest against the published limits. Explicit values
 * were already checked by the configuration schema; this catches defaults that break a limit (a long
 * `description` becoming a too-long `description_for_human`) and says where the value came from.
 */
export function resolveAiPlugin(
  input: AiPluginInput | undefined,
  values: AiPluginSiteValues,
  file: string,
): AiPluginConfig {
  const given = input ?? {};
  const { site } = values;
  const host = new URL(site);
  const name = values.name ?? host.host;
  const languages = values.languages ?? LANGUAGES;
  const problems: Problem[] = [];
  const address = (key: 'logoUrl' | 'legalInfoUrl', fallback: string): string => {
    const value = given[key] ?? fallback;
    try {
      return siteUrl(site, value);
    } catch {
      problems.push({
        code: 'config_invalid',
        file,
        field: `aiPlugin.${key}`,
        message: `must be an address, got ${JSON.stringify(value)}`,
      });
      return value;
    }
  };
  const resolved: AiPluginConfig = {
    nameForHuman: given.nameForHuman ?? name,
    nameForModel: given.nameForModel ?? modelName(name),
    descriptionForHuman: given.descriptionForHuman ?? defaultHumanDescription({ ...values, name, languages }),
    descriptionForModel: given.descriptionForModel ?? descriptionForModel(name, values),
    logoUrl: address('logoUrl', '/logo.png'),
    contactEmail: given.contactEmail ?? `webmaster@${host.hostname}`,
    legalInfoUrl: address('legalInfoUrl', values.reference),
  };
  if (problems.length > 0) throw new ContentIndexError(problems);

  const validateManifest = builtInValidator('ai-plugin');
  if (!validateManifest(aiPluginManifest(resolved, site))) {
    throw new ContentIndexError(
      ajvProblems(validateManifest, { file, code: 'config_invalid' }).map((problem) => {
        const key = CONFIG_KEY[problem.field ?? ''];
        if (!key) return problem;
        const hint =
          given[key] === undefined
            ? [DEFAULT_FROM[key], problem.hint].filter(Boolean).join('; ')
            : problem.hint;
        return { ...problem, field: `aiPlugin.${key}`, ...(hint && { hint }) };
      }),
    );
  }
  return resolved;
}

const HUMAN_DESCRIPTION_LIMIT = aiPluginSchema.properties.description_for_human.maxLength;

/**
 * A one-line summary is still useful cut at a word, so a long `description` does not fail the build;
 * a name cut short would not be, so names are never shortened.
 */
export function shorten(text: string, limit: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  if (chars.length <= limit) return chars.join('');
  const cut = chars.slice(0, limit - 1).join('');
  const atWord = cut.replace(/\s+\S*$/, '');
  return `${(atWord || cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** `Código y Neuronas` → `codigo_y_neuronas`: ASCII letters, digits and underscores, at most 50. */
export function modelName(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase()
    .slice(0, 50)
    .replace(/^_+|_+$/g, '');
  return folded || 'content_index';
}

function descriptionForModel(name: string, values: AiPluginSiteValues): string {
  const index = addressOf(values.site, INDEX_ALIAS_PATH);
  const mcp = addressOf(values.site, DISCOVERY_PATHS.mcp);
  const [canonical = 'es', ...others] = values.languages ?? LANGUAGES;
  const translated = others.filter((lang) => lang !== 'es');
  const fields = (langs: readonly Language[]) => andList(langs.map((l) => URL_FIELD[l as 'en' | 'pt-br']));
  const addresses = [
    `url (the canonical ${LANGUAGE_NAMES[canonical]} page),`,
    ...(canonical === 'es' ? [] : [`${URL_FIELD[canonical]} (the same page),`]),
    ...(translated.length === 0
      ? []
      : [
          `${fields(translated)} (the ${andList(translated.map((l) => LANGUAGE_NAMES[l]))} ${translated.length === 1 ? 'page, when it exists' : 'pages, when they exist'}),`,
        ]),
  ];
  return [
    `${name} (${values.site}) publishes a read-only Content Index API that needs no authentication.`,
    ...(values.description ? [`About the site: ${values.description}`] : []),
    `Call getContentIndex (GET ${index}) to get every ${kindList(values.kinds, true)} in one JSON document;`,
    `each item has type (${andList(values.kinds ?? CONTENT_TYPES).replace(/ and ([^,]*)$/, ' or $1')}), title, description,`,
    ...addresses,
    `${(values.kinds ?? CONTENT_TYPES).includes('project') ? 'image and, for projects, technologies' : 'and image'}. There is no paging or filtering: fetch the index once and filter it yourself, and link`,
    'readers to the page in their language. To search or filter without downloading the index, use the',
    `Model Context Protocol server at ${mcp} (tools list_content, search_content and content_stats).`,
  ].join(' ');
}
