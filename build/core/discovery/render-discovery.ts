import { aiPluginForKinds } from '../config/ai-plugin-config.ts';
import type { SiteConfig } from '../config/site-config.ts';
import { CONTENT_TYPES, type ContentType, type Language } from '../edge/languages.ts';
import { TOOLS } from '../edge/mcp/tools.ts';
import type { HeaderRule } from '../output/headers-file.ts';
import { type OutputFile, prettyJsonFile } from '../output/outputs.ts';
import { DISCOVERY_PATHS } from './addresses.ts';
import { aiPluginManifest } from './ai-plugin.ts';
import { type ApiVersion, currentVersion } from './api-versions.ts';
import { docsPage } from './docs-page.ts';
import { LANDING_PAGE_PATH, landingPage } from './landing-page.ts';
import { llmsTxt } from './llms-txt.ts';
import { openApiDocument } from './openapi.ts';

export interface DiscoveryContext {
  config: SiteConfig;
  versions: readonly ApiVersion[];
  /** The JSON Schema of each version's body (the serializer registry's). */
  schemaOf?: (version: string) => object | undefined;
  /** RenderContext's: the output folder whose last joins this one's are patched from. */
  outputs?: string;
}

/** What the discovery documents take from the content: how many items, and each language's llms.txt lines. */
export interface DiscoveryContent {
  items: number;
  /** Per language, each type's llms.txt lines in index order (llms-txt.ts `llmsLine`). */
  llms: Readonly<Record<Language, Readonly<Partial<Record<ContentType, readonly string[]>>>>>;
}

/**
 * /openapi.json, /.well-known/ai-plugin.json, the llms.txt files, the API reference (/docs/) and, when the configuration asks
 * for it, the landing page at /, from the content and the config.
 */
export function discoveryFiles(content: DiscoveryContent, ctx: DiscoveryContext): OutputFile[] {
  const { config, versions } = ctx;
  const version = currentVersion(versions).name;
  // The kinds the site has: every item has a line in the languages it has (all three for an empty site).
  const present = CONTENT_TYPES.filter((type) =>
    config.languages.some((l) => (content.llms[l][type]?.length ?? 0) > 0),
  );
  const kinds = present.length > 0 ? present : [...CONTENT_TYPES];
  const landing = config.landingPage
    ? [
        {
          path: LANDING_PAGE_PATH,
          content: landingPage({ config, versions, tools: TOOLS, items: content.items }),
        },
      ]
    : [];
  return [
    openApiFile(config, versions, kinds, ctx.schemaOf),
    prettyJsonFile(DISCOVERY_PATHS.aiPlugin, aiPluginManifest(aiPluginForKinds(config, kinds), config.site)),
    ...config.languages.map((lang) => ({
      path: config.llmsTxt[lang] as string,
      content: llmsTxt(content.llms[lang], lang, {
        config,
        version,
        // The kinds the site has: every item has a line in the languages it has.
        present,
        ...(ctx.outputs !== undefined && { outputs: ctx.outputs }),
      }),
    })),
    { path: `${config.apiReference.path}index.html`, content: docsPage(config, version) },
    ...landing,
  ];
}

// The last /openapi.json made, by what it is made of: dev renders it again at every save, and at 1,000
// items it was the largest part of a save's render (17 ms) though it depends on no item.
let lastOpenApi: { key: string; file: OutputFile } | undefined;

function openApiFile(
  config: SiteConfig,
  versions: readonly ApiVersion[],
  kinds: readonly ContentType[],
  schemaOf: DiscoveryContext['schemaOf'],
): OutputFile {
  const key = JSON.stringify([
    config,
    versions,
    kinds,
    schemaOf ? versions.map((v) => schemaOf(v.name) ?? null) : 0,
  ]);
  if (lastOpenApi?.key !== key) {
    const document = openApiDocument({ config, versions, kinds, ...(schemaOf && { schemaOf }) });
    lastOpenApi = { key, file: prettyJsonFile(DISCOVERY_PATHS.openapi, document) };
  }
  return { ...lastOpenApi.file };
}

/**
 * The discovery documents are static files, open to every origin; a script there may also read their
 * ETag to revalidate. (Cloudflare's static handler answers a CORS preflight with 405, so these
 * documents take only requests that need none: see docs/api.md.)
 */
export function discoveryHeaderRules(config: SiteConfig): HeaderRule[] {
  const paths = [
    DISCOVERY_PATHS.openapi,
    DISCOVERY_PATHS.aiPlugin,
    ...config.languages.map((l) => config.llmsTxt[l] as string),
  ];
  return paths.map((path) => ({
    path: `/${path}`,
    headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'ETag' },
  }));
}
