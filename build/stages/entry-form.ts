import { bodyKeyOf, type ContentEntry, hasBody, type Translation } from '../core/content/model.ts';
import { LANGUAGES, type Language } from '../core/edge/languages.ts';
import { digest } from './fingerprint.ts';

/**
 * An entry as the item store keeps it: its JSON with each body left out, `"body":0` in its place (the
 * keys keep their order), the bodies kept once, in the item's D1 rows. Whole, the entries of a 10,000-item
 * site held every body twice more (the canonical translation is also among the translations): half of
 * the store's 360 MB, and the largest texts a build from nothing made, encoded and wrote.
 */
export function entryWithoutBodies(entry: ContentEntry): string {
  if (!Object.values(entry.translations).some(hasBody)) return JSON.stringify(entry);
  const translations: Record<string, unknown> = {};
  for (const [lang, t] of Object.entries(entry.translations)) translations[lang] = t && withoutBody(t);
  return JSON.stringify({ ...entry, canonical: withoutBody(entry.canonical), translations });
}

/**
 * As d1ItemRows, which writes a row for a body that is not empty, and only then. The body is not read:
 * one the build has not read yet is known to have words by its key (model.ts takeBody).
 */
function withoutBody(t: Translation): unknown {
  if (!hasBody(t)) return t;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(t)) copy[name] = name === 'body' ? 0 : t[name as keyof Translation];
  return copy;
}

/** How many of the entry's translations have a body: as many as its D1 rows hold. */
export function bodyCount(entry: ContentEntry): number {
  return LANGUAGES.filter((lang) => hasBody(entry.translations[lang])).length;
}

/**
 * The key of an entry's fragments: of its JSON without bodies and of each body, with the renderer (the
 * tool, the serializers). A body is counted by the hash of the file it is read from (the same words
 * for the same file), so that no body is read to find an entry unchanged; one without (no such hash)
 * by its text, told apart from the next by its length.
 */
export function entryKey(renderer: string, json: string, entry: ContentEntry): string {
  return digest(
    renderer,
    json,
    ...LANGUAGES.flatMap((lang) => {
      const t = entry.translations[lang];
      if (!t || !hasBody(t)) return [];
      const key = bodyKeyOf(t);
      if (key !== undefined) return [`${lang}#${key}`];
      const body = t.body as string;
      return [`${lang}:${body.length}`, body];
    }),
  );
}

/**
 * An entry read back from entryWithoutBodies' JSON, each body put back in its place: `bodyAt(i)` is the
 * i-th body in LANGUAGES order, as its D1 rows hold them.
 */
export function withBodies(json: string, bodyAt: (index: number, lang: Language) => string): ContentEntry {
  const entry = JSON.parse(json) as ContentEntry;
  const bodies = new Map<Language, string>();
  for (const lang of LANGUAGES) {
    const t = entry.translations[lang];
    if (t && (t.body as unknown) === 0) {
      t.body = bodyAt(bodies.size, lang);
      bodies.set(lang, t.body);
    }
  }
  if ((entry.canonical.body as unknown) === 0) {
    const body = bodies.get(entry.canonical.lang);
    if (body === undefined) throw new Error('an entry whose canonical body is not among its translations');
    entry.canonical.body = body;
  }
  return entry;
}
