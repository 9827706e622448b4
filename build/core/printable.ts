/**
 * Text from the outside world (file names, front-matter keys and values) reaches terminals, CI logs and
 * GitHub's workflow-command parser. A newline in a file name would start a line of its own (GitHub reads
 * a line starting with `::error` as an annotation), and an escape sequence would drive the terminal.
 */

/** C0 and C1 controls, DEL, and the invisible marks that reorder or break text (bidi overrides, LS/PS). */
export const CONTROL_CHARACTERS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROL_GLOBAL = new RegExp(CONTROL_CHARACTERS.source, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The text with every control character written as an escape (`\n`, `\u001b`), and a leading `::` or
 * `##[` (GitHub Actions' command prefixes, read after leading spaces) defused, so no printed value
 * can start a line or a command of its own.
 */
export function printable(text: string): string {
  const escaped = CONTROL_CHARACTERS.test(text)
    ? text.replace(CONTROL_GLOBAL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
  return /^\s*(?:::|##\[)/.test(escaped)
    ? escaped.replace(/[:#]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
    : escaped;
}
