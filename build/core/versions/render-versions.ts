import type { SiteConfig } from '../config/site-config.ts';
import type { ContentModel } from '../content/model.ts';
import { currentVersion, isoSeconds, type Lifecycle, versionState } from '../edge/lifecycle.ts';
import { apiUrl, buildManifest, MANIFEST_PATH, type VersionManifest } from '../edge/version-manifest.ts';
import type { Problem } from '../errors.ts';
import type { ItemFragments } from '../output/item-fragments.ts';
import { type OutputFile, prettyJsonFile } from '../output/outputs.ts';
import { joinName, patchedJoin } from '../output/patched-join.ts';
import {
  type DeprecationBody,
  joinedOf,
  type SerializerRegistry,
  type TypeCounts,
} from '../serializers/registry.ts';
import { validateManifest } from './validate-manifest.ts';

export interface VersionsContext {
  config: SiteConfig;
  /** The build's clock: each version's state. */
  now: Date;
  /** The bodies' `generated`. */
  generated: Date;
  lifecycle: Lifecycle;
  serializers: SerializerRegistry;
  /** RenderContext's: the output folder whose last joins this one's are patched from. */
  outputs?: string;
}

/** What a version's body is made of. */
export interface VersionsContent {
  counts: TypeCounts;
  /** Every item's fragments, in index order. */
  items: readonly ItemFragments[];
  /** The whole model, for a version whose serializer renders no items one by one (made when asked). */
  model: () => ContentModel;
}

/** One version's body: its file's text, and what the caller validates before anything is written. */
export interface RenderedBody {
  text: string;
  /** Joined from item fragments: the body with its list (`items`) left empty; the items were checked as they were made. */
  envelope?: { body: object; items: string };
  /** Serialized whole: the body. */
  value?: object;
}

export interface RenderedVersions {
  /** Bodies per published (not withdrawn) version, validated by the caller before anything is written. */
  bodies: Record<string, RenderedBody>;
  latest: string;
  manifest: VersionManifest;
  /** What the manifest's schema says of it (checked before it was serialized); empty when valid. */
  manifestProblems: Problem[];
  files: OutputFile[];
}

/**
 * Every version that is current or deprecated at the build time, each from its own serializer; the
 * alias as a copy of the current one; and the manifest. A withdrawn version's files are no longer
 * published: the Pages Function answers 410 for its routes.
 */
export function renderVersions(content: VersionsContent, ctx: VersionsContext): RenderedVersions {
  const { config, lifecycle } = ctx;
  const current = currentVersion(lifecycle);
  const currentUrl = apiUrl(config.site, current.version);
  const bodies: Record<string, RenderedBody> = {};
  const files: OutputFile[] = [];
  const texts = new Map<string, string>();
  for (const version of lifecycle.versions) {
    const state = versionState(version, ctx.now);
    if (state === 'withdrawn') continue;
    const serializer = ctx.serializers[version.version];
    if (!serializer) throw new Error(`no serializer for ${version.version}`); // refused by the config check
    let deprecation: DeprecationBody | null = null;
    if (state === 'deprecated' && version.deprecated && version.sunset) {
      deprecation = {
        version: version.version,
        successor: current.version,
        successor_url: currentUrl,
        deprecated_at: isoSeconds(version.deprecated),
        sunset_at: isoSeconds(version.sunset),
        documentation: version.documentation,
      };
    }
    const context = { config, generated: ctx.generated, current: current.version, deprecation };
    let body: RenderedBody;
    const joined = joinedOf(serializer);
    if (joined) {
      const envelope = joined.envelope(content.counts, context);
      const items = content.items.map((item) => {
        const text = item.versions[version.version];
        if (text === undefined) throw new Error(`item ${item.facts.id} has no ${version.version} fragment`);
        return text;
      });
      const name = joinName(ctx.outputs, `api/${version.version}/content.json`);
      body = { text: joinBody(envelope.body, envelope.items, items, '\n', name), envelope };
    } else {
      const value = serializer.serialize(content.model(), context);
      body = { text: `${JSON.stringify(value)}\n`, value };
    }
    bodies[version.version] = body;
    const file = { path: `api/${version.version}/content.json`, content: body.text };
    texts.set(version.version, file.content);
    files.push(
      file,
      prettyJsonFile(`api/${version.version}/schema.json`, {
        ...serializer.schema,
        $id: apiUrl(config.site, version.version, 'schema.json'),
      }),
    );
  }
  const latest = texts.get(current.version);
  if (latest === undefined) throw new Error(`the current version ${current.version} has no body`);
  // The alias is a copy, not a rewrite: a plain static file on every host, cached at the edge,
  // with the same bytes and so the same ETag as the versioned route. The same string, serialized once.
  files.push({ path: 'api/content.json', content: latest });
  const manifest = buildManifest(lifecycle, config.site, config.documentation, config.apiReference.url);
  // Checked as data, before it becomes the file the Function reads: the caller stops on a problem.
  const manifestProblems = validateManifest(manifest);
  files.push(prettyJsonFile(MANIFEST_PATH, manifest));
  return { bodies, latest: current.version, manifest, manifestProblems, files };
}

/**
 * `JSON.stringify(body)` with `items` (an empty list in `body`) holding the given items' JSON, then
 * `end`: the same text as stringifying the body with those items in it, without parsing or stringifying
 * them again. Made in one piece by one join: joined in steps (the list, then the body around it, then
 * its line break) the text was copied whole at each step, and at 10,000 items each copy is 3.7 MB of
 * new memory, at every save of dev. With a `name`, the last join of that name is patched (patched-join.ts).
 */
export function joinBody(
  body: object,
  items: string,
  texts: readonly string[],
  end = '',
  name?: string,
): string {
  const before: string[] = [];
  const after: string[] = [];
  let listed = false;
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    if (key === items) {
      listed = true;
      before.push(`${JSON.stringify(key)}:[`);
    } else (listed ? after : before).push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }
  const head = `{${before.join(',')}`;
  const tail = `${listed ? ']' : ''}${after.length > 0 ? `,${after.join(',')}` : ''}}${end}`;
  if (!listed || texts.length === 0) return `${head}${tail}`;
  // The list's items joined with the body's text before the first and after the last: one copy.
  const pieces = texts.slice();
  pieces[0] = `${head}${pieces[0]}`;
  pieces[pieces.length - 1] = `${pieces[pieces.length - 1]}${tail}`;
  return patchedJoin(name, pieces, ',');
}
