import { createHash, hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { SiteConfig } from '../core/config/site-config.ts';
import { type D1Target, d1DataOf } from '../core/edge/mcp/d1-backend.ts';
import {
  type D1ImportFile,
  type D1ItemRows,
  entriesStatements,
  entryParts,
  joinD1Rows,
} from '../core/edge/mcp/d1-sql.ts';
import { type EmbeddedData, embeddedSizeBound, joinEmbedded } from '../core/edge/mcp/embedded.ts';
import { packEmbedded } from '../core/edge/mcp/packed-data.ts';
import {
  MCP_MODULE_PATH,
  MCP_MODULE_TYPES,
  MCP_MODULE_TYPES_PATH,
  MCP_PACKED_PATH,
  renderMcpModule,
  renderPackedModule,
} from '../core/edge/mcp/worker-module.ts';
import type { Problem } from '../core/errors.ts';
import { chooseBackend, type EmbeddedSize, FUNCTIONS_CODE_GZIP_BYTES } from '../core/mcp/choose-backend.ts';
import type { DeployLimits } from '../core/output/cloudflare-limits.ts';
import { formatSize } from '../core/output/deploy-limits.ts';
import { embeddedOf, type ItemFragments, sizeOf } from '../core/output/item-fragments.ts';
import type { McpMaterial } from '../core/output/render.ts';
import { d1RowsOfItems, rowsDigest } from './d1-rows.ts';
import { checkKeptRows } from './fragment-store.ts';
import { releaseBodies } from './held-bodies.ts';
import type { RowSpool } from './row-spool.ts';
import { asPiece, type BytePiece, bytesOf, pieceLength } from './stored-bytes.ts';
import { d1BindingProblems, readWranglerConfig } from './wrangler-config.ts';

const gzip = promisify(gzipCallback);

/**
 * The D1 import the build leaves for `content-index d1 import` and deploy: what it is for, and its SQL in
 * files named after what they hold (D1_DIR), which the import joins in the manifest's order.
 */
export const D1_DIR = '.content-index/d1';
export const D1_MANIFEST_PATH = `${D1_DIR}/import.json`;
/**
 * What each entries file is, by its name (which its rows' digests, terms included, make): its size, the
 * placeholders' places and its distinct terms. The next build makes no statement of a file it finds
 * there with that name and size, and makes the terms table of the files' terms, splitting only new
 * files' entries' terms.
 */
export const D1_PARTS_PATH = `${D1_DIR}/parts.json`;

interface KeptPart {
  terms: string;
  bytes: number;
  marks: number[];
}

export interface D1Manifest {
  generation: string;
  database: string;
  binding: string;
  items: number;
  /** The SQL's files in order: each one's path from the project root, its size, and where the generation goes in it. */
  parts: D1Part[];
}

export interface D1Part {
  path: string;
  bytes: number;
  /** Byte offsets of GENERATION_PLACEHOLDER, which the import replaces with the generation. */
  marks: number[];
}

/** A file of the project's private folder, relative to the project root. */
export interface PrivateFile {
  path: string;
  /** Its text, or its bytes in pieces, in order (the D1 import: tens of MiB, never joined into one). */
  content: string | readonly (string | BytePiece)[];
  /**
   * Named after its content (the D1 import's files). `left`: the last build wrote it and left it as it
   * is (its stamp), so it holds that content already, and is not written again. `kept`: left, and its
   * content was not made (empty).
   */
  named?: { bytes: number; kept?: true; left?: true };
  /** A kept file's content, made when the file is not there after all (stagePrivateFiles). */
  remake?: () => readonly (string | BytePiece)[];
}

export interface McpOutput {
  backend: 'embedded' | 'd1';
  reason: string;
  files: PrivateFile[];
  /** The embedded backend's data, as the module exports it (dev serves it to the Function itself). */
  data?: EmbeddedData;
  /** The Function's data module (the embedded data's bytes included), uncompressed and compressed. */
  module: { bytes: number; gzipBytes: number };
  /** The Functions' Worker as Cloudflare will measure it (estimate: the tool's code plus the module). */
  workerGzipBytes: number;
  d1?: D1Manifest & { sqlBytes: number };
  problems: Problem[];
}

/**
 * Chooses the MCP backend and renders what it needs: the Function's data module, and for D1 the SQL
 * import. Sizes are measured here (gzip is Node's), the rules are in core/mcp/choose-backend.ts.
 */
interface McpOutputOptions {
  config: SiteConfig;
  configFile: string;
  root: string;
  limits: DeployLimits;
  /** The Spanish source file of an entry, for messages. */
  fileOf(pos: number): string;
  /** Every file of the D1 import made from its entries, none taken as a build before described it. */
  fromNothing?: boolean;
  /** From this many items whose D1 rows are to be made on, a worker thread makes some (d1-rows.ts). */
  parallelThreshold?: number;
  /** Where the bodies' new D1 rows wait, out of memory (row-spool.ts); asked only when rows are made. */
  spool?: () => RowSpool | undefined;
  /**
   * Whether a file of the project is as the last build left it, of that size (unchanged.ts leftBy). An
   * import file named after its content is taken as written only then: none is, without it.
   */
  asLeft?: (path: string, bytes: number) => boolean;
}

/**
 * The items' texts (embeddedSizeItem's `text`, a part of the size bound) counted in order until they are
 * past `ceiling`: their bytes and how many items that took; none when every item's are within it.
 */
function textsPast(
  items: readonly ItemFragments[],
  ceiling: number,
): { bytes: number; counted: number } | undefined {
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    bytes += sizeOf(items[i] as ItemFragments).text;
    if (bytes > ceiling) return { bytes, counted: i + 1 };
  }
  return undefined;
}

export async function mcpOutput(material: McpMaterial, options: McpOutputOptions): Promise<McpOutput> {
  const { config, configFile, limits } = options;
  const items = material.items.length;
  let embedded: { files: PrivateFile[]; data?: EmbeddedData; size: EmbeddedSize } | undefined;
  if (config.mcp.backend !== 'd1') {
    // A site past the ceiling is told so without building a search index it cannot use (at 10,000
    // items that was a third of the build).
    const ceiling = limits.embeddedModuleBytes;
    // `auto` only asks whether the site is past the ceiling: the items' texts are counted until they
    // pass it. Each item's share made for the count (its MCP material, then let go) is made again for
    // its D1 rows: at 10,000 items with bodies the first 600 or so pass it, where counting all of them
    // cost a build from nothing some 270 ms. A refusal of `embedded` says how far past, all counted.
    const past = config.mcp.backend === 'auto' ? textsPast(material.items, ceiling) : undefined;
    const atLeast = past?.bytes ?? embeddedSizeBound(material.items.map(sizeOf), ceiling);
    if (atLeast > ceiling) {
      const counted = past && past.counted < items ? { counted: past.counted } : {};
      embedded = { files: [], size: { moduleBytes: atLeast, atLeast: true, ...counted } };
    } else {
      const data = joinEmbedded(material.info, material.items.map(embeddedOf));
      const packed = packEmbedded(data);
      const module = renderPackedModule(hash('sha256', packed).slice(0, 16));
      const moduleBytes = Buffer.byteLength(packed) + Buffer.byteLength(module);
      const moduleGzipBytes = (await gzip(packed)).length + (await gzip(module)).length;
      // The bytes before the module that imports them: a wrangler watching the folder that reloads
      // between the two renames bundles the new bytes (which say what they are) with the last module.
      const files = [{ path: MCP_PACKED_PATH, content: packed }, ...moduleFiles(module)];
      embedded = { files, data, size: { moduleBytes, moduleGzipBytes } };
    }
  }
  const choice = chooseBackend(config.mcp.backend, embedded?.size, {
    items,
    plan: config.plan,
    limits,
    configFile,
    bodies: config.mcp.bodies,
  });
  const problems = choice.problem ? [choice.problem] : [];
  if (choice.backend === 'embedded' && embedded) {
    for (const fragments of material.items) releaseBodies(fragments);
    const gzipBytes = embedded.size.moduleGzipBytes ?? 0;
    return {
      backend: 'embedded',
      reason: choice.reason,
      files: embedded.files,
      ...(embedded.data && { data: embedded.data }),
      module: { bytes: embedded.size.moduleBytes, gzipBytes },
      workerGzipBytes: FUNCTIONS_CODE_GZIP_BYTES + gzipBytes,
      problems,
    };
  }
  const { config: wrangler, problem } = await readWranglerConfig(options.root);
  problems.push(...(problem ? [problem] : d1BindingProblems(wrangler, config.mcp.d1, configFile)));
  const rows = await d1RowsOfItems(material.items, options.parallelThreshold, options.spool);
  const keys = entryKeys(material.items.map((item) => item.facts.id));
  const entryFiles = entryParts(keys);
  const names = new Map<number, string>();
  for (const { first, count } of entryFiles) names.set(first, entriesName(first, count, rows, keys));
  const generation = d1Generation([...names.values()], rows.length);
  const kept = options.fromNothing ? new Map<string, KeptPart>() : keptParts(options.root);
  // A file the last build wrote, of the size its name says, and as that build left it.
  const asLeft = (path: string, bytes: number) => options.asLeft?.(join(options.root, path), bytes) ?? false;
  // Each entries file as a build before made it, and whether it is still there as it was left.
  const known = new Map<number, (KeptPart & { written: boolean }) | undefined>();
  for (const { first } of entryFiles) {
    const name = names.get(first) ?? '';
    const part = kept.get(name);
    known.set(first, part && { ...part, written: asLeft(`${D1_DIR}/${name}`, part.bytes) });
  }
  // The files made again read kept items' rows from the store's files: checked first (StoreDamage).
  const remade: D1ItemRows[] = [];
  for (const { first, count } of entryFiles)
    if (!known.get(first)?.written) remade.push(...rows.slice(first, first + count));
  checkKeptRows(remade);
  const imported = joinD1Rows(rows, keys, entryFiles, (first) => known.get(first));
  const sqlFiles = imported.files.map((file) => {
    const name = names.get(file.first ?? -1);
    const part = name && file.written ? kept.get(name) : undefined;
    return part && name
      ? { part: { path: `${D1_DIR}/${name}`, bytes: part.bytes, marks: part.marks }, pieces: [] }
      : sqlFile(file, name);
  });
  const parts: Record<string, KeptPart> = {};
  imported.files.forEach((file, i) => {
    const name = names.get(file.first ?? -1);
    const part = sqlFiles[i]?.part;
    if (file.kind === 'entries' && file.terms !== undefined && name && part)
      parts[name] = { terms: file.terms, bytes: part.bytes, marks: part.marks };
  });
  // Only of the files made here: a build with an oversized row fails, and writes none of its files.
  for (const pos of imported.oversized) {
    problems.push({
      code: 'deploy_limit',
      file: options.fileOf(pos),
      message:
        "this item's row is over D1's 100 KB limit per SQL statement, so the d1 backend cannot import it",
      hint: 'shorten its title, description or tags',
    });
  }
  const sqlBytes = sqlFiles.reduce((sum, file) => sum + file.part.bytes, 0);
  const databaseBytes = limits.d1DatabaseBytes;
  if (sqlBytes > databaseBytes) {
    problems.push({
      code: 'deploy_limit',
      file: configFile,
      field: 'mcp',
      message: `the D1 import would be ${formatSize(sqlBytes)} of SQL, past the ${formatSize(databaseBytes)} a D1 database may hold on the ${config.plan} plan`,
      hint: config.mcp.bodies
        ? `set mcp: { bodies: false } in ${configFile} to search titles, descriptions and tags only (bodies are most of it)${config.plan === 'free' ? ", or plan: 'paid' on Workers Paid" : ''}`
        : `a D1 database cannot hold this site's index${config.plan === 'free' ? "; Workers Paid allows 10 GB (plan: 'paid')" : ''}`,
    });
  }
  const target: D1Target = { ...config.mcp.d1, generation };
  const module = renderMcpModule(
    d1DataOf(
      material.info,
      material.items.map((item) => item.facts),
      target,
    ),
  );
  const gzipBytes = (await gzip(module)).length;
  const manifest: D1Manifest = { ...target, items, parts: sqlFiles.map((file) => file.part) };
  return {
    backend: 'd1',
    reason: choice.reason,
    files: [
      ...moduleFiles(module),
      ...sqlFiles.map(({ part, pieces }, i): PrivateFile => {
        const file = imported.files[i];
        if (!file?.written) {
          const left = asLeft(part.path, part.bytes);
          return { path: part.path, content: pieces, named: { bytes: part.bytes, ...(left && { left }) } };
        }
        const { first = 0, count = 0 } = file;
        return {
          path: part.path,
          content: pieces,
          named: { bytes: part.bytes, left: true, kept: true },
          remake: () => {
            checkKeptRows(rows.slice(first, first + count));
            const statements = entriesStatements(rows, keys, first, count);
            return sqlFile({ ...file, statements, marks: statements.map(() => []) }, names.get(first)).pieces;
          },
        };
      }),
      { path: D1_MANIFEST_PATH, content: `${JSON.stringify(manifest)}\n` },
      { path: D1_PARTS_PATH, content: `${JSON.stringify(parts)}\n` },
    ],
    module: { bytes: Buffer.byteLength(module), gzipBytes },
    workerGzipBytes: FUNCTIONS_CODE_GZIP_BYTES + gzipBytes,
    d1: { ...manifest, sqlBytes },
    problems,
  };
}

function moduleFiles(module: string): PrivateFile[] {
  return [
    { path: MCP_MODULE_PATH, content: module },
    { path: MCP_MODULE_TYPES_PATH, content: MCP_MODULE_TYPES },
  ];
}

/**
 * The generation's name, after what it holds: the same rows in the same order make the same name, which
 * deploy finds already imported and does not import again. The SQL around the rows follows from their
 * count, the tables' definitions (SCHEMA_SQL) and D1_SQL_VERSION; the terms table from their terms.
 * It is a digest of the entries files' names (entriesName), each a digest of its rows' digests, which
 * are made once, with the rows, and kept with them: naming a generation of 10,000 items with their
 * bodies hashes neither its 145 MB of SQL nor 10,000 digests again.
 */
export function d1Generation(parts: readonly string[], items: number): string {
  const hash = createHash('sha256').update(`${D1_SQL_VERSION}\n${SCHEMA_SQL}\n${items}\n`);
  for (const name of parts) hash.update(name).update('\n');
  return `g${hash.digest('hex').slice(0, 12)}`;
}

/**
 * One file of the import as pieces, each statement followed by a line break: the bytes of kept rows as
 * they are (in the item store's files until written: stored-bytes.ts), the texts between them as they
 * are, each measured here and encoded only as it is written (as a Buffer each, the 40,000 texts between
 * the rows of 10,000 items were as many objects held until the write). Its name is a digest of what it
 * holds: for the entries' files, of their rows' digests (made once and kept with the rows), so naming
 * a file of unchanged entries reads none of their bytes.
 */
function sqlFile(
  file: D1ImportFile,
  /** An entries file's name (entriesName). */
  entries: string | undefined,
): { part: D1Part; pieces: (string | BytePiece)[] } {
  const pieces: (string | BytePiece)[] = [];
  const marks: number[] = [];
  let bytes = 0;
  const add = (piece: string | BytePiece) => {
    pieces.push(piece);
    bytes += pieceLength(piece);
  };
  file.statements.forEach((statement, i) => {
    const start = bytes;
    if (typeof statement === 'string') add(statement);
    else for (const piece of statement) add(asPiece(piece));
    for (const at of file.marks[i] ?? []) marks.push(at < 0 ? bytes + at : start + at);
    add('\n');
  });
  let name = entries;
  if (name === undefined) {
    const hash = createHash('sha256').update(`${D1_SQL_VERSION}\n${SCHEMA_SQL}\n${file.kind}\n`);
    for (const piece of pieces) hash.update(typeof piece === 'string' ? piece : bytesOf(piece));
    name = `${file.kind}-${hash.digest('hex').slice(0, 16)}.sql`;
  }
  return { part: { path: `${D1_DIR}/${name}`, bytes, marks }, pieces };
}

/** The import's statements around the rows, for a generation of no items: a change to them is a new name. */
const SCHEMA_SQL = joinD1Rows([])
  .files.flatMap((file) => file.statements)
  .join('\n');

/**
 * The name of the entries file of `count` entries from `first` on: a digest of their keys and their
 * rows' digests (made once and kept with the rows), so naming a file of unchanged entries reads none of
 * their bytes. Their places are not in it: the same entries make the same file wherever they stand.
 */
function entriesName(
  first: number,
  count: number,
  rows: readonly D1ItemRows[],
  keys: readonly string[],
): string {
  const hash = createHash('sha256').update(`${D1_SQL_VERSION}\n${SCHEMA_SQL}\nentries\n`);
  let digests = '';
  for (let pos = first; pos < first + count; pos++) {
    const row = rows[pos] as D1ItemRows;
    row.digest ??= rowsDigest(row);
    digests += `${keys[pos]} ${row.digest}\n`;
  }
  // One update per file, not one per entry: 10,000 calls into the hash were most of its time.
  hash.update(digests);
  return `entries-${hash.digest('hex').slice(0, 16)}.sql`;
}

/**
 * The digits of each id keyed in this process: dev keys every entry again at each save, and at 10,000
 * items their digests were some 10 ms of it. A digest of the id alone, so never stale.
 */
const DIGITS = new Map<string, string>();

/**
 * Each entry's key in the import, from its id (`post/rag-en-produccion`): twelve hex digits of its
 * digest, which stay the entry's wherever it moves, and choose where a file of entries ends
 * (entryParts). Two ids with the same digits (one pair in some 10^10 at 10,000 items) keep them apart
 * by a suffix, in index order.
 */
export function entryKeys(ids: readonly string[], known: Map<string, string> = DIGITS): string[] {
  const taken = new Set<string>();
  // Let go when it holds many more ids than the site has (renames over a long dev session).
  if (known.size > 2 * ids.length + 1024) known.clear();
  return ids.map((id) => {
    let digits = known.get(id);
    if (digits === undefined) {
      // One call, no Hash object: 10,000 ids took some 45 ms through createHash, 5 ms so.
      digits = hash('sha256', id, 'hex').slice(0, 12);
      known.set(id, digits);
    }
    let key = digits;
    for (let n = 1; taken.has(key); n++) key = `${digits}-${n}`;
    taken.add(key);
    return key;
  });
}

/** The entries files the last build described (D1_PARTS_PATH), by name; none when unreadable. */
function keptParts(root: string): Map<string, KeptPart> {
  const parts = new Map<string, KeptPart>();
  try {
    const kept: unknown = JSON.parse(readFileSync(join(root, D1_PARTS_PATH), 'utf8'));
    if (!kept || typeof kept !== 'object') return parts;
    for (const [name, part] of Object.entries(kept)) if (isKeptPart(part)) parts.set(name, part);
  } catch {
    // none yet, or damaged: every file is made from its entries
  }
  return parts;
}

function isKeptPart(value: unknown): value is KeptPart {
  const part = value as Partial<KeptPart> | null;
  const numbers = (list: unknown) => Array.isArray(list) && list.every((n) => Number.isSafeInteger(n));
  return (
    typeof part === 'object' &&
    part !== null &&
    typeof part.terms === 'string' &&
    Number.isSafeInteger(part.bytes) &&
    numbers(part.marks)
  );
}

/**
 * Goes up whenever the SQL made of the same rows changes (how rows become statements, the terms
 * table's rows): the generation's name must change with it, or deploy would find an import of the old
 * SQL "already imported". (A change of what rowsDigest hashes also needs the item store's STORE_FORMAT
 * to go up: the digests are kept there.)
 */
const D1_SQL_VERSION = 3;
