import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../../package.json' with { type: 'json' };
import { BUNDLED } from '../core/bundled.ts';
import type { SerializerRegistry } from '../core/serializers/registry.ts';
import { cacheIdentity } from './parse-cache.ts';

/** A short digest of the parts, each told apart from the next. */
export function digest(...parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('base64url').slice(0, 32);
}

let tool: string | undefined;

/**
 * The running tool: its version, its code and schemas as they are on disk (every file's name, size and
 * time: an install or a rebuild of the tool changes them), and the parsers' identity. What a build kept
 * (stages/fragment-store.ts) is used again only by the same tool.
 */
export function toolFingerprint(maxFileBytes = 0): string {
  if (tool === undefined) {
    const hash = createHash('sha256').update(`${packageJson.version}\u0000${cacheIdentity(maxFileBytes)}`);
    // dist/ in the package (its code, schemas and vendored files); build/ from the sources.
    const code = dirname(fileURLToPath(import.meta.url));
    const dir = BUNDLED ? code : dirname(code);
    for (const file of walk(dir)) {
      const stats = statSync(file, { throwIfNoEntry: false });
      if (stats) hash.update(`${file}\u0000${stats.size}\u0000${stats.mtimeMs}\n`);
    }
    tool = hash.digest('base64url').slice(0, 32);
  }
  return tool;
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
        String(s.item ?? ''),
        String(s.envelope ?? ''),
      ]),
    ),
  );
}
