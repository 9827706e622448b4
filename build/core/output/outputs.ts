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
