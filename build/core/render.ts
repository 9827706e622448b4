import type { ApiVersion } from './discovery/api-versions.ts';
import { discoveryFiles } from './discovery/render-discovery.ts';
import type { ContentModel } from './model.ts';
import { jsonFile, type OutputFile, prettyJsonFile } from './outputs.ts';
import { type ContentIndexV1, serializeV1 } from './serializers/v1.ts';
import type { SiteConfig } from './site-config.ts';
import { indexSchema } from './validate-index.ts';

export interface RenderContext {
  config: SiteConfig;
  generated: Date;
  /** Published versions and their lifecycle state. Default: the latest version alone, current. */
  versions?: readonly ApiVersion[];
}

export interface Rendered {
  /** Bodies per version, validated by the caller before anything is written. */
  bodies: Record<string, ContentIndexV1>;
  latest: string;
  files: OutputFile[];
}

/** Turns the content model into every file the build publishes. Pure: the caller writes them. */
export function render(model: ContentModel, ctx: RenderContext): Rendered {
  const latest = 'v1';
  const body = serializeV1(model, {
    config: ctx.config,
    generated: ctx.generated,
    current: latest,
    deprecation: null,
  });
  const versioned = jsonFile(`api/${latest}/content.json`, body);
  const files: OutputFile[] = [
    versioned,
    // The alias is a copy, not a rewrite: a plain static file on every host, cached at the edge,
    // with the same bytes and so the same ETag as the versioned route.
    { path: 'api/content.json', content: versioned.content },
    prettyJsonFile(`api/${latest}/schema.json`, publishedSchema(latest, ctx.config)),
  ];
  files.push(
    ...discoveryFiles(model, {
      config: ctx.config,
      versions: ctx.versions ?? [{ name: latest, state: 'current' }],
    }),
  );
  return { bodies: { [latest]: body }, latest, files };
}

function publishedSchema(version: string, config: SiteConfig): object {
  const schema = indexSchema(version);
  if (!schema) throw new Error(`no schema for ${version}`);
  return { ...schema, $id: new URL(`api/${version}/schema.json`, config.site).href };
}
