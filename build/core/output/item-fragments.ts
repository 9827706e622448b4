import type { ContentEntry } from '../content/model.ts';
import { llmsLine } from '../discovery/llms-txt.ts';
import type { ContentItemV1 } from '../edge/content-item-v1.ts';
import { LANGUAGES, type Language } from '../edge/languages.ts';
import { type D1ItemRows, d1ItemRows } from '../edge/mcp/d1-sql.ts';
import {
  type EmbeddedItem,
  type EmbeddedSizeItem,
  embeddedItem,
  embeddedSizeItem,
} from '../edge/mcp/embedded.ts';
import type { McpItem } from '../edge/mcp/mcp-data.ts';
import type { StatsItem } from '../mcp/content-stats.ts';
import { prepareMcpItem } from '../mcp/prepare-mcp.ts';
import { joinedOf, MCP_VERSION, SERIALIZERS, type SerializerRegistry } from '../serializers/registry.ts';

/**
 * An item's share of every output, worked out from its entry alone: each version's item, its llms.txt
 * lines, its MCP material. The build keeps them per item between builds (stages/fragment-store.ts,
 * keyed by what the entry was made from) and joins the outputs from them (render.ts), so an edit redoes
 * one item's fragments and the joins, not every item's.
 */
export interface ItemFragments {
  facts: ItemFacts;
  /** Each version's item, as JSON, for the versions whose serializer renders items one by one. */
  versions: Record<string, string>;
  /** Its line in the llms.txt of each language it has. */
  llms: Partial<Record<Language, string>>;
  mcp: McpItem;
  /** Worked out from `mcp` for the backend that needs them (see the helpers below), then kept too. */
  embedded?: EmbeddedItem;
  d1?: D1ItemRows;
  size?: { text: number };
}

/** What the joins need of the entry itself: its place in the index, the counts, the statistics. */
export interface ItemFacts extends StatsItem {
  /** `post/rag-en-produccion`. */
  id: string;
  /** Every translation's address, in LANGUAGES order (the address check, the site's pages). */
  urls: string[];
  /** Every translation's file, in the same order. */
  files: string[];
  /** The latest date (or Hugo's `publishDate`) of its translations (`generated`). */
  newest?: string;
  /** Its canonical file (messages about the item). */
  file: string;
}

/** An item's fragments, and each version's item as a value (the caller checks new ones against the schema). */
export function renderItem(
  entry: ContentEntry,
  serializers: SerializerRegistry,
): { fragments: ItemFragments; values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  const versions: Record<string, string> = {};
  for (const [version, serializer] of Object.entries(serializers)) {
    const joined = joinedOf(serializer);
    if (!joined) continue;
    const value = joined.item(entry);
    values[version] = value;
    versions[version] = JSON.stringify(value);
  }
  const llms: ItemFragments['llms'] = {};
  for (const lang of LANGUAGES) {
    const translation = entry.translations[lang];
    if (translation) llms[lang] = flat(llmsLine(translation));
  }
  // MCP answers with the MCP version's items: the registry's when it renders them, else the built-in ones.
  const item = (values[MCP_VERSION] ?? builtInMcpItem(entry)) as ContentItemV1;
  return {
    fragments: withMcp({ facts: itemFacts(entry), versions, llms }, () => prepareMcpItem(entry, item, 0)),
    values,
  };
}

function builtInMcpItem(entry: ContentEntry): unknown {
  const builtIn = SERIALIZERS[MCP_VERSION];
  const joined = builtIn && joinedOf(builtIn);
  if (!joined) throw new Error(`the built-in ${MCP_VERSION} serializer renders no items`);
  return joined.item(entry);
}

/**
 * Fragments whose MCP material is made when first asked, and can be forgotten once its backend's share
 * is made ({@link forgetMcp}): it is the largest part of an item, and needed only for that.
 */
export function withMcp(fragments: Omit<ItemFragments, 'mcp'>, make: () => McpItem): ItemFragments {
  return new LazyMcp(fragments.facts, fragments.versions, fragments.llms, make);
}

class LazyMcp implements ItemFragments {
  embedded?: EmbeddedItem;
  d1?: D1ItemRows;
  size?: ItemFragments['size'];
  #made: McpItem | undefined;

  constructor(
    readonly facts: ItemFacts,
    readonly versions: Record<string, string>,
    readonly llms: ItemFragments['llms'],
    private readonly make: () => McpItem,
  ) {}

  get mcp(): McpItem {
    this.#made ??= this.make();
    return this.#made;
  }

  forget(): void {
    this.#made = undefined;
  }
}

/** Drops the item's MCP material (it is made again if asked for). */
export function forgetMcp(fragments: ItemFragments): void {
  if (fragments instanceof LazyMcp) fragments.forget();
}

export function itemFacts(entry: ContentEntry): ItemFacts {
  const { canonical } = entry;
  const languages: Language[] = [];
  const urls: string[] = [];
  const files: string[] = [];
  let newest: string | undefined;
  for (const lang of LANGUAGES) {
    const t = entry.translations[lang];
    if (!t) continue;
    languages.push(lang);
    urls.push(t.url);
    files.push(t.file);
    // A page published later than its date (Hugo's publishDate) changed the index when it came out.
    for (const date of [t.date, t.publishDate])
      if (date !== undefined && (newest === undefined || date > newest)) newest = date;
  }
  return {
    id: entry.id,
    type: entry.type,
    languages,
    ...(entry.technologies !== undefined && { technologies: entry.technologies }),
    ...(entry.date !== undefined && { date: entry.date }),
    title: canonical.title,
    url: canonical.url,
    urls,
    files,
    ...(newest !== undefined && { newest }),
    file: canonical.file,
  };
}

/** The item's share of the embedded backend's data. */
export function embeddedOf(fragments: ItemFragments): EmbeddedItem {
  fragments.embedded ??= share(fragments, (mcp) => {
    const made = embeddedItem(mcp);
    made.line = flat(made.line);
    made.bodies = flat(made.bodies);
    return made;
  });
  return fragments.embedded;
}

/** The item's rows of the D1 import. */
export function d1RowsOf(fragments: ItemFragments): D1ItemRows {
  fragments.d1 ??= share(fragments, flatRows);
  return fragments.d1;
}

/** An item's rows of the D1 import made from its MCP material (d1RowsOf, or on a worker thread). */
export function flatRows(mcp: McpItem): D1ItemRows<string | Uint8Array> {
  const rows = d1ItemRows(mcp);
  return {
    item: flat(rows.item),
    translations: rows.translations.map(flat),
    technologies: rows.technologies.map(flat),
    // As UTF-8 once, here: the import is written as bytes, and every later join (each of dev's saves)
    // only counts them, where a text would be measured and encoded again each time.
    bodies: rows.bodies.map((row) => (typeof row === 'string' ? UTF8.encode(row) : row)),
    search: narrow(rows.search),
    terms: narrow(rows.terms),
  };
}

const UTF8 = new TextEncoder();

const WIDE = /[\u0100-\uffff]/;

/**
 * The text as one piece of one byte per character when it has no character past U+00FF. Folded terms
 * come out of `normalize('NFD')` two bytes per character whatever they hold, and every text joined
 * with one of them (the D1 import: some 13 MB at 10,000 items) would be two bytes per character too.
 */
export function narrow(text: string): string {
  if (WIDE.test(text)) return flat(text);
  let narrowed = '';
  for (let i = 0; i < text.length; i += 4096) {
    const codes: number[] = [];
    for (let j = i; j < Math.min(text.length, i + 4096); j++) codes.push(text.charCodeAt(j));
    narrowed += String.fromCharCode(...codes);
  }
  return flat(narrowed);
}

/**
 * The text as one piece. A text made of others (a template's result) is kept by the engine as a tree
 * of its pieces until it is read; kept fragments are read only at the next join, and as trees they
 * would take about three times their length in memory.
 */
export function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * What the embedded module's size bound counts of the item. Its terms are asked only for a site whose
 * texts alone are under the ceiling, which is then most likely served embedded: they are its postings'.
 */
export function sizeOf(fragments: ItemFragments): EmbeddedSizeItem {
  fragments.size ??= share(fragments, (mcp) => ({ text: embeddedSizeItem(mcp).text }));
  return { text: fragments.size.text, terms: () => embeddedOf(fragments).postings.terms };
}

/** A share made from the item's MCP material, which is then let go (it is made again when asked). */
function share<T>(fragments: ItemFragments, make: (mcp: McpItem) => T): T {
  try {
    return make(fragments.mcp);
  } finally {
    forgetMcp(fragments);
  }
}

/**
 * An item's MCP material made again from its entry and its item texts (a kept item whose backend's
 * share was not kept): what renderItem made, the MCP version's item read back from its text.
 */
export function reviveMcp(entry: ContentEntry, versions: Readonly<Record<string, string>>): McpItem {
  const text = versions[MCP_VERSION];
  const item = text === undefined ? builtInMcpItem(entry) : JSON.parse(text);
  return prepareMcpItem(entry, item as ContentItemV1, 0);
}
