import { statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type SiteConfig, siteUrl } from '../core/config/site-config.ts';
import type { Problem } from '../core/errors.ts';

/**
 * Logo files a site commonly serves, in the order one is taken for ai-plugin.json's `logo_url` when the
 * configuration names none: a logo first (agent platforms show a square image), then the icons.
 */
export const LOGO_CANDIDATES = [
  'logo.png',
  'logo.svg',
  'logo.webp',
  'logo.jpg',
  'images/logo.png',
  'images/logo.svg',
  'img/logo.png',
  'img/logo.svg',
  'apple-touch-icon.png',
  'favicon.svg',
  'favicon.png',
  'favicon.ico',
];

/**
 * ai-plugin.json's logo and contact, held to what the site serves. With no `aiPlugin.logoUrl`, the
 * site's own logo (the first of LOGO_CANDIDATES it serves); a logo on the site that it does not serve,
 * or no logo at all, and a contact left to its default, are warnings naming the setting: the manifest
 * needs both values, and a placeholder is never published silently. "Serves" is what the output folder
 * holds before this build writes (the generator's pages, `npm run build` runs it first), the static
 * folder the build publishes, and the folders the generator copies (`generatorStatic`).
 */
export async function aiPluginAssets(
  config: SiteConfig,
  options: { root: string; outDir: string; configFile: string },
): Promise<{ config: SiteConfig; warnings: Problem[] }> {
  const { root, outDir, configFile } = options;
  const folders = [
    outDir,
    ...(config.static !== undefined ? [resolve(root, config.static)] : []),
    ...config.generatorStatic.map((dir) => resolve(root, dir)),
  ];
  const shown = [...new Set(folders.map((f) => `${relative(root, f).split('\\').join('/') || '.'}/`))];
  const served = async (path: string) => {
    for (const folder of folders) {
      // Up to a dozen names in each folder, at every build: looked at synchronously (an awaited stat
      // each waits for the thread pool).
      let found: ReturnType<typeof statSync>;
      try {
        found = statSync(join(folder, ...path.split('/')), { throwIfNoEntry: false });
      } catch {
        found = undefined; // a file where a folder would be, a folder it may not look into
      }
      if (found?.isFile()) return true;
    }
    return false;
  };
  const warnings: Problem[] = [];
  let { logoUrl } = config.aiPlugin;
  if (config.aiPluginDefaulted.includes('logoUrl')) {
    let found: string | undefined;
    for (const candidate of LOGO_CANDIDATES) {
      if (await served(candidate)) {
        found = candidate;
        break;
      }
    }
    if (found) logoUrl = siteUrl(config.site, `/${found}`);
    else
      warnings.push({
        code: 'config_invalid',
        file: configFile,
        field: 'aiPlugin.logoUrl',
        message: `is not set, and the site serves no logo (none of /${LOGO_CANDIDATES.slice(0, 3).join(', /')} … in ${shown.join(', ')}): /.well-known/ai-plugin.json's logo_url is ${logoUrl}, which answers 404`,
        hint: `put the site's logo in ${config.generatorStatic[0] ?? config.static ?? 'static'}/logo.png, or set aiPlugin.logoUrl in ${configFile} to the address of one`,
      });
  } else {
    const path = sitePath(config.site, logoUrl);
    if (path !== undefined && !(await served(path))) {
      warnings.push({
        code: 'config_invalid',
        file: configFile,
        field: 'aiPlugin.logoUrl',
        message: `is ${logoUrl}, a file the site does not serve (no ${path} in ${shown.join(', ')}): /.well-known/ai-plugin.json's logo_url answers 404`,
        hint: `put the logo at ${config.generatorStatic[0] ?? config.static ?? 'static'}/${path}, or set aiPlugin.logoUrl to the address of one the site serves`,
      });
    }
  }
  if (config.aiPluginDefaulted.includes('contactEmail')) {
    warnings.push({
      code: 'config_invalid',
      file: configFile,
      field: 'aiPlugin.contactEmail',
      message: `is not set: /.well-known/ai-plugin.json and /openapi.json give ${config.aiPlugin.contactEmail}, a mailbox that may not exist`,
      hint: `set aiPlugin.contactEmail in ${configFile} to an address you read`,
    });
  }
  if (logoUrl === config.aiPlugin.logoUrl) return { config, warnings };
  return { config: { ...config, aiPlugin: { ...config.aiPlugin, logoUrl } }, warnings };
}

/** The path of an address on the site (no query or fragment), or undefined when it is elsewhere. */
function sitePath(site: string, address: string): string | undefined {
  const url = new URL(address);
  url.search = '';
  url.hash = '';
  if (!url.href.startsWith(site)) return undefined;
  const path = decodeURIComponent(url.href.slice(site.length));
  return path === '' || path.endsWith('/') ? undefined : path;
}
