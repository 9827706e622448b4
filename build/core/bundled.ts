// Defined as `true` by esbuild when scripts/build-dist.mjs bundles the package; undeclared in the sources.
declare const CONTENT_INDEX_BUNDLED: boolean | undefined;

/**
 * Whether this code runs from the package's prebuilt `dist/` (every output file in that one folder) or
 * from the TypeScript sources (tests, benchmarks). Files the code finds beside itself sit at different
 * places in the two layouts: `dist/schemas/` or `build/schemas/`, `dist/parse-worker.js` or
 * `build/stages/parse/worker.js`.
 */
export const BUNDLED = typeof CONTENT_INDEX_BUNDLED !== 'undefined' && CONTENT_INDEX_BUNDLED === true;
