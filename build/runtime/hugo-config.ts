import { createRequire } from 'node:module';
import yaml from 'js-yaml';
import type { Problem } from '../core/errors.ts';
import {
  CONFIG_EXTENSION as EXTENSION,
  HUGO_CONFIG_DIRS,
  HUGO_ROOT_FILES,
  type HugoConfigFile,
} from './hugo-config-files.ts';

// smol-toml's CommonJS build, as wrangler-config.ts requires it: one file, where its ES build is nine
// modules (~3 ms to load against ~13).
const require = createRequire(import.meta.url);
const { parse: parseToml, TomlError } = require('smol-toml') as typeof import('smol-toml');

/**
 * A Hugo site's configuration, read the way Hugo 0.111 reads it: with real TOML, YAML and JSON parsers,
 * keys without regard to case, from every place Hugo looks. Pure: the command lists and reads the files.
 *
 * - The root file: the first of `hugo.toml|yaml|yml|json`, then `config.*`; Hugo reads that one only.
 * - The config folder, `config/_default/` and then `config/production/` (what `hugo` builds), each file
 *   in name order, merged over the root file and over the files before it. `hugo.*` and `config.*` there
 *   are the top level; any other file is one section of it (`languages.toml` is `languages`,
 *   `params.en.toml` is `languages.en.params`).
 */

/** What content-index takes from a Hugo configuration: the keys Hugo reads at the top level. */
export interface HugoSettings {
  /** The files read, in the order they were merged. */
  files: string[];
  /** An http(s) address ending in `/`; absent when unset or not an address (Hugo's default `/`). */
  baseURL?: string;
  title?: string;
  /** `params.description`: the site's description, as themes put it in every page's meta tags. */
  description?: string;
  /** `params.email`, `params.author.email` or `author.email`: where the site says to write. */
  email?: string;
  /** `params.logo`, when it is a path or an address (themes' usual key for the site's logo). */
  logo?: string;
  /** `staticDir` (a folder or a list; `staticDir0`…`staticDir10` after it): what Hugo copies into publishDir. */
  staticDirs: string[];
  /** `languageCode`, which Hugo uses for the HTML lang attribute only (not for files' languages). */
  languageCode?: string;
  publishDir: string;
  contentDir: string;
  /** Lowercased; Hugo's default is `en`. */
  defaultContentLanguage: string;
  /** Whether the configuration sets it (a site that does not is English to Hugo, whatever its languageCode). */
  defaultContentLanguageSet: boolean;
  defaultContentLanguageInSubdir: boolean;
  /** The site's languages by weight (then key), lowercased keys; just the default language when none is configured. */
  languages: HugoLanguage[];
  /** Section → permalink pattern (lowercased section names). */
  permalinks: Record<string, string>;
  disablePathToLower: boolean;
  removePathAccents: boolean;
  /** True for every section, or per section. */
  uglyURLs: boolean | Record<string, boolean>;
  /** Hugo's publication switches: drafts, pages dated ahead, expired pages are published. */
  buildDrafts: boolean;
  buildFuture: boolean;
  buildExpired: boolean;
}

export interface HugoLanguage {
  key: string;
  title?: string;
  /** `params.description` of this language, over the site's. */
  description?: string;
  contentDir?: string;
  baseURL?: string;
  permalinks: Record<string, string>;
  /** In `languages` but disabled (`disabled = true` or `disableLanguages`): Hugo publishes none of its pages. */
  disabled: boolean;
}

export type HugoConfigResult = { ok: true; settings: HugoSettings } | { ok: false; problems: Problem[] };

type Tree = Record<string, unknown>;

/**
 * Merges the files Hugo would read into one configuration and takes the settings out of it. `files`
 * holds every candidate found (root files and config-folder files); which ones count is decided here.
 */
export function readHugoConfig(files: readonly HugoConfigFile[]): HugoConfigResult {
  const problems: Problem[] = [];
  const read: string[] = [];
  let config: Tree = {};
  const root = HUGO_ROOT_FILES.map((name) => files.find((f) => f.path === name)).find(Boolean);
  if (root) {
    const parsed = parseFile(root, problems);
    if (parsed) config = merge(config, parsed);
    read.push(root.path);
  }
  for (const dir of HUGO_CONFIG_DIRS) {
    const inside = files
      .filter((f) => f.path.startsWith(`${dir}/`) && EXTENSION.test(f.path))
      .sort((a, b) => compareWalkOrder(a.path, b.path));
    for (const file of inside) {
      const parsed = parseFile(file, problems);
      if (parsed) config = merge(config, placed(file.path, parsed));
      read.push(file.path);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: settingsOf(config, read) };
}

function parseFile(file: HugoConfigFile, problems: Problem[]): Tree | undefined {
  const format = (EXTENSION.exec(file.path)?.[1] ?? 'toml').toLowerCase();
  const source = file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text;
  try {
    const value =
      format === 'toml' ? parseToml(source) : format === 'json' ? JSON.parse(source) : yaml.load(source);
    if (value === undefined || value === null) return {};
    if (!isTree(value)) throw new Error('the file is not a table of keys');
    return lowercaseKeys(value) as Tree;
  } catch (error) {
    problems.push({
      code: 'config_invalid',
      file: file.path,
      line: errorLine(error, source),
      message: `is not valid ${format === 'toml' ? 'TOML' : format === 'json' ? 'JSON' : 'YAML'}: ${firstLine(error)}`,
      hint: 'fix the syntax (hugo cannot read it either), then run init again',
    });
    return undefined;
  }
}

function errorLine(error: unknown, text: string): number {
  if (error instanceof TomlError) return error.line;
  if (error instanceof yaml.YAMLException) return (error.mark?.line ?? 0) + 1;
  const position = /position (\d+)/.exec(firstLine(error))?.[1];
  if (position !== undefined) return text.slice(0, Number(position)).split('\n').length;
  return Number(/line (\d+)/.exec(firstLine(error))?.[1] ?? 1);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** `config/_default/languages.toml` is `languages`; `params.en.toml` is `languages.en.params`. */
function placed(path: string, tree: Tree): Tree {
  const name = (path.split('/').pop() ?? '').replace(EXTENSION, '').toLowerCase();
  if (name === 'hugo' || name === 'config') return tree;
  const dot = name.lastIndexOf('.');
  const [key, lang] = dot > 0 ? [name.slice(0, dot), name.slice(dot + 1)] : [name, ''];
  if (!lang) return { [key]: tree };
  const inner =
    key === 'menu' || key === 'menus' ? { menus: tree } : key === 'params' ? { params: tree } : tree;
  return { languages: { [lang]: inner } };
}

/** Go's filepath.Walk order: the entries of each folder by name, a folder's files where the folder sorts. */
function compareWalkOrder(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/** Later wins, tables merge key by key (Hugo's `Set("", …)`). */
function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = out[key];
    out[key] = isTree(before) && isTree(value) ? merge(before, value) : value;
  }
  return out;
}

/** Hugo reads configuration keys without regard to case (`baseURL`, `baseurl`, `BaseURL`). */
function lowercaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowercaseKeys);
  if (!isTree(value)) return value;
  const out: Tree = {};
  for (const [key, inner] of Object.entries(value)) out[key.toLowerCase()] = lowercaseKeys(inner);
  return out;
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function address(value: unknown): string | undefined {
  const base = text(value);
  if (!base || !/^https?:\/\//i.test(base)) return undefined;
  return base.endsWith('/') ? base : `${base}/`;
}

function folder(value: unknown): string | undefined {
  const dir = text(value);
  return dir?.replace(/^\.\/+/, '').replace(/\/+$/, '');
}

function patterns(value: unknown): Record<string, string> {
  if (!isTree(value)) return {};
  // Hugo 0.120+ also takes `permalinks.page.<section>`: read it when a site already writes it that way.
  const pages = isTree(value.page) ? value.page : value;
  const out: Record<string, string> = {};
  for (const [section, pattern] of Object.entries(pages))
    if (typeof pattern === 'string') out[section] = pattern;
  return out;
}

function settingsOf(config: Tree, files: string[]): HugoSettings {
  const defaultContentLanguage = (text(config.defaultcontentlanguage) ?? 'en').toLowerCase();
  const disabled = new Set(
    (Array.isArray(config.disablelanguages) ? config.disablelanguages : []).map((l) =>
      String(l).toLowerCase(),
    ),
  );
  const table = isTree(config.languages) ? config.languages : {};
  const entries = Object.entries(table).filter((entry): entry is [string, Tree] => isTree(entry[1]));
  const languages: HugoLanguage[] = entries
    .map(([key, lang]) => ({ key, lang, weight: typeof lang.weight === 'number' ? lang.weight : 0 }))
    // Hugo sorts by weight, a weight of 0 after every other, then by key.
    .sort(
      (a, b) =>
        (a.weight || Infinity) - (b.weight || Infinity) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
    .map(({ key, lang }) => {
      const title = text(lang.title);
      const description = isTree(lang.params) ? text(lang.params.description) : undefined;
      const contentDir = folder(lang.contentdir);
      const baseURL = address(lang.baseurl);
      return {
        key,
        ...(title !== undefined && { title }),
        ...(description !== undefined && { description }),
        ...(contentDir !== undefined && { contentDir }),
        ...(baseURL !== undefined && { baseURL }),
        permalinks: patterns(lang.permalinks),
        disabled: lang.disabled === true || disabled.has(key),
      };
    });
  if (!languages.some((l) => l.key === defaultContentLanguage)) {
    languages.unshift({ key: defaultContentLanguage, permalinks: {}, disabled: false });
  }
  const ugly = config.uglyurls;
  const baseURL = address(config.baseurl);
  const title = text(config.title);
  const languageCode = text(config.languagecode);
  const params = isTree(config.params) ? config.params : {};
  const author = (tree: unknown) => (isTree(tree) ? text(tree.email) : undefined);
  const description = text(params.description);
  const email = text(params.email) ?? author(params.author) ?? author(config.author);
  const logo = text(params.logo);
  const staticDirs = [
    ...(Array.isArray(config.staticdir) ? config.staticdir : [config.staticdir ?? 'static']),
    ...Array.from({ length: 11 }, (_, i) => config[`staticdir${i}`]),
  ].flatMap((dir) => folder(dir) ?? []);
  return {
    files,
    ...(baseURL !== undefined && { baseURL }),
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(email !== undefined && { email }),
    ...(logo !== undefined && { logo }),
    staticDirs,
    ...(languageCode !== undefined && { languageCode }),
    publishDir: folder(config.publishdir) ?? 'public',
    contentDir: folder(config.contentdir) ?? 'content',
    defaultContentLanguage,
    defaultContentLanguageSet: text(config.defaultcontentlanguage) !== undefined,
    defaultContentLanguageInSubdir: config.defaultcontentlanguageinsubdir === true,
    languages,
    permalinks: patterns(config.permalinks),
    disablePathToLower: config.disablepathtolower === true,
    removePathAccents: config.removepathaccents === true,
    uglyURLs: isTree(ugly)
      ? Object.fromEntries(Object.entries(ugly).map(([k, v]) => [k, v === true]))
      : ugly === true,
    buildDrafts: config.builddrafts === true,
    buildFuture: config.buildfuture === true,
    buildExpired: config.buildexpired === true,
  };
}
