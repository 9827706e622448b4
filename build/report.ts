import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FollowedLink, LeftOut, LeftOutReason } from './core/content/model.ts';
import { CONTENT_TYPES, type ContentType, type Language, PLURAL } from './core/edge/languages.ts';
import type { Problem } from './core/errors.ts';
import { groupDigits } from './core/group-digits.ts';
import { formatSize, type Headroom, PLAN_NAME } from './core/output/deploy-limits.ts';
import type { OutputFile } from './core/output/outputs.ts';
import { printable } from './core/printable.ts';
import type { BuildResult, Incremental } from './index.ts';
import { formatBytes } from './stages/parse/format-bytes.js';
import type { SitePagesCheck } from './stages/site-pages.ts';
import { reportOrder } from './stages/summary.ts';

const gzip = promisify(gzipCallback);

/** What every build ends with: printed as text on a terminal, or as this JSON with --json. */
export interface BuildReport {
  ok: true;
  dryRun: boolean;
  outDir: string;
  durationMs: number;
  items: Record<(typeof PLURAL)[ContentType], number> & { total: number };
  /** The language every item is published in (`canonicalLanguage`). */
  canonicalLanguage: Language;
  /** Per language of the site: items that have that translation, and the share of all items. */
  translations: Partial<Record<Language, { items: number; percent: number }>>;
  leftOut: LeftOut[];
  /** Symbolic links among the content the build read through: the link and its target, from the project root. */
  links: FollowedLink[];
  files: { path: string; bytes: number; gzipBytes: number }[];
  warnings: Problem[];
  /** Versions this build recorded (or, in a dry run, would record) in versions.lock.json. */
  recorded: string[];
  timings: BuildResult['timings'];
  /** What the build did again and what it kept from the build before (nothing at all when `unchanged`). */
  incremental: Incremental;
  /** The MCP backend chosen, and the size of what it serves from. */
  mcp?: {
    backend: 'embedded' | 'd1';
    reason: string;
    moduleBytes: number;
    moduleGzipBytes: number;
    d1?: { generation: string; database: string; sqlBytes: number };
    /**
     * Whether the build wrote it into `.content-index/` for the Function: a build into another folder
     * than `servedOut`, the one the Pages project serves, leaves that build's data as it was.
     */
    written: boolean;
    servedOut: string;
  };
  /** The deployment against the plan's limits (largest file, files, Worker). */
  limits?: Headroom;
  /**
   * The index against the site generator's pages in the output folder: whether that check ran (and if
   * not, why), and the pages under the indexed sections that the index does not hold, with the reason.
   */
  sitePages: SitePagesCheck;
}

export interface FailureReport {
  ok: false;
  problems: Problem[];
}

/**
 * Compressed sizes, worked out on the thread pool: identical bodies (the alias and its version) once.
 * The CLI starts this as soon as the files are rendered (BuildOptions.onRendered), so the compression
 * runs on another core while the build writes.
 */
export function gzipSizes(files: readonly OutputFile[]): Map<string, Promise<number>> {
  const sizes = new Map<string, Promise<number>>();
  for (const file of files) {
    if (!sizes.has(file.content)) {
      const size = gzip(file.content).then((b) => b.length);
      size.catch(() => undefined); // awaited by the report; never an unhandled rejection before it
      sizes.set(file.content, size);
    }
  }
  return sizes;
}

export async function createReport(
  result: BuildResult,
  dryRun: boolean,
  sizes: Map<string, Promise<number>> = new Map(),
): Promise<BuildReport> {
  const { summary } = result;
  const items = summary.items;
  const translations: BuildReport['translations'] = {};
  for (const lang of result.config.languages) {
    const share = items.total === 0 ? 0 : (summary.translations[lang] / items.total) * 100;
    translations[lang] = { items: summary.translations[lang], percent: Math.round(share * 10) / 10 };
  }
  // Compressed sizes the build worked out (BuildOptions.sizes), else worked out here.
  const known = summary.files.every((f) => f.gzipBytes !== undefined);
  if (!known) {
    const missing = result.files.filter((f) => !sizes.has(f.content));
    for (const [content, size] of gzipSizes(missing)) sizes.set(content, size);
  }
  // The summary holds its files in the report's order already (summaryOf).
  const files = known
    ? summary.files.map((f) => ({ path: f.path, bytes: f.bytes, gzipBytes: f.gzipBytes ?? 0 }))
    : (
        await Promise.all(
          result.files.map(async (file) => ({
            path: file.path,
            bytes: Buffer.byteLength(file.content),
            gzipBytes: await (sizes.get(file.content) as Promise<number>),
          })),
        )
      ).sort(reportOrder);
  return {
    ok: true,
    dryRun,
    outDir: result.outDir,
    durationMs: Math.round(result.durationMs),
    items,
    canonicalLanguage: result.config.canonicalLanguage,
    translations,
    leftOut: summary.leftOut,
    links: result.links,
    files,
    warnings: result.warnings,
    recorded: result.recorded,
    timings: result.timings,
    incremental: result.incremental,
    ...(result.mcp && {
      mcp: {
        backend: result.mcp.backend,
        reason: result.mcp.reason,
        moduleBytes: result.mcp.module.bytes,
        moduleGzipBytes: result.mcp.module.gzipBytes,
        written: result.mcpData?.written ?? false,
        servedOut: result.mcpData?.served ?? '',
        ...(result.mcp.d1 && {
          d1: {
            generation: result.mcp.d1.generation,
            database: result.mcp.d1.database,
            sqlBytes: result.mcp.d1.sqlBytes,
          },
        }),
      },
    }),
    ...(result.headroom && { limits: result.headroom }),
    sitePages: result.sitePages,
  };
}

/** Left-out files named in the text report before "and N more": the full list is one flag away. */
export const LEFT_OUT_SHOWN = 5;

export function formatReport(report: BuildReport, options: { verbose?: boolean } = {}): string {
  const { items } = report;
  const head = report.dryRun
    ? `✓ ${count(items.total, 'item')} valid; nothing written`
    : `✓ ${count(items.total, 'item')} → ${count(report.files.length, 'file')} in ${printable(report.outDir)}`;
  const lines = [`${head} (${report.durationMs} ms)`];
  lines.push(`  incremental   ${incrementalLine(report.incremental)}`);
  lines.push(`  items         ${CONTENT_TYPES.map((t) => `${PLURAL[t]} ${items[PLURAL[t]]}`).join(' · ')}`);
  lines.push(
    `  translations  ${Object.entries(report.translations)
      .map(([l, t]) => `${l} ${t.items}/${items.total} (${t.percent}%)`)
      .join(' · ')}`,
  );
  lines.push(...leftOutLines(report.leftOut, report.canonicalLanguage, options.verbose ?? false));
  lines.push(...linkLines(report.links, options.verbose ?? false));
  const paths = report.files.map((f) => printable(f.path));
  const width = Math.max(0, ...paths.map((p) => p.length));
  report.files.forEach((file, i) => {
    lines.push(
      `  ${i === 0 ? 'files        ' : '             '} ${(paths[i] ?? '').padEnd(width)}  ${formatBytes(file.bytes).padStart(9)}  gzip ${formatBytes(file.gzipBytes).padStart(9)}`,
    );
  });
  if (report.mcp) {
    const { mcp } = report;
    lines.push(
      mcp.backend === 'embedded'
        ? `  mcp           embedded in the Function (${mcp.reason})`
        : `  mcp           D1 database ${mcp.d1?.database} (${mcp.reason}): ${mcp.d1?.generation}, ${formatSize(mcp.d1?.sqlBytes ?? 0)} of SQL; deploy imports it, content-index d1 import --local for wrangler pages dev`,
    );
    if (!report.dryRun && !mcp.written) {
      lines.push(
        `                not written: the Function's data in .content-index/ is the build of ${printable(mcp.servedOut)}, the folder the Pages project serves (pages_build_output_dir in wrangler.toml); it is bundled with every wrangler pages dev and deploy, so /mcp keeps serving that build (content-index deploy --out uploads this folder with its own)`,
      );
    }
  }
  if (report.limits) {
    const { largest, files, worker, plan } = report.limits;
    const share = (value: number, limit: number) => `${Math.round((value / limit) * 100)}%`;
    lines.push(
      `  limits        ${PLAN_NAME[plan]}: ${largest ? `largest file ${largest.path} ${formatSize(largest.bytes)} of ${formatSize(largest.limit)} (${share(largest.bytes, largest.limit)}) · ` : ''}${groupDigits(files.count)} of ${groupDigits(files.limit)} files · Worker about ${formatSize(worker.gzipBytes)} of ${formatSize(worker.limit)} compressed (${share(worker.gzipBytes, worker.limit)})`,
    );
  }
  lines.push(...sitePagesLines(report.sitePages, options.verbose ?? false));
  return lines.join('\n');
}

/** `nothing changed since the last build` or `1 item redone (post/hola), 999 kept; 2 of 2,588 files read`. */
export function incrementalLine(incremental: Incremental): string {
  if (incremental.unchanged) return 'nothing changed since the last build: nothing was built again';
  const { redone, reused, read, files, redoneItems } = incremental;
  const named = redone > 0 && redone <= 3 ? ` (${redoneItems.map((id) => printable(id)).join(', ')})` : '';
  return `${count(redone, 'item')} redone${named}, ${groupDigits(reused)} kept; ${groupDigits(read)} of ${count(files, 'file')} read`;
}

/**
 * What was left out, summed up: how many items and their files, how many translations of published
 * items, per reason; then the first few files. A large site has hundreds of drafts, and the summary
 * above them is what a build log is read for.
 */
function leftOutLines(leftOut: readonly LeftOut[], canonical: Language, verbose: boolean): string[] {
  if (leftOut.length === 0) return [];
  const lines = [`  left out      ${leftOutSummary(leftOut)}`];
  const shown = verbose ? leftOut : leftOut.slice(0, LEFT_OUT_SHOWN);
  const translated = new Set(leftOut.filter((l) => l.along || !l.wholeItem).map((l) => l.item));
  for (const left of shown) {
    const whole =
      left.wholeItem && left.reason !== 'no-canonical' && translated.has(left.item)
        ? ', with its translations'
        : '';
    lines.push(
      `                ${printable(left.file)} (${left.along ? `with its ${LANGUAGE_NAMES[canonical]} file` : `${leftOutWhy(left)}${whole}`})`,
    );
  }
  if (shown.length < leftOut.length)
    lines.push(`                … and ${leftOut.length - shown.length} more (--verbose lists every file)`);
  return lines;
}

/**
 * `drafts: 1 item (2 files), 1 translation · in the future: 1 item (1 file)`: an item in two languages
 * is one item and two files; a draft translation of a published item is a translation.
 */
export function leftOutSummary(leftOut: readonly LeftOut[]): string {
  const whole = new Map(leftOut.filter((l) => l.wholeItem).map((l) => [l.item, l.reason]));
  const parts: string[] = [];
  for (const [reason, label] of Object.entries(LEFT_OUT_LABEL) as [LeftOutReason, string][]) {
    const items = [...whole.values()].filter((r) => r === reason).length;
    const files = leftOut.filter((l) => whole.get(l.item) === reason).length;
    const translations = leftOut.filter((l) => !whole.has(l.item) && l.reason === reason).length;
    const counts = [
      items > 0 && `${count(items, 'item')} (${count(files, 'file')})`,
      translations > 0 && count(translations, 'translation'),
    ].filter(Boolean);
    if (counts.length > 0) parts.push(`${label}: ${counts.join(', ')}`);
  }
  return parts.join(' · ');
}

const LANGUAGE_NAMES: Record<Language, string> = { es: 'Spanish', en: 'English', 'pt-br': 'Portuguese' };

/** Each reason's words in the summary, in the order it lists them. */
const LEFT_OUT_LABEL: Record<LeftOutReason, string> = {
  draft: 'drafts',
  future: 'in the future',
  expired: 'expired',
  unrendered: 'not rendered',
  unlisted: 'not listed',
  headless: 'headless',
  'language-disabled': 'language disabled',
  'no-canonical': 'without a canonical file',
};

/** Why one file was left out, as the report's list says it. */
export function leftOutWhy(left: LeftOut): string {
  switch (left.reason) {
    case 'draft':
      return 'draft';
    case 'future':
      return `dated ${left.date ?? '?'}, in the future`;
    case 'expired':
      return `expired on ${left.date ?? '?'} (expiryDate)`;
    case 'unrendered':
      return 'Hugo writes no page for it (_build.render; build.render from Hugo 0.123)';
    case 'unlisted':
      return 'Hugo lists it nowhere (_build.list: never)';
    case 'headless':
      return 'a headless bundle: Hugo writes no page for it';
    case 'language-disabled':
      return 'its language is disabled in Hugo (disableLanguages)';
    case 'no-canonical':
      return 'no file in the canonical language (content.withoutCanonical)';
  }
}

/**
 * `site pages    42 addresses of the index checked against the 57 pages …; 2 pages … not in the index:` and those pages
 * with their reason, or why the check did not run.
 */
export function sitePagesLines(check: SitePagesCheck, verbose: boolean): string[] {
  if (!check.ran) return [`  site pages    not checked: ${check.why}`];
  const { unindexed } = check;
  const addresses = (n: number) => `${n} ${n === 1 ? 'address' : 'addresses'}`;
  const dead =
    check.deadWarnings > 0 ? ` (${addresses(check.deadWarnings)} without one: see the warnings)` : '';
  const lines = [
    `  site pages    ${addresses(check.checked)} of the index checked against the ${count(check.pages, 'page')} the site generator wrote${dead}; ${unindexed.length === 0 ? 'every page under the indexed sections is in the index' : `${count(unindexed.length, 'page')} under the indexed sections not in the index:`}`,
  ];
  const shown = verbose ? unindexed : unindexed.slice(0, LEFT_OUT_SHOWN);
  for (const page of shown)
    lines.push(
      `                ${printable(page.page)}: ${printable(page.reason)}${page.file ? ` (${printable(page.file)})` : ''}`,
    );
  if (shown.length < unindexed.length)
    lines.push(`                … and ${unindexed.length - shown.length} more (--verbose lists every page)`);
  if (check.uncovered && check.uncovered.length > 0)
    lines.push(
      `                not compared: ${check.uncovered.map(printable).join('; ')}: their pages lie outside the section folders, so the pages the generator wrote there were not checked against the index`,
    );
  return lines;
}

/** The links the build read through, like what was left out: how many, the first few, all with --verbose. */
function linkLines(links: readonly FollowedLink[], verbose: boolean): string[] {
  if (links.length === 0) return [];
  const lines = [`  links         ${links.length} followed (inside the project)`];
  const shown = verbose ? links : links.slice(0, LEFT_OUT_SHOWN);
  for (const link of shown) lines.push(`                ${printable(link.file)} → ${printable(link.target)}`);
  if (shown.length < links.length)
    lines.push(`                … and ${links.length - shown.length} more (--verbose lists every link)`);
  return lines;
}

export function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
