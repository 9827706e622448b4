import { DEFAULT_CACHE_CONTROL } from '../config/lifecycle-config.ts';
import type { SiteConfig } from '../config/site-config.ts';
import { expiredDates, generatedAt, type SourceDates } from '../content/generated.ts';
import type { ContentModel, LeftOut } from '../content/model.ts';
import {
  type DiscoveryContent,
  discoveryFiles,
  discoveryHeaderRules,
} from '../discovery/render-discovery.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language } from '../edge/languages.ts';
import { isoSeconds, type Lifecycle, versionState } from '../edge/lifecycle.ts';
import type { McpInfo, McpPrepared } from '../edge/mcp/mcp-data.ts';
import type { VersionManifest } from '../edge/version-manifest.ts';
import type { Problem } from '../errors.ts';
import { mcpInfo } from '../mcp/prepare-mcp.ts';
import { SERIALIZERS, type SerializerRegistry } from '../serializers/registry.ts';
import { typeCounts } from '../serializers/v1.ts';
import { type RenderedBody, renderVersions } from '../versions/render-versions.ts';
import type { HeaderRule } from './headers-file.ts';
import type { ItemFragments } from './item-fragments.ts';
import type { OutputFile } from './outputs.ts';
import { renderServing, type ServingContext } from './render-serving.ts';

export interface RenderContext {
  config: SiteConfig;
  /** The build's clock: which versions are published, deprecated or withdrawn at this build. */
  now: Date;
  /** What `generated` is derived from besides the content itself (see generated.ts). Default: none. */
  sources?: SourceDates;
  /** From `headers.config.ts`. Default: the latest registered version alone, current. */
  lifecycle?: Lifecycle;
  /** Default: every version this build can publish (`build/core/serializers/registry.ts`). */
  serializers?: SerializerRegistry;
  /** The author's `_headers` and `_redirects` (project root, then the generator's copies), merged into the generated ones. */
  author?: ServingContext['author'];
  /** Files the caller read from disk (the API reference's renderer), published as they are. */
  assets?: readonly OutputFile[];
  /**
   * The output folder the files go to: a join of many pieces (the index, each llms.txt) is patched from
   * the last one made for that folder (patched-join.ts). Without it, joined whole.
   */
  outputs?: string;
}

export interface Rendered {
  /** Bodies per published version, validated by the caller before anything is written. */
  bodies: Record<string, RenderedBody>;
  /** The index's `generated`: when the published content last changed. */
  generated: Date;
  latest: string;
  /** `api/versions.json`'s content (one of `files`), validated by the caller before anything is written. */
  manifest: VersionManifest;
  /** The manifest's schema problems, found before it was serialized. */
  manifestProblems: Problem[];
  files: OutputFile[];
  /**
   * What the MCP server serves: the site, the statistics, and each item's MCP fragments. Not a published
   * file: the build turns it into the Function's data module, or D1's SQL (stages/mcp-output.ts).
   */
  mcp: McpMaterial;
}

/** The MCP server's material: joined into a backend's form by stages/mcp-output.ts. */
export interface McpMaterial {
  info: McpInfo;
  /** Every item's fragments, in index order. */
  items: readonly ItemFragments[];
}

/** What the outputs are joined from. */
export interface RenderInput {
  /** Every published item's fragments (item-fragments.ts), in index order. */
  items: readonly ItemFragments[];
  /** The files left out (an expired page's date moves `generated`). */
  leftOut: readonly LeftOut[];
  /** The whole model, for a version whose serializer renders no items one by one (made when asked). */
  model: () => ContentModel;
}

/** Joins every file the build publishes from the items' fragments. Pure: the caller writes them. */
export function render(input: RenderInput, ctx: RenderContext): Rendered {
  const serializers = ctx.serializers ?? SERIALIZERS;
  const { now } = ctx;
  const { items } = input;
  const generated = generatedAt(
    [...items.map((item) => item.facts.newest), ...expiredDates(input.leftOut, now)],
    ctx.lifecycle?.versions ?? [],
    ctx.sources ?? {},
    now,
  );
  const lifecycle = ctx.lifecycle ?? defaultLifecycle(ctx.config, serializers, generated);
  const api = renderVersions(
    { counts: typeCounts(items.map((item) => item.facts)), items, model: input.model },
    {
      config: ctx.config,
      now,
      generated,
      lifecycle,
      serializers,
      ...(ctx.outputs !== undefined && { outputs: ctx.outputs }),
    },
  );
  const files: OutputFile[] = [...api.files];
  // Other outputs add the `_headers` rules their files need here; the serving files are rendered last.
  const headerRules: HeaderRule[] = [...discoveryHeaderRules(ctx.config)];
  const serving: ServingContext = { manifest: api.manifest, now, headerRules };
  if (ctx.author) serving.author = ctx.author;
  files.push(
    ...discoveryFiles(
      { items: items.length, llms: llmsLines(items) },
      {
        config: ctx.config,
        ...(ctx.outputs !== undefined && { outputs: ctx.outputs }),
        versions: lifecycle.versions.map((v) => ({
          name: v.version,
          state: versionState(v, now),
          ...(v.sunset && { sunset: isoSeconds(v.sunset) }),
        })),
        schemaOf: (version) => serializers[version]?.schema,
      },
    ),
  );
  files.push(...(ctx.assets ?? []));
  serving.files = files.map((f) => f.path);
  files.push(...renderServing(serving));
  return {
    bodies: api.bodies,
    generated,
    latest: api.latest,
    manifest: api.manifest,
    manifestProblems: api.manifestProblems,
    files,
    mcp: mcpMaterial(items, ctx.config, generated),
  };
}

/**
 * The material with its statistics worked out when first read: a dev save publishes the files first and
 * the /mcp data after (BuildOptions.publishFirst), so at 10,000 items the 16 ms of one pass over every
 * item's facts is no longer spent before the edit is served.
 */
function mcpMaterial(items: readonly ItemFragments[], config: SiteConfig, generated: Date): McpMaterial {
  let info: McpInfo | undefined;
  return {
    get info() {
      info ??= mcpInfo(
        items.map((item) => item.facts),
        { config, generated },
      );
      return info;
    },
    items,
  };
}

/** Each language's llms.txt lines, by type, in index order. */
function llmsLines(items: readonly ItemFragments[]): DiscoveryContent['llms'] {
  const lines = Object.fromEntries(
    LANGUAGES.map((lang) => [lang, Object.fromEntries(CONTENT_TYPES.map((type) => [type, [] as string[]]))]),
  ) as Record<Language, Record<ContentType, string[]>>;
  for (const item of items) {
    for (const lang of LANGUAGES) {
      const line = item.llms[lang];
      if (line !== undefined) lines[lang][item.facts.type].push(line);
    }
  }
  return lines;
}

/** The MCP material as one value (the stdio server and tests): every item's entry and search document. */
export function mcpPrepared(material: McpMaterial): McpPrepared {
  return {
    info: material.info,
    entries: material.items.map((item) => item.mcp.entry),
    documents: material.items.map((item, id) => ({ ...item.mcp.document, id })),
  };
}

/** Without a lifecycle, the latest version alone, published when the content last changed. */
function defaultLifecycle(config: SiteConfig, serializers: SerializerRegistry, published: Date): Lifecycle {
  const latest =
    Object.keys(serializers)
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
      .at(-1) ?? 'v1';
  return {
    versions: [{ version: latest, published, documentation: config.documentation }],
    scheduled: [],
    cache: { ...DEFAULT_CACHE_CONTROL },
  };
}
