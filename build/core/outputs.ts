/**
 * Paths inside the output folder that belong to the build. A build replaces everything under them and
 * leaves every other file (the author's favicon, robots.txt…) alone. `index.html` (the opt-in landing
 * page) belongs to the build only while it carries the build's marker: see stages/write.ts.
 */
export const OWNED_PATHS = [
  'api/',
  'mcp/',
  'docs/',
  'openapi.json',
  'llms.txt',
  'en/llms.txt',
  'pt-br/llms.txt',
  '.well-known/ai-plugin.json',
  '_headers',
  '_redirects',
  '_routes.json',
  'index.html',
] as const;

export function isOwnedPath(path: string): boolean {
  return OWNED_PATHS.some((owned) => (owned.endsWith('/') ? path.startsWith(owned) : path === owned));
}

export interface OutputFile {
  /** Relative to the output folder, POSIX separators. */
  path: string;
  content: string;
}

/** Compact JSON with a final newline: the API is read by machines, and gzip makes indentation moot. */
export function jsonFile(path: string, value: unknown): OutputFile {
  return { path, content: `${JSON.stringify(value)}\n` };
}

/** Indented JSON for documents people open in a browser (schemas). */
export function prettyJsonFile(path: string, value: unknown): OutputFile {
  return { path, content: `${JSON.stringify(value, null, 2)}\n` };
}
