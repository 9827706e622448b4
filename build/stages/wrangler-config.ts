import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Problem } from '../core/errors.ts';

/** What content-index reads from the project's wrangler configuration. */
export interface WranglerConfig {
  /** The file it came from, relative to the project root; undefined when the project has none. */
  file?: string;
  name?: string;
  /** `pages_build_output_dir`: the folder the Pages project serves and `wrangler pages deploy` uploads by default. */
  pagesBuildOutputDir?: string;
  d1Databases: {
    binding?: string;
    database_name?: string;
    database_id?: string;
    /** The id `wrangler dev` and `d1 execute --local` use for the binding when it is set. */
    preview_database_id?: string;
  }[];
}

const FILES = ['wrangler.toml', 'wrangler.json', 'wrangler.jsonc'] as const;

/**
 * smol-toml, loaded with the first wrangler.toml read (every build of a site that has one), and
 * required: its CommonJS build is one file where its ES build is nine modules, ~3 ms against ~13 here.
 */
function toml(): typeof import('smol-toml') {
  return createRequire(import.meta.url)('smol-toml') as typeof import('smol-toml');
}

// The last text read and what it parsed to: a build reads the file more than once, and dev at every
// save (its TOML parsed again took some 4 ms of a 1,000-item save).
let parsed: { file: string; text: string; raw: Record<string, unknown> } | undefined;

function parsedText(file: string, text: string): Record<string, unknown> {
  if (parsed?.file === file && parsed.text === text) return parsed.raw;
  const raw = (file.endsWith('.toml') ? toml().parse(text) : JSON.parse(stripJsonComments(text))) as Record<
    string,
    unknown
  >;
  parsed = { file, text, raw };
  return raw;
}

/**
 * Reads wrangler.toml (or wrangler.json/.jsonc, as wrangler accepts them). A file that does not parse
 * is a problem of its own, reported with the build's others.
 */
export async function readWranglerConfig(
  root: string,
): Promise<{ config: WranglerConfig; problem?: Problem }> {
  for (const file of FILES) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    try {
      const raw = parsedText(file, text);
      const databases = Array.isArray(raw.d1_databases) ? raw.d1_databases : [];
      return {
        config: {
          file,
          ...(typeof raw.name === 'string' && { name: raw.name }),
          ...(typeof raw.pages_build_output_dir === 'string' && {
            pagesBuildOutputDir: raw.pages_build_output_dir,
          }),
          d1Databases: databases.filter(
            (d): d is Record<string, string> => typeof d === 'object' && d !== null,
          ),
        },
      };
    } catch (error) {
      return {
        config: { file, d1Databases: [] },
        problem: {
          code: 'config_invalid',
          file,
          message: `cannot be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          hint: 'fix the syntax; wrangler reads this file too',
        },
      };
    }
  }
  return { config: { d1Databases: [] } };
}

/**
 * The output folder the Pages project serves: `pages_build_output_dir` in the wrangler configuration
 * (relative to the project root, where that file is), `public` without one. The `/mcp` Function's data
 * module in `.content-index/worker/` belongs to this folder's build: wrangler bundles it with every
 * `pages dev` and `pages deploy` of the project, whatever folder they serve.
 */
export async function servedOutput(root: string): Promise<{ path: string; declared: boolean; file: string }> {
  const { config } = await readWranglerConfig(root);
  return {
    path: resolve(root, config.pagesBuildOutputDir ?? 'public'),
    declared: config.pagesBuildOutputDir !== undefined,
    file: config.file ?? 'wrangler.toml',
  };
}

/** wrangler.jsonc allows // and /* comments; strings are left alone. */
function stripJsonComments(text: string): string {
  return text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_match, string) => string ?? '');
}

/**
 * The D1 backend needs the database bound to the Function under the configured name. Checked by every
 * build that chooses D1, so a missing binding stops the build or the deploy, not the first request.
 */
export function d1BindingProblems(
  wrangler: WranglerConfig,
  d1: { database: string; binding: string },
  configFile: string,
): Problem[] {
  const file = wrangler.file ?? 'wrangler.toml';
  const entry = wrangler.d1Databases.find((d) => d.binding === d1.binding);
  if (!entry) {
    return [
      {
        code: 'config_invalid',
        file,
        field: 'd1_databases',
        message: `has no D1 database bound as ${d1.binding}, which the MCP backend d1 (${configFile}: mcp.backend) reads the index from`,
        hint: `create the database once with npx wrangler d1 create ${d1.database}, then add a [[d1_databases]] entry to ${file} with binding = "${d1.binding}", database_name = "${d1.database}" and the database_id it printed (or set mcp.d1.binding in ${configFile} to the binding you use)`,
      },
    ];
  }
  if (entry.database_name !== d1.database) {
    return [
      {
        code: 'config_invalid',
        file,
        field: 'd1_databases',
        message: `binds ${d1.binding} to the database ${entry.database_name ?? '(no database_name)'}, but ${configFile} names ${d1.database} (mcp.d1.database)`,
        hint: `make the two names the same: database_name = "${d1.database}" in ${file}, or mcp: { d1: { database: '${entry.database_name ?? ''}' } } in ${configFile}`,
      },
    ];
  }
  return [];
}
