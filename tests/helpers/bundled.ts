/**
 * The packages a file of dist/ holds, read from the JavaScript itself: esbuild marks each module it
 * bundles with a `// <path>/node_modules/<package>/…` line, the path from the folder it built in.
 */
export function bundledMarks(text: string): { prefix: string; name: string }[] {
  return [...text.matchAll(/^\/\/ ((?:[^\n]*\/)?node_modules\/)((?:@[^/\n]+\/)?[^/\n]+)\//gm)].map(
    ([, prefix = '', name = '']) => ({ prefix, name }),
  );
}
