import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ContentIndexError } from '../core/errors.ts';
import { LOGO_CANDIDATES } from '../stages/ai-plugin-assets.ts';
import type { HugoSettings } from './hugo-config.ts';
import {
  CONFIG_EXTENSION,
  HUGO_CONFIG_DIRS,
  HUGO_ROOT_FILES,
  type HugoConfigFile,
} from './hugo-config-files.ts';
import { ASTRO_CONFIG_FILES, type Generator } from './init-plan.ts';

/** Which site generator a project uses, and the file that says so. */
export interface DetectedGenerator {
  generator: Generator;
  /** The file (or folder) it was recognised by, for messages. */
  evidence?: string;
  /** A Hugo site's configuration files, as found (root files and the config folder's). */
  hugoFiles: HugoConfigFile[];
}

/**
 * Hugo: a `hugo.*` file, a file in its config folder, or a `config.*` beside a `content/` folder (a
 * `config.toml` alone is too common to be proof). Astro: an `astro.config.*`.
 */
export async function detectGenerator(root: string): Promise<DetectedGenerator> {
  const hugoFiles = await hugoConfigFiles(root);
  const paths = hugoFiles.map((f) => f.path);
  const hugoEvidence =
    paths.find((p) => p.startsWith('hugo.')) ??
    paths.find((p) => p.startsWith('config/')) ??
    (existsSync(join(root, 'content')) ? paths.find((p) => p.startsWith('config.')) : undefined);
  if (hugoEvidence) return { generator: 'hugo', evidence: hugoEvidence, hugoFiles };
  const astro = ASTRO_CONFIG_FILES.find((f) => existsSync(join(root, f)));
  if (astro) return { generator: 'astro', evidence: astro, hugoFiles: [] };
  return { generator: 'none', hugoFiles: [] };
}

async function hugoConfigFiles(root: string): Promise<HugoConfigFile[]> {
  const files: HugoConfigFile[] = [];
  for (const name of HUGO_ROOT_FILES) {
    const text = await readFile(join(root, name), 'utf8').catch(() => undefined);
    if (text !== undefined) files.push({ path: name, text });
  }
  for (const dir of HUGO_CONFIG_DIRS) {
    for (const path of await filesBelow(root, dir)) {
      if (!CONFIG_EXTENSION.test(path)) continue;
      files.push({ path, text: await readFile(join(root, path), 'utf8') });
    }
  }
  return files;
}

async function filesBelow(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesBelow(root, path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/**
 * A Hugo site's settings and the sections of its content folders (their top folders), for `init`.
 * A configuration file that does not parse stops init with its line.
 */
export async function readHugoSite(
  root: string,
  files: readonly HugoConfigFile[],
): Promise<{ settings: HugoSettings; sections: Record<string, string[]>; logo?: string }> {
  // Its parsers load only here: every command asks which generator a project uses (detectGenerator).
  const { readHugoConfig } = await import('./hugo-config.ts');
  const result = readHugoConfig(files);
  if (!result.ok) throw new ContentIndexError(result.problems);
  const { settings } = result;
  const dirs = new Set([settings.contentDir, ...settings.languages.flatMap((l) => l.contentDir ?? [])]);
  const sections: Record<string, string[]> = {};
  for (const dir of dirs) {
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
    // Hugo's sections are the content folder's top folders (hidden ones are not), and not the folders
    // of languages that have a content folder of their own (content/en with contentDir = 'content/en').
    const languageFolder = (name: string) =>
      [...dirs].some(
        (other) => other === posix.join(dir, name) || other.startsWith(`${posix.join(dir, name)}/`),
      );
    sections[dir] = entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !languageFolder(e.name))
      .map((e) => e.name)
      .sort();
  }
  // A logo Hugo publishes from its static folders, as the build would find it in the output.
  for (const dir of settings.staticDirs) {
    for (const candidate of LOGO_CANDIDATES) {
      if (existsSync(join(root, dir, ...candidate.split('/'))))
        return { settings, sections, logo: posix.join(dir, candidate) };
    }
  }
  return { settings, sections };
}
