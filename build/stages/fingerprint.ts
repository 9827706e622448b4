import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../../package.json' with { type: 'json' };
import { BUNDLED } from '../core/bundled.ts';
import { joinedOf, type SerializerRegistry } from '../core/serializers/registry.ts';
import { cacheIdentity } from './parse-cache.ts';

/** A short digest of the parts, each told apart from the next. */
export function digest(...parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('base64url').slice(0, 32);
}

let tool: string | undefined;

/**
 * The running tool: its version, its code and schemas, and the parsers' identity. What a build kept
 * (stages/fragment-store.ts) is used again only by the same tool. In the package, dist/build-id is the
 * digest of everything dist/ was made from (scripts/build-dist.mjs); from the sources, every file's
 * name, size and time.
 */
export function toolFingerprint(maxFileBytes = 0): string {
  if (tool === undefined) {
    const hash = createHash('sha256').update(`${packageJson.version}\u0000${cacheIdentity(maxFileBytes)}`);
    const code = dirname(fileURLToPath(import.meta.url));
    const id = BUNDLED ? readOrUndefined(join(code, 'build-id')) : undefined;
    if (id) {
      hash.update(id);
    } else {
      for (const file of walk(BUNDLED ? code : dirname(code))) {
        const stats = statSync(file, { throwIfNoEntry: false });
        if (stats) hash.update(`${file}\u0000${stats.size}\u0000${stats.mtimeMs}\n`);
      }
    }
    tool = hash.digest('base64url').slice(0, 32);
  }
  return tool;
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function walk(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/**
 * A registry's versions as far as they can be told from outside: their names, schemas and the code of
 * their functions. The built-in registry is the tool's own.
 */
export function serializersFingerprint(registry: SerializerRegistry): string {
  return digest(
    ...Object.entries(registry).map(([version, s]) =>
      JSON.stringify([
        version,
        s.schema,
        String(s.serialize),
        String(joinedOf(s)?.item ?? ''),
        String(joinedOf(s)?.envelope ?? ''),
      ]),
    ),
  );
}
