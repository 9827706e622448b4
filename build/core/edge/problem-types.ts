/**
 * The problems the `/api/` Function answers with, one table for the three places that name them: the
 * Function (a problem's `type` is the API reference page plus `#` and its name), the OpenAPI
 * description and the reference page, where each name is the id of the element that explains it.
 * Function-safe: plain data.
 */
export const PROBLEM_TYPES = {
  'not-found': {
    status: 404,
    title: 'Not Found',
    explanation:
      'Nothing is published at this path under /api/, for example a typo in a file name. The body names the current version and the address of its index.',
  },
  'version-unknown': {
    status: 404,
    title: 'Unknown API version',
    explanation:
      'The path names a version this API never published (or has not published yet). The body names the current version and the address of its index.',
  },
  'version-withdrawn': {
    status: 410,
    title: 'API version withdrawn',
    explanation:
      'The version was withdrawn at its sunset date, announced beforehand by the Deprecation and Sunset headers. The body gives the withdrawal date and the current version; the Link header points to it (rel="successor-version").',
  },
} as const;

export type ProblemName = keyof typeof PROBLEM_TYPES;

export const PROBLEM_NAMES = Object.keys(PROBLEM_TYPES) as ProblemName[];

/** `reference` is the address of the API reference page (`/docs/` on the site). */
export function problemTypeUri(reference: string, name: ProblemName): string {
  return new URL(`#${name}`, reference).href;
}
