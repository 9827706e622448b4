import { relative, resolve } from 'node:path';
import { type ResolvedHeaders, resolveHeadersConfig } from '../core/config/resolve-lifecycle-config.ts';
import type { SiteConfig } from '../core/config/site-config.ts';
import { ContentIndexError } from '../core/errors.ts';
import type { SerializerRegistry } from '../core/serializers/registry.ts';
import { checkPublishedRecord } from '../core/versions/published-record.ts';
import { importConfigModule } from './load-config.ts';
import { type LoadedRecord, readPublishedRecord } from './published-record.ts';

export interface LoadLifecycleOptions {
  root: string;
  /** `headers.config.ts` by default. */
  file: string;
  now: Date;
  serializers: SerializerRegistry;
  config: SiteConfig;
}

export interface LoadedLifecycle extends ResolvedHeaders {
  /** `versions.lock.json`: the versions this site has published before. */
  record: LoadedRecord;
}

/**
 * Loads and validates `headers.config.ts` and holds it to the site's record of published versions.
 * Throws ContentIndexError naming the rule or the field. The shape guard is the next step
 * (schema-snapshots.ts: guardShapes).
 */
export async function loadLifecycle(options: LoadLifecycleOptions): Promise<LoadedLifecycle> {
  const input = await importConfigModule(options.root, options.file, 'headers configuration', {
    helper: 'defineHeaders',
    flag: '--headers',
    // The day of the first build is a fine publication date for a site's first API version.
    example: `    export default { versions: { v1: { published: '${options.now.toISOString().slice(0, 10)}' } } };`,
  });
  const file = relative(options.root, resolve(options.root, options.file));
  const headers = resolveHeadersConfig(input, {
    file,
    now: options.now,
    serializers: options.serializers,
    site: options.config.site,
    documentation: options.config.documentation,
  });
  const record = await readPublishedRecord(options.root);
  const removed = checkPublishedRecord(record.record, headers.lifecycle, { file, now: options.now });
  if (removed.length > 0) throw new ContentIndexError(removed);
  return { ...headers, record };
}
