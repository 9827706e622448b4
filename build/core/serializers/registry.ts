import contentIndexV1Schema from '../../schemas/v1/content-index.schema.json' with { type: 'json' };
import { BUNDLED } from '../bundled.ts';
import type { ContentEntry, ContentModel } from '../content/model.ts';
import {
  type DeprecationV1,
  envelopeV1,
  itemV1,
  type SerializeContext,
  serializeV1,
  type TypeCounts,
} from './v1.ts';

export type { TypeCounts } from './v1.ts';

/** `versions.deprecation` of a deprecated version's body: `$defs/Deprecation` in every version's schema. */
export type DeprecationBody = DeprecationV1;

/** What every version's serializer gets: the same for all versions, so v1's type serves. */
export type VersionContext = SerializeContext;

/** What publishing one version needs: its body from the one content model, and its JSON Schema. */
export interface VersionSerializer {
  /** The body. A `serialize` made {@link joinable} is joined from its items instead. */
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
 * A body made of one item per entry, each depending on nothing but its entry, around them: how it is
 * joined (build/core/output/item-fragments.ts keeps each item's JSON between builds, and the body is
 * joined from them). `serialize` must give the same body; it stays the definition.
 */
export interface Joined {
  item(entry: ContentEntry): unknown;
  /** The body around the items, `items` naming its list (left empty). */
  envelope(counts: TypeCounts, ctx: VersionContext): { body: object; items: string };
}

const JOINED = new WeakMap<VersionSerializer['serialize'], Joined>();

/**
 * Declares that `serialize` is joined from `joined`'s items: kept with the function itself, so a
 * registry entry whose `serialize` is replaced (`{ ...SERIALIZERS.v1, serialize: mine }`) is
 * serialized whole, never joined from the items of the one it replaced.
 */
export function joinable<S extends VersionSerializer['serialize']>(serialize: S, joined: Joined): S {
  JOINED.set(serialize, joined);
  return serialize;
}

/** How a version's body is joined from its items, when its `serialize` was made {@link joinable}. */
export function joinedOf(serializer: VersionSerializer): Joined | undefined {
  return JOINED.get(serializer.serialize);
}

/**
 * Every version this build can publish. A new version is a new serializer and schema registered here;
 * the older ones stay, unchanged, until their version is withdrawn.
 */
export const SERIALIZERS: SerializerRegistry = {
  v1: {
    serialize: joinable(serializeV1, {
      item: itemV1,
      envelope: (counts, ctx) => ({ body: envelopeV1(counts, ctx), items: 'content' }),
    }),
    schema: contentIndexV1Schema,
    schemaFile: schemaUrl('v1/content-index.schema.json'),
    snapshotFile: schemaUrl('snapshots/v1.schema.json'),
  },
};

/**
 * The version whose items the MCP tools answer with: their schemas (schemas/mcp/) embed its ContentItem,
 * so MCP keeps speaking it when a later version becomes current.
 */
export const MCP_VERSION = 'v1';

/** MCP's serializer: the registry's, else the built-in one (a registry passed in may not hold it). */
export function mcpSerializer(serializers: SerializerRegistry): VersionSerializer {
  const serializer = serializers[MCP_VERSION] ?? SERIALIZERS[MCP_VERSION];
  if (!serializer) throw new Error(`the serializer registry has no ${MCP_VERSION}, the version MCP speaks`);
  return serializer;
}

/** A registered version's published schema (the serializer registry is the one list of versions). */
export function indexSchema(version: string): object | undefined {
  return SERIALIZERS[version]?.schema;
}

/** A file of `build/schemas/`, which the package carries as `dist/schemas/`. */
function schemaUrl(path: string): URL {
  return new URL(`${BUNDLED ? './schemas/' : '../../schemas/'}${path}`, import.meta.url);
}
