import type { HugoPublication } from '../core/content/publication.ts';
import type { Language } from '../core/edge/languages.ts';
import { ContentIndexError } from '../core/errors.ts';
import { languageOfKey } from './hugo-site.ts';
import { detectGenerator } from './site-generator.ts';

/**
 * A Hugo site's publication switches and languages, read from its configuration as `init` reads it
 * (hugo-config.ts): what `build`, `check`, `deploy`, `dev` and `mcp --sources` hand the build, so the
 * index publishes exactly the pages Hugo does. Undefined for a project that is not a Hugo site.
 */
export async function readHugoPublication(root: string): Promise<HugoPublication | undefined> {
  const detected = await detectGenerator(root);
  if (detected.generator !== 'hugo') return undefined;
  // Loaded for a Hugo site only: its YAML and TOML parsers are no part of another project's build.
  const { readHugoConfig } = await import('./hugo-config.ts');
  const result = readHugoConfig(detected.hugoFiles);
  if (!result.ok) throw new ContentIndexError(result.problems);
  const { settings } = result;
  const languages = new Set<Language>();
  const enabled = new Set<Language>();
  for (const language of settings.languages) {
    const lang = languageOfKey(language.key);
    if (!lang) continue;
    languages.add(lang);
    if (!language.disabled) enabled.add(lang);
  }
  return {
    buildDrafts: settings.buildDrafts,
    buildFuture: settings.buildFuture,
    buildExpired: settings.buildExpired,
    languages: [...languages],
    // A language is disabled when every Hugo language that is it is (`es` and `es-mx`, one disabled: not).
    disabledLanguages: [...languages].filter((lang) => !enabled.has(lang)),
    file: settings.files[0] ?? detected.evidence ?? 'hugo.toml',
  };
}
