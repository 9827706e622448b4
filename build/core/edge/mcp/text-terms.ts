import type { Language } from '../languages.ts';
import { stemTerm } from './stem.ts';
import { processTerm, tokenize } from './text.ts';

/** The term a word of a field's text is indexed under, or null for a common word. */
export function termOf(word: string, stemming: Language | undefined): string | null {
  const folded = processTerm(word);
  return folded === null || stemming === undefined ? folded : stemTerm(stemming, folded);
}

/**
 * The distinct terms of a text (`stemming`: its field's language, or none), in the order they first
 * come: each of its words through termOf, once.
 *
 * A text is read as runs of non-spaces, in its UTF-8. No pattern of tokenize spans a space, so the runs
 * give the words the whole text does. A run is looked up by its bytes in the vocabulary of the runs met
 * so far, which keeps each one's terms: a body says most of its words many times, and most of them are
 * words every body says. The terms of a new run are worked out once, by tokenize and termOf, where each
 * text's distinct runs were sliced out and worked out again, and found with charCodeAt: a build from
 * nothing at 10,000 items takes 1.2–1.5 s less CPU (docs/performance.md, stop 70).
 *
 * UTF-8 writes a lone surrogate as U+FFFD, so runs that differ only there are one run: they give the
 * same terms, since tokenize splits at both.
 */
export function distinctTerms(text: string, stemming: Language | undefined): string[] {
  const words = vocabularyOf(stemming);
  if (words.count >= MAX_RUNS || words.arenaUsed >= MAX_ARENA_BYTES) words.clear();
  const n = text.length;
  if (scratch.length < n * 3) scratch = new Uint8Array(n * 3);
  const bytes = scratch;
  const { written } = encoder.encodeInto(text, bytes);
  const stamp = words.nextStamp();
  const terms: string[] = [];
  let start = 0;
  while (start < written) {
    let hash = 0x811c9dc5 | 0;
    let end = start;
    for (; end < written; end++) {
      const c = bytes[end] as number;
      if (c === 32) break;
      hash = Math.imul(hash ^ c, 0x01000193);
    }
    const length = end - start;
    if (length > 0) {
      let run = words.find(bytes, start, length, hash);
      // A new run decoded from its bytes, not sliced out of the text: a slice of 13 characters or more
      // is a view of the whole text, which the vocabulary's terms would keep alive (a body for each).
      if (run < 0) {
        const spelled = decoder.decode(bytes.subarray(start, end));
        run = words.add(bytes, start, length, hash, runTerms(spelled, stemming));
      }
      words.collect(run, stamp, terms);
    }
    start = end + 1;
  }
  return terms;
}

function runTerms(run: string, stemming: Language | undefined): string[] {
  const terms: string[] = [];
  for (const word of tokenize(run)) {
    const term = termOf(word, stemming);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/**
 * Past these, the vocabulary starts again at the next text: a long-lived isolate (the D1 backend's
 * snippets, in 128 MB) meets new runs without end, and each thread keeps a vocabulary for each
 * language. Small, because starting again costs little: the common words, a few hundred runs, are back
 * after a few texts, each worked out once more. At its bound a vocabulary holds some 2 MB (an estimate),
 * plus what one text adds past it (the bound is checked between texts; a body is at most
 * BODY_TEXT_BYTES, 32 KiB); its arrays keep their size when it starts again, as `scratch` keeps three
 * bytes for each character of the longest text read.
 */
export const MAX_RUNS = 1 << 14;
const MAX_ARENA_BYTES = 1 << 18;

const encoder = new TextEncoder();
// A run that begins with U+FEFF keeps it (the default decoder drops it as a byte order mark).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
let scratch = new Uint8Array(1 << 16);

const VOCABULARIES = new Map<string, Vocabulary>();

function vocabularyOf(stemming: Language | undefined): Vocabulary {
  const key = stemming ?? '';
  let words = VOCABULARIES.get(key);
  if (!words) {
    words = new Vocabulary();
    VOCABULARIES.set(key, words);
  }
  return words;
}

/**
 * The runs met, each as its bytes (in one arena), its hash and its terms (as ids of `names`), found by
 * an open-addressing table of their ids. Typed arrays, not a Map by string: a string key would have to
 * be sliced out of the text for every run, most of which are met already.
 */
class Vocabulary {
  count = 0;
  arenaUsed = 0;
  /** Each slot: a run's id + 1, or 0. */
  private slots = new Int32Array(1 << 10);
  /** Each run: its bytes' offset in the arena, their length, its hash, where its terms start, how many. */
  private runs = new Int32Array(5 << 9);
  private arena = new Uint8Array(1 << 14);
  private termIds: Int32Array = new Int32Array(1 << 10);
  private termCount = 0;
  private names: string[] = [];
  private ids = new Map<string, number>();
  /**
   * The stamp of the text whose terms took the run's, or the term, last: each is taken once a text.
   * Stamps only go up (all start again at 0 when they wrap), so an id given again after clear() is
   * never taken for the current text's.
   */
  private runStamps = new Uint32Array(1 << 9);
  private termStamps = new Uint32Array(1 << 10);
  private stamp = 0;

  clear(): void {
    this.count = 0;
    this.arenaUsed = 0;
    this.slots.fill(0);
    this.termCount = 0;
    this.names = [];
    this.ids = new Map();
  }

  nextStamp(): number {
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.runStamps.fill(0);
      this.termStamps.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  /** The run's id, or -1 when it was never met. */
  find(bytes: Uint8Array, start: number, length: number, hash: number): number {
    const { slots, runs, arena } = this;
    const mask = slots.length - 1;
    for (let slot = (hash ^ (hash >>> 15)) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] as number;
      if (entry === 0) return -1;
      const at = (entry - 1) * 5;
      if (runs[at + 1] === length && runs[at + 2] === hash) {
        const offset = runs[at] as number;
        let k = 0;
        while (k < length && arena[offset + k] === bytes[start + k]) k++;
        if (k === length) return entry - 1;
      }
    }
  }

  /** A run never met, with its terms; its id. */
  add(bytes: Uint8Array, start: number, length: number, hash: number, terms: readonly string[]): number {
    const id = this.count++;
    if ((id + 1) * 5 > this.runs.length) {
      this.runs = grown(this.runs, (id + 1) * 5);
      this.runStamps = grown(this.runStamps, id + 1);
    }
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    if (this.arenaUsed + length > this.arena.length) this.arena = grown(this.arena, this.arenaUsed + length);
    this.arena.set(bytes.subarray(start, start + length), this.arenaUsed);
    if (this.termCount + terms.length > this.termIds.length)
      this.termIds = grown(this.termIds, this.termCount + terms.length);
    const at = id * 5;
    this.runs[at] = this.arenaUsed;
    this.runs[at + 1] = length;
    this.runs[at + 2] = hash;
    this.runs[at + 3] = this.termCount;
    this.runs[at + 4] = terms.length;
    this.arenaUsed += length;
    for (const term of terms) this.termIds[this.termCount++] = this.idOf(term);
    this.place(id, hash);
    return id;
  }

  /** The run's terms not yet taken by the text of this stamp, put at the end of `terms`. */
  collect(run: number, stamp: number, terms: string[]): void {
    if (this.runStamps[run] === stamp) return;
    this.runStamps[run] = stamp;
    const at = run * 5;
    const from = this.runs[at + 3] as number;
    const to = from + (this.runs[at + 4] as number);
    for (let i = from; i < to; i++) {
      const term = this.termIds[i] as number;
      if (this.termStamps[term] !== stamp) {
        this.termStamps[term] = stamp;
        terms.push(this.names[term] as string);
      }
    }
  }

  private idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(term);
      this.ids.set(term, id);
      if (id >= this.termStamps.length) this.termStamps = grown(this.termStamps, id + 1);
    }
    return id;
  }

  private place(id: number, hash: number): void {
    const { slots } = this;
    const mask = slots.length - 1;
    let slot = (hash ^ (hash >>> 15)) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    // The run being added is placed by add(), after this.
    for (let id = 0; id < this.count - 1; id++) this.place(id, this.runs[id * 5 + 2] as number);
  }
}

/** The array at least `size` long (doubled), its content kept. */
function grown<T extends Int32Array | Uint32Array | Uint8Array>(array: T, size: number): T {
  let length = array.length * 2;
  while (length < size) length *= 2;
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
}
