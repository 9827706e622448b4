import contentIndexV1Schema from '../../schemas/v1/content-index.schema.json' with { type: 'json' };
import type { ContentModel } from '../model.ts';
import type { SiteConfig } from '../site-config.ts';
import { serializeV1 } from './v1.ts';

/** `versions.deprecation` of a deprecated version's body: `$defs/Deprecation` in every version's schema. */
export interface DeprecationBody {
  version: string;
  successor: string;
  successor_url: string;
  deprecated_at: string;
  sunset_at: string;
  documentation?: string;
}

export interface VersionContext {
  config: SiteConfig;
  generated: Date;
  /** The current (latest published) version's name. */
  current: string;
  /** `null` while the version is current. */
  deprecation: DeprecationBody | null;
}

/** What publishing one version needs: its body from the one content model, and its JSON Schema. */
export interface VersionSerializer {
  serialize(model: ContentModel, ctx: VersionContext): object;
  /** The published schema: the last gate before writing, the published `/api/<version>/schema.json`. */
  schema: Record<string, unknown>;
  /** The schema's source file, copied byte for byte by `content-index schema snapshot`. */
  schemaFile: URL;
  /** The frozen snapshot the shape guard compares `schema` with. */
  snapshotFile: URL;
}

export type SerializerRegistry = Readonly<Record<string, VersionSerializer>>;

/**
 * Every version this build can publish. A new version is a new serializer and schema registered here;
 * the older ones stay, unchanged, until their version is withdrawn.
 */
export const SERIALIZERS: SerializerRegistry = {
  v1: {
    serialize: serializeV1,
    schema: contentIndexV1Schema,
    schemaFile: new URL('../../schemas/v1/content-index.schema.json', import.meta.url),
    snapshotFile: new URL('../../schemas/snapshots/v1.schema.json', import.meta.url),
  },
};
