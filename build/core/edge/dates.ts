/**
 * Dates as authors write them, read strictly. Parsers are lenient in different ways (YAML's timestamp
 * rolls 2025-02-30 over to March and maps year 0000 to 1900; TOML's rolls the day; Date.parse takes
 * T24:00): the text is validated here, as written, whatever format carried it. Pure (the Pages
 * Functions never need it, but nothing here would stop them).
 */

/** `time`: milliseconds since the epoch, as Date.prototype.getTime gives them. */
export type WrittenDate = { ok: true; time: number; published: string } | { ok: false; message: string };

/**
 * `2025-03-14`, `2025-03-14T09:30`, `2025-03-14T09:30:00`, `2025-03-14 09:30:00.5`, each optionally
 * followed by `Z` or an offset (`+02:00`, `-0300`). `T` and `Z` in either case (RFC 3339 allows it).
 */
const FORM =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

export const DATE_FORMS = '2025-03-14, 2025-03-14T09:30:00Z or 2025-03-14T09:30:00+02:00';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Reads a date or date-time as written. A date alone is midnight UTC, and so is a date-time without a
 * zone: read in the build machine's zone, the same sources would publish different bytes elsewhere.
 */
export function readDate(text: string): WrittenDate {
  // Validation reads a date twice in a row (the schema's format, then the value): keep the last answer.
  if (text === lastText && lastDate) return lastDate;
  lastDate = read(text);
  lastText = text;
  return lastDate;
}

let lastText: string | undefined;
let lastDate: WrittenDate | undefined;

function read(text: string): WrittenDate {
  const match = FORM.exec(text);
  if (!match) return refused(text, `must be a date such as ${DATE_FORMS}, got `, '');
  const [
    ,
    y = '',
    mo = '',
    d = '',
    h = '00',
    mi = '00',
    s = '00',
    fraction,
    zulu,
    sign,
    oh = '00',
    om = '00',
  ] = match;
  const year = +y;
  const month = +mo;
  const day = +d;
  if (year === 0) return refused(text, '', ' is not a calendar date: there is no year 0');
  if (month < 1 || month > 12) return refused(text, '', ` is not a calendar date: there is no month ${mo}`);
  const length = daysInMonth(year, month);
  if (day < 1 || day > length)
    return refused(text, '', ` is not a calendar date: ${MONTHS[month - 1]} ${y} has ${length} days`);
  if (+h > 23)
    return refused(
      text,
      '',
      ' is not a valid time: hours go from 00 to 23 (midnight is 00:00 of the next day)',
    );
  if (+mi > 59) return refused(text, '', ' is not a valid time: minutes go from 00 to 59');
  if (+s > 59) return refused(text, '', ' is not a valid time: seconds go from 00 to 59');
  const offset = sign && !zulu ? (sign === '-' ? -1 : 1) * (+oh * 60 + +om) : 0;
  if (sign && !zulu && (+oh > 23 || +om > 59))
    return refused(text, '', ` is not a valid time: ${sign}${oh}:${om} is not a time zone offset`);
  const millis = fraction ? Math.floor(+`0${fraction}` * 1000) : 0;
  let time = Date.UTC(year, month - 1, day, +h, +mi - offset, +s, millis);
  // Date.UTC maps years 0–99 to 1900–1999: those are set field by field.
  if (year < 100) {
    const early = new Date(0);
    early.setUTCFullYear(year, month - 1, day);
    time = early.setUTCHours(+h, +mi - offset, +s, millis);
  }
  // Already UTC: the published form is the text's own digits (most dates take this path).
  const published = offset === 0 ? `${y}-${mo}-${d}T${h}:${mi}:${s}Z` : isoSeconds(new Date(time));
  if (offset !== 0 && !/^\d{4}-/.test(published))
    return refused(text, '', ' is not a calendar date: it falls outside the years 0001–9999 in UTC');
  return { ok: true, time, published };
}

/** The message quotes the text (shortened), between what comes before and after it. */
function refused(text: string, before: string, after: string): WrittenDate {
  return {
    ok: false,
    message: `${before}${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}${after}`,
  };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * The one form every published date takes (the index, the MCP tools, the versions manifest): UTC at
 * whole seconds, `2026-11-01T00:00:00Z`, a JSON Schema `date-time` and the precision HTTP headers carry.
 */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Every item's published dates are read at every build (`generated`, the clock's next change, the
// newest item of content_stats): a dev save at 10,000 items parsed the same 10,000 strings three times.
// The texts are kept by the build anyway; the bound keeps a long dev session's from piling up.
const PARSED = new Map<string, number>();

/** Date.parse of a published date, remembered. */
export function dateMs(text: string): number {
  let ms = PARSED.get(text);
  if (ms === undefined) {
    if (PARSED.size >= 100_000) PARSED.clear();
    ms = Date.parse(text);
    PARSED.set(text, ms);
  }
  return ms;
}
