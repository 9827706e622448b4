import { readFile, stat } from 'node:fs/promises';
import { join, posix, relative, resolve } from 'node:path';
import fg from 'fast-glob';
import type { Problem } from '../core/errors.ts';
import { CANONICAL_LANGUAGE, type ContentType, isLanguage, type Language } from '../core/languages.ts';
import type { SourceFile } from '../core/model.ts';
import { parseSource } from './parse-source.ts';

export interface LoadOptions {
  root: string;
  /** Content folder, relative to root or absolute. */
  content: string;
  /** Files larger than this are refused before they are read. */
  maxFileBytes: number;
}

export interface Loaded {
  files: SourceFile[];
  problems: Problem[];
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

const TYPE_FOLDERS: Record<string, ContentType> = { posts: 'post', projects: 'project', tips: 'tip' };
const EXTENSIONS = /\.(md|markdown|mdx)$/i;
/** Looks like a language code: two or three letters, optionally a region. */
const LANGUAGE_LIKE = /^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?$/i;

export async function loadSources(options: LoadOptions): Promise<Loaded> {
  const contentDir = resolve(options.root, options.content);
  const found = await fg(['{posts,projects,tips}/**/*.{md,markdown,mdx}'], {
    cwd: contentDir,
    onlyFiles: true,
    followSymbolicLinks: false,
  });
  found.sort();
  // In a page bundle (`name/index.es.md`) other Markdown files are resources of the page, not pages.
  const bundles = new Set(
    found.filter((p) => /^index(\.[^./]+)?\.(md|markdown|mdx)$/i.test(posix.basename(p))).map(posix.dirname),
  );
  const problems: Problem[] = [];
  const files: SourceFile[] = [];
  const displayRoot = relative(options.root, contentDir).split('\\').join('/');

  await Promise.all(
    found.map(async (relPath) => {
      const dir = posix.dirname(relPath);
      const base = posix.basename(relPath);
      if (base.startsWith('_index.')) return; // Hugo list pages, not content
      const isIndex = /^index(\.[^./]+)?\.(md|markdown|mdx)$/i.test(base);
      if (!isIndex && insideBundle(dir, bundles)) return;

      const path = displayRoot ? `${displayRoot}/${relPath}` : relPath;
      const location = parseLocation(relPath);
      if ('problem' in location) {
        problems.push({ ...location.problem, file: path });
        return;
      }
      const absolute = join(contentDir, relPath);
      const size = (await stat(absolute)).size;
      if (size > options.maxFileBytes) {
        problems.push({
          code: 'source_too_large',
          file: path,
          message: `is ${formatBytes(size)}, over the ${formatBytes(options.maxFileBytes)} limit for one source file`,
          hint: 'move large data out of the Markdown file; the limit protects the build from runaway inputs',
        });
        return;
      }
      const parsed = parseSource(path, await readFile(absolute, 'utf8'));
      if ('code' in parsed) {
        problems.push(parsed);
        return;
      }
      files.push({ path, ...location, data: parsed.data, lines: parsed.lines });
    }),
  );
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, problems };
}

function insideBundle(dir: string, bundles: ReadonlySet<string>): boolean {
  for (let d = dir; d !== '.' && d !== ''; d = posix.dirname(d)) if (bundles.has(d)) return true;
  return false;
}

type Location = { type: ContentType; name: string; lang: Language } | { problem: Problem };

/** `posts/name.en.md`, `posts/name/index.pt-br.md`, `posts/name.md` (canonical language, as in Hugo). */
export function parseLocation(relPath: string): Location {
  const [folder] = relPath.split('/');
  const type = TYPE_FOLDERS[folder ?? ''];
  if (!type) throw new Error(`not under a content type folder: ${relPath}`);
  const base = posix.basename(relPath).replace(EXTENSIONS, '');
  const dot = base.lastIndexOf('.');
  let stem = base;
  let lang: Language = CANONICAL_LANGUAGE;
  if (dot > 0) {
    const suffix = base.slice(dot + 1);
    if (LANGUAGE_LIKE.test(suffix)) {
      const code = suffix.toLowerCase();
      if (!isLanguage(code)) {
        return {
          problem: {
            code: 'language_unknown',
            line: 1,
            field: 'language',
            message: `unknown language suffix ".${suffix}"`,
            hint: `use .es, .en or .pt-br${code.startsWith('pt') ? ' (Brazilian Portuguese is .pt-br)' : ''}`,
          },
        };
      }
      lang = code;
      stem = base.slice(0, dot);
    }
  }
  const name = stem === 'index' ? posix.basename(posix.dirname(relPath)) : stem;
  return { type, name, lang };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
