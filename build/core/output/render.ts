import { DEFAULT_CACHE_CONTROL } from '../config/lifecycle-config.ts';
import type { SiteConfig } from '../config/site-config.ts';
import { generatedAt, type SourceDates } from '../content/generated.ts';
import type { ContentModel } from '../content/model.ts';
import { discoveryFiles, discoveryHeaderRules } from '../discovery/render-discovery.ts';
import { isoSeconds, type Lifecycle, versionState } from '../edge/lifecycle.ts';
import type { McpPrepared } from '../edge/mcp/mcp-data.ts';
import type { VersionManifest } from '../edge/version-manifest.ts';
import type { Problem } from '../errors.ts';
import { prepareMcp } from '../mcp/prepare-mcp.ts';
import { MCP_VERSION, mcpSerializer, SERIALIZERS, type SerializerRegistry } from '../serializers/registry.ts';
import type { ContentIndexV1 } from '../serializers/v1.ts';
import { renderVersions } from '../versions/render-versions.ts';
import type { HeaderRule } from './headers-file.ts';
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
}

export interface Rendered {
  /** Bodies per published version, validated by the caller before anything is written. */
  bodies: Record<string, object>;
  /** The index's `generated`: when the published content last changed. */
  generated: Date;
  latest: string;
  /** `api/versions.json`'s content (one of `files`), validated by the caller before anything is written. */
  manifest: VersionManifest;
  /** The manifest's schema problems, found before it was serialized. */
  manifestProblems: Problem[];
  files: OutputFile[];
  /**
   * What the MCP server serves: items, translations, search documents and statistics. Not a published
   * file: the build turns it into the Function's data module, or D1's SQL (stages/mcp-output.ts).
   */
  mcp: McpPrepared;
}

/** Turns the content model into every file the build publishes. Pure: the caller writes them. */
export function render(model: ContentModel, ctx: RenderContext): Rendered {
  const serializers = ctx.serializers ?? SERIALIZERS;
  const { now } = ctx;
  const generated = generatedAt(model, ctx.lifecycle?.versions ?? [], ctx.sources ?? {}, now);
  const lifecycle = ctx.lifecycle ?? defaultLifecycle(ctx.config, serializers, generated);
  const api = renderVersions(model, { config: ctx.config, now, generated, lifecycle, serializers });
  const files: OutputFile[] = [...api.files];
  // Other outputs add the `_headers` rules their files need here; the serving files are rendered last.
  const headerRules: HeaderRule[] = [...discoveryHeaderRules(ctx.config)];
  const serving: ServingContext = { manifest: api.manifest, now, headerRules };
  if (ctx.author) serving.author = ctx.author;
  // The MCP tools speak one version's items, the registry's MCP_VERSION, whatever the latest version is.
  const mcpBody = (api.bodies[MCP_VERSION] ??
    mcpSerializer(serializers).serialize(model, {
      config: ctx.config,
      generated,
      current: api.latest,
      deprecation: null,
    })) as ContentIndexV1;
  files.push(
    ...discoveryFiles(model, {
      config: ctx.config,
      versions: lifecycle.versions.map((v) => ({
        name: v.version,
        state: versionState(v, now),
        ...(v.sunset && { sunset: isoSeconds(v.sunset) }),
      })),
      schemaOf: (version) => serializers[version]?.schema,
    }),
  );
  files.push(...(ctx.assets ?? []));
  serving.files = files.map((f) => f.path);
  files.push(...renderServing(serving));
  // Worked out when first read: dev serves the files before the MCP data is made from it.
  let mcp: McpPrepared | undefined;
  return {
    bodies: api.bodies,
    generated,
    latest: api.latest,
    manifest: api.manifest,
    manifestProblems: api.manifestProblems,
    files,
    get mcp() {
      mcp ??= prepareMcp(model, { config: ctx.config, generated, items: mcpBody.content });
      return mcp;
    },
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
