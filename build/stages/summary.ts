import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FollowedLink, LeftOut } from '../core/content/model.ts';
import { type Language, languageCounts } from '../core/edge/languages.ts';
import { isoSeconds } from '../core/edge/lifecycle.ts';
import type { Problem } from '../core/errors.ts';
import { type Headroom, headroom } from '../core/output/deploy-limits.ts';
import type { OutputFile } from '../core/output/outputs.ts';
import type { Rendered } from '../core/output/render.ts';
import { typeCounts } from '../core/serializers/v1.ts';
import { compareText } from '../core/text-order.ts';
import type { Deployment } from './deployment.ts';
import type { Items } from './items.ts';
import type { McpOutput } from './mcp-output.ts';
import { textBytes, textDigest, textEncoded } from './output/output-text.ts';
import type { SitePagesCheck } from './site-pages.ts';

const gzip = promisify(gzipCallback);

/** One published file's size, and its text's digest (what its compressed size is kept by). */
export interface FileSize {
  path: string;
  bytes: number;
  gzipBytes?: number;
  digest?: string;
}

/**
 * What a build's report says, worked out from the items' facts (no entry needed), and kept with the
 * store so that a build which finds nothing changed reports what the last one did.
 */
export interface BuildSummary {
  items: Record<'posts' | 'projects' | 'tips' | 'total', number>;
  /** How many items have each translation. */
  translations: Record<Language, number>;
  leftOut: LeftOut[];
  warnings: Problem[];
  links: FollowedLink[];
  files: FileSize[];
  /** The index's `generated`. */
  generated: string;
  mcp?: Omit<McpOutput, 'files'>;
  mcpData?: { written: boolean; served: string };
  headroom?: Headroom;
  /** The index against the site generator's pages (stages/site-pages.ts). */
  sitePages: SitePagesCheck;
}

/** The report's order of files (core/text-order.ts), in which the summary keeps them. */
export function reportOrder(a: { path: string }, b: { path: string }): number {
  return compareText(a.path, b.path);
}

/**
 * The files in the report's order: the last build's when it had every one of them (an edit changes what
 * files hold, seldom which files there are), so that a build after an edit does not sort again a few
 * dozen paths the last build sorted.
 */
function inReportOrder<T extends { path: string }>(
  files: T[],
  before: readonly { path: string }[] = [],
): T[] {
  const at = new Map(before.map((file, i) => [file.path, i]));
  if (before.length === 0 || !files.every((file) => at.has(file.path))) return files.sort(reportOrder);
  return files.sort((a, b) => (at.get(a.path) as number) - (at.get(b.path) as number));
}

export function summaryOf(
  items: Items,
  rendered: Rendered & { sitePages: SitePagesCheck },
  deployment: Deployment | undefined,
  warnings: readonly Problem[],
  more: {
    /** The write's warnings, those about its inputs apart (stages/write.ts). */
    written?: { warnings: readonly Problem[]; standing: readonly Problem[] };
    sizes?: readonly FileSize[];
    /** The last build's, whose order of files is kept when it has every file of this one. */
    previous?: BuildSummary;
  },
): BuildSummary {
  const { written, sizes } = more;
  // What this write did (a stray file kept) is told once: a build recalled later does not say it again.
  const events = new Set(written?.warnings.filter((w) => !written.standing.includes(w)));
  // Counted in one pass with plain counters: a dev save at 10,000 items counts them all again.
  const translations = languageCounts();
  for (const item of items.items) for (const lang of item.facts.languages) translations[lang]++;
  const summary: BuildSummary = {
    items: typeCounts(items.items.map((item) => item.facts)),
    translations,
    leftOut: items.leftOut,
    warnings: warnings.filter((w) => !events.has(w)),
    links: items.links,
    files: inReportOrder(
      sizes ? [...sizes] : rendered.files.map((f) => ({ path: f.path, bytes: textBytes(f) })),
      more.previous?.files,
    ),
    generated: isoSeconds(rendered.generated),
    sitePages: rendered.sitePages,
  };
  if (deployment) {
    const { files: _files, ...mcp } = deployment.mcp;
    summary.mcp = mcp;
    summary.mcpData = deployment.mcpData;
    summary.headroom = headroom(deployment.figures);
  }
  return summary;
}

/**
 * Each file's size and compressed size, worked out on the thread pool while the build writes; a text
 * the last build published under the same path (the same digest) keeps its compressed size.
 */
export async function fileSizes(
  files: readonly OutputFile[],
  previous: BuildSummary | undefined,
): Promise<FileSize[]> {
  const known = new Map(
    (previous?.files ?? []).flatMap((f) =>
      f.digest && f.gzipBytes !== undefined ? [[f.digest, f.gzipBytes]] : [],
    ),
  );
  // Identical texts (the alias and its version) are hashed and compressed once.
  const compressed = new Map<string, Promise<number>>();
  // One at a time: each compression holds its text's bytes and zlib's state, and at 10,000 items the
  // changed outputs together are about 15 MB, all held at once at the build's peak, as it writes.
  let queue: Promise<unknown> = Promise.resolve();
  return Promise.all(
    files.map(async (file) => {
      const digest = textDigest(file);
      let gzipBytes = known.get(digest) as number | Promise<number> | undefined;
      if (gzipBytes === undefined) {
        let pending = compressed.get(digest);
        if (!pending) {
          // Its bytes taken now: the write may be done, and have let them go, before this one's turn.
          const bytes = textEncoded(file);
          pending = queue.then(() => gzip(bytes)).then((b) => b.length);
          queue = pending;
          compressed.set(digest, pending);
        }
        gzipBytes = pending;
      }
      return { path: file.path, bytes: textBytes(file), gzipBytes: await gzipBytes, digest };
    }),
  );
}

/** The files a build published, read back from the output folder (a build that found nothing changed). */
export function writtenFiles(outDir: string, summary: BuildSummary): OutputFile[] {
  return summary.files.map((f) => ({ path: f.path, content: readFileSync(join(outDir, f.path), 'utf8') }));
}
