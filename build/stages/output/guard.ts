import { realpathSync } from 'node:fs';
import { basename, dirname, join, parse } from 'node:path';
import type { Problem } from '../../core/errors.ts';
import { PRIVATE_DIR } from './place.ts';
import { within } from './tree.ts';

export interface GuardedPlaces {
  root: string;
  home: string;
  content?: string;
  staticDir?: string;
}

/**
 * The build makes the output folder a link to a folder it owns, carrying the files already there into
 * each new generation. Pointed at a folder that holds the project, the home folder or the sources, that
 * would move them under the tool's private folder: refused, with the reason.
 */
export function refusedOutput(out: string, places: GuardedPlaces): Problem | undefined {
  // The last component is not resolved: once published, the output folder is a link the build owns.
  const target = join(canonical(dirname(out)), basename(out));
  const root = canonical(places.root);
  const shown = within(root, target) || target;
  const refuse = (message: string): Problem => ({
    code: 'output_refused',
    file: shown,
    field: 'out',
    message: `${message}; the build replaces the output folder as a whole and cannot use it`,
    hint: 'choose a folder of its own for the output, such as --out public (the default)',
  });
  if (parse(target).root === target) return refuse('is the root of the file system');
  const checks: [string | undefined, string, string][] = [
    [places.home, 'is your home folder', 'contains your home folder'],
    [places.root, 'is the project root', 'contains the project'],
    [places.content, 'is the content folder', 'contains the content folder'],
    [places.staticDir, 'is the static folder', 'contains the static folder'],
  ];
  for (const [place, same, contains] of checks) {
    if (place === undefined) continue;
    const inside = within(target, canonical(place));
    if (inside === '') return refuse(same);
    if (inside !== undefined) return refuse(contains);
  }
  if (within(canonical(join(places.root, PRIVATE_DIR)), target) !== undefined)
    return refuse(`is inside ${PRIVATE_DIR}/, the tool's private folder`);
  if (places.staticDir && within(canonical(places.staticDir), target) !== undefined)
    return refuse('is inside the static folder');
  return undefined;
}

/** The path with links resolved in the part that exists (`/tmp` and `/private/tmp` are one folder). */
function canonical(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...[...rest].reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}
