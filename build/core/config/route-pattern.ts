/**
 * A route is a path (or an absolute address) with tokens that a page's own values fill in. The tokens are
 * the ones a Hugo `permalinks` entry needs, so `init` can write what Hugo serves; Hugo's own way of
 * turning text into a path (lowercase, spaces to hyphens, the characters it drops) is the `hugo` style.
 */

export const ROUTE_TOKENS = [
  'slug',
  'filename',
  'title',
  'slugOrTitle',
  'section',
  'path',
  'year',
  'month',
  'day',
] as const;
export type RouteToken = (typeof ROUTE_TOKENS)[number];

/** A route must tell one page from another: one of these. */
export const NAMING_TOKENS: readonly RouteToken[] = ['slug', 'filename', 'title', 'slugOrTitle'];

/**
 * How a route's values become an address. `as-written` (the default): each value percent-encoded as it
 * is, the route's own text kept. `hugo`: the whole path made the way Hugo makes its addresses.
 */
export interface UrlStyle {
  style: 'as-written' | 'hugo';
  /** Lowercase the whole path (Hugo does unless `disablePathToLower`). */
  lowercase: boolean;
  /** Strip accents from the path (Hugo's `removePathAccents`). */
  removeAccents: boolean;
}

export const AS_WRITTEN: UrlStyle = { style: 'as-written', lowercase: false, removeAccents: false };

/** What one page gives its route. */
export interface RouteValues {
  /** The front matter's slug, when it has one. */
  slug?: string;
  /** The file name without language and extension; a page bundle's folder name. */
  filename: string;
  title: string;
  /** Folders from the content folder to the page (a bundle's own folder and a language folder left out). */
  dir: string;
  /** The date as written (its own offset, not UTC): YYYY-MM-DD. */
  day?: string;
}

export type RouteResult = { ok: true; path: string } | { ok: false; token: RouteToken; message: string };

const TOKEN = /\{([A-Za-z]+)\}/g;

/** The tokens a route uses, in order, unknown ones included. */
export function routeTokens(pattern: string): string[] {
  return [...pattern.matchAll(TOKEN)].map((m) => m[1] as string);
}

/** Fills a route in: a path relative to the site (or an absolute address), ready for `siteUrl`. */
export function expandRoute(pattern: string, values: RouteValues, style: UrlStyle): RouteResult {
  const hugo = style.style === 'hugo';
  let failed: RouteResult | undefined;
  const fail = (token: RouteToken, message: string) => {
    failed ??= { ok: false, token, message };
    return '';
  };
  // A page right inside the content folder has no folders: `/{path}/{slug}/` gives `/slug/`, as in Hugo.
  const route = values.dir === '' ? pattern.replace(/\/?\{path\}\/?/g, '/') : pattern;
  const filled = route.replace(TOKEN, (whole, name: string) => {
    const token = name as RouteToken;
    let value: string;
    switch (token) {
      case 'slug':
        value = values.slug ?? values.filename;
        break;
      case 'filename':
        value = values.filename;
        break;
      case 'title':
        value = urlize(values.title, style);
        if (value === '')
          return fail(token, `the title ${JSON.stringify(values.title)} leaves nothing for {title}`);
        break;
      case 'slugOrTitle':
        value = values.slug ?? urlize(values.title, style);
        if (value === '')
          return fail(token, `the title ${JSON.stringify(values.title)} leaves nothing for {slugOrTitle}`);
        break;
      case 'section':
        value = values.dir.split('/')[0] ?? '';
        if (value === '') return fail(token, 'the page is not inside a folder, so it has no {section}');
        break;
      case 'path':
        return hugo ? values.dir : encodePath(values.dir);
      case 'year':
      case 'month':
      case 'day': {
        if (values.day === undefined) return fail(token, `the page has no date, which {${token}} needs`);
        const [y = '', m = '', d = ''] = values.day.split('-');
        value = token === 'year' ? y : token === 'month' ? m : d;
        break;
      }
      default:
        return whole;
    }
    return hugo ? value : encodeURIComponent(value);
  });
  if (failed) return failed;
  return { ok: true, path: hugo ? hugoPath(filled, style) : filled };
}

function encodePath(dir: string): string {
  return dir.split('/').map(encodeURIComponent).join('/');
}

/**
 * The path as Hugo writes it (its `MakePathSanitized`): letters, digits, marks and `. / \ _ # + ~ -`
 * kept, a `%` only when it starts an escape, runs of white space turned into one hyphen, everything else
 * dropped; then lowercased unless told not to. Each segment is then percent-encoded for the address.
 * An absolute route keeps its scheme and host.
 */
export function hugoPath(path: string, style: UrlStyle): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path)?.[0] ?? '';
  let rest = sanitize(path.slice(origin.length), style);
  if (style.lowercase) rest = rest.toLowerCase();
  return origin + rest.split('/').map(encodeURIComponent).join('/');
}

/** Hugo's `urlize`, which its `:title` and `:slug` go through: sanitized, lowercased. */
export function urlize(text: string, style: UrlStyle): string {
  const clean = sanitize(text, style);
  return style.style === 'hugo' && !style.lowercase ? clean : clean.toLowerCase();
}

function sanitize(text: string, style: UrlStyle): string {
  const source = [...(style.removeAccents ? text.normalize('NFD').replace(/\p{M}/gu, '') : text)];
  let out = '';
  let pendingHyphen = false;
  let wasHyphen = false;
  for (const [i, c] of source.entries()) {
    const allowed =
      /[./\\_#+~-]/.test(c) ||
      /[\p{L}\p{Nd}\p{M}]/u.test(c) ||
      (c === '%' && /^[0-9a-f]{2}$/i.test(`${source[i + 1] ?? ''}${source[i + 2] ?? ''}`));
    if (allowed) {
      wasHyphen = c === '-';
      if (pendingHyphen && !wasHyphen) out += '-';
      pendingHyphen = false;
      out += c;
    } else if (out !== '' && /\s/u.test(c) && !wasHyphen) {
      pendingHyphen = true;
    }
  }
  return out;
}

/**
 * A slug or file name as the address will carry it, for the one-segment rule (slug.ts): as written, or
 * as Hugo makes it (`Mi Post` → `mi-post`, which is one segment although the name has a space).
 */
export function addressSegment(value: string, style: UrlStyle): string {
  if (style.style !== 'hugo') return value;
  const clean = sanitize(value, style);
  return style.lowercase ? clean.toLowerCase() : clean;
}
