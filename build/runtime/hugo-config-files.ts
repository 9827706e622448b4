/**
 * Where Hugo 0.111 looks for its configuration (hugo-config.ts says how it reads what it finds there).
 * Apart from the parsers: every command asks whether a project is a Hugo site (site-generator.ts), and
 * only a Hugo site's configuration needs js-yaml or smol-toml.
 */

export const HUGO_ROOT_FILES = [
  'hugo.toml',
  'hugo.yaml',
  'hugo.yml',
  'hugo.json',
  'config.toml',
  'config.yaml',
  'config.yml',
  'config.json',
] as const;

/** The folders of Hugo's config directory that `hugo` (the production environment) reads, in order. */
export const HUGO_CONFIG_DIRS = ['config/_default', 'config/production'] as const;

/** The formats Hugo reads a configuration file in. */
export const CONFIG_EXTENSION = /\.(toml|ya?ml|json)$/i;

export interface HugoConfigFile {
  /** Relative to the project root, POSIX separators. */
  path: string;
  text: string;
}

/** Whether a project has a Hugo configuration Hugo itself would find. */
export function hasHugoConfig(paths: readonly string[]): boolean {
  return paths.some(
    (p) =>
      (HUGO_ROOT_FILES as readonly string[]).includes(p) ||
      HUGO_CONFIG_DIRS.some((dir) => p.startsWith(`${dir}/`) && CONFIG_EXTENSION.test(p)),
  );
}
