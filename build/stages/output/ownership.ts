import { LANDING_PAGE_PATH } from '../../core/discovery/landing-page.ts';
import type { Problem } from '../../core/errors.ts';
import type { OutputPlace } from './place.ts';
import { isStillOurs, type OutputRecord } from './record.ts';
import { type Entry, nativePath, parentsOf, walkTree } from './tree.ts';

/** The current output folder sorted into what the build wrote and what belongs to the author. */
export interface Ownership {
  /** Files the build recorded and that are still exactly what it wrote. */
  ours: Map<string, Entry>;
  /** Everything else: files, links and folders the author (or a site generator) put there. */
  authors: Map<string, Entry>;
  /** Files the build recorded that someone has changed since: the author's now. */
  changed: Set<string>;
}

export async function classify(
  dir: string | undefined,
  record: OutputRecord | undefined,
): Promise<Ownership> {
  const ours = new Map<string, Entry>();
  const authors = new Map<string, Entry>();
  const changed = new Set<string>();
  if (dir === undefined) return { ours, authors, changed };
  const entries = await walkTree(dir);
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      const owned = record?.files[entry.path];
      if (owned && (await isStillOurs(entry, owned, nativePath(dir, entry.path)))) {
        ours.set(entry.path, entry);
        return;
      }
      if (owned) changed.add(entry.path);
      authors.set(entry.path, entry);
    }),
  );
  return { ours, authors, changed };
}

/**
 * The author's folders worth recreating in a new generation: those holding an author's entry, and
 * empty ones. A folder that held only the build's files is left to the build (it disappears with them).
 */
export function foldersToCarry(ownership: Ownership): Set<string> {
  const keep = new Set<string>();
  const hasChildren = new Set<string>();
  for (const path of [...ownership.authors.keys(), ...ownership.ours.keys()]) {
    const parents = parentsOf(path);
    const parent = parents.at(-1);
    if (parent !== undefined) hasChildren.add(parent);
    if (ownership.authors.get(path)?.kind !== 'dir' && ownership.authors.has(path))
      for (const p of parents) keep.add(p);
  }
  for (const [path, entry] of ownership.authors) {
    if (entry.kind === 'dir' && !hasChildren.has(path)) keep.add(path);
  }
  return keep;
}

/** The output's `_headers` and `_redirects` that the site generator put there (write.ts works it out). */
export interface GeneratorCopies {
  /** Copies of a folder the configuration names in `generatorStatic`: replaced, no conflict. */
  replaceable: ReadonlySet<string>;
  /** Path → the generator folder (static/) holding the same bytes, which the configuration does not name. */
  likelySource: ReadonlyMap<string, string>;
}

/**
 * Every path the build is about to write that something of the author's stands in the way of: a file
 * the build did not write (or changed since), a folder where a file goes, a file or link where a folder
 * must be. Each problem names the file and says what to do; nothing is written when there is one.
 */
export function conflicts(
  place: OutputPlace,
  ownership: Ownership,
  paths: Iterable<string>,
  staticSource: ReadonlyMap<string, string>,
  options: {
    /** The API reference's folder (`docs/`): a page of the author's there is kept by moving the reference. */
    apiReference?: string;
    copies?: GeneratorCopies;
  } = {},
): Problem[] {
  const { apiReference, copies } = options;
  const problems = new Map<string, Problem>();
  const shown = (path: string) => `${place.shown}/${path}`;
  for (const path of paths) {
    // The site generator's copy of a file the build merges in: written over, as on every build.
    const entry = copies?.replaceable.has(path) ? undefined : ownership.authors.get(path);
    if (entry && path === LANDING_PAGE_PATH && !ownership.changed.has(path)) {
      // The opt-in landing page never replaces the site's own home page.
      problems.set(path, {
        code: 'output_conflict',
        file: shown(path),
        field: 'landingPage',
        message: 'is a page the build did not write; it was left as it is and nothing was written',
        hint: 'keep your page and remove landingPage from site.config.ts, or move your page elsewhere',
      });
    } else if (
      entry &&
      apiReference !== undefined &&
      path.startsWith(apiReference) &&
      entry.kind !== 'dir' &&
      !ownership.changed.has(path) &&
      !staticSource.has(path)
    ) {
      // The site's own /docs/ (a Hugo docs section): the page stays, the API reference moves.
      problems.set(path, {
        code: 'output_conflict',
        file: shown(path),
        field: 'apiReference',
        message: `is a page of the site's own, and the build writes the API reference at /${apiReference} (${path}); nothing was written`,
        hint: `keep your page and move the API reference: set apiReference in site.config.ts to a free folder, such as apiReference: '/api-docs/'`,
      });
    } else if (entry) {
      problems.set(path, {
        code: 'output_conflict',
        file: shown(path),
        message:
          entry.kind === 'dir'
            ? `is a folder, and the build writes a file at ${path}`
            : copies?.likelySource.has(path)
              ? `is a copy of ${copies.likelySource.get(path)}/${path}, put there by your site generator${ownership.changed.has(path) ? ' over the file an earlier build wrote' : ''}; the build writes ${path}`
              : ownership.changed.has(path)
                ? 'was written by an earlier build and has been changed since; the build writes this path again'
                : `was not written by content-index, and the build writes ${path}${fromStatic(staticSource, path)}`,
        hint: hintFor(place, path, entry, ownership.changed.has(path), staticSource, copies),
      });
    }
    for (const parent of parentsOf(path)) {
      const blocking = ownership.authors.get(parent);
      if (blocking && blocking.kind !== 'dir' && !problems.has(parent)) {
        problems.set(parent, {
          code: 'output_conflict',
          file: shown(parent),
          message: `is ${blocking.kind === 'link' ? 'a link' : 'a file'} where the build needs a folder (for ${path})`,
          hint: `move ${shown(parent)} out of the output folder, or delete it`,
        });
      }
    }
  }
  return [...problems.values()].sort((a, b) => ((a.file ?? '') < (b.file ?? '') ? -1 : 1));
}

function fromStatic(staticSource: ReadonlyMap<string, string>, path: string): string {
  const source = staticSource.get(path);
  return source === undefined ? '' : ` (from ${source})`;
}

function hintFor(
  place: OutputPlace,
  path: string,
  entry: Entry,
  changed: boolean,
  staticSource: ReadonlyMap<string, string>,
  copies: GeneratorCopies | undefined,
): string {
  const where = `${place.shown}/${path}`;
  if (path === '_headers' || path === '_redirects') {
    const folder = copies?.likelySource.get(path);
    if (folder) {
      return `it is a copy of ${folder}/${path}, which your site generator copies into ${place.shown}/ (Hugo: static/): add generatorStatic: ['${folder}'] to site.config.ts and the build merges that file into ${where} on every build`;
    }
    return `put its rules in ${path} at the project root, or in the folder your site generator copies into ${place.shown}/ (Hugo's static/, named in generatorStatic in site.config.ts); the build merges either into ${where}. Then delete ${where}`;
  }
  const source = staticSource.get(path);
  if (changed && source)
    return `make your change in ${source} (the build copies it here), then delete ${where}`;
  if (changed)
    return `delete ${where} to let the build write it again, or move your version out of the output folder`;
  if (source) return `the file comes from ${source}: keep one of the two, delete or move the other`;
  if (entry.kind === 'dir') return `move the folder ${where} elsewhere, or delete it`;
  return `move ${where} out of the output folder (or delete it); the build owns this address`;
}
