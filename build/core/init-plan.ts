/**
 * What `content-index init` writes into an existing site, decided from what is already there. Pure: the
 * command reads the facts and applies the plan. Nothing that exists is ever replaced: a file that is
 * there is skipped, a script name that is taken is skipped, a `.gitignore` line that is there is not
 * added again. So a second run finds nothing to do.
 */

export type Generator = 'hugo' | 'astro' | 'none';

export interface ProjectFacts {
  /** Paths (relative, POSIX) of the files below that exist. */
  exists: ReadonlySet<string>;
  /** The project folder's name, for a project name when package.json has none. */
  folderName: string;
  /** package.json as text, when present. */
  packageJson?: string;
  gitignore?: string;
  /** The Hugo configuration file's text, when there is one. */
  hugoConfig?: string;
  generator: Generator;
  /** YYYY-MM-DD: the publication date of the site's first API version. */
  today: string;
  compatibilityDate: string;
  /** From the command line; they win over anything detected. */
  site?: string;
  out?: string;
}

export type InitAction =
  | { kind: 'create'; path: string; content: string; note?: string }
  | { kind: 'update'; path: string; content: string; what: string }
  | { kind: 'skip'; path: string; why: string };

export interface InitPlan {
  generator: Generator;
  out: string;
  site: string;
  /** True when the site address could not be found and a placeholder was written. */
  placeholderSite: boolean;
  actions: InitAction[];
}

/**
 * The files the Pages Functions consist of in a site: the handlers ship in the package; /mcp adds the
 * data module the build writes for it (bundled into the Worker, so nothing is fetched per request).
 */
export const FUNCTION_FILES = {
  'functions/api/[[path]].ts': `// Pages Function for /api/*: deprecated versions' headers, 410 for withdrawn ones, 404 problems.
// Written by \`content-index init\`; the handler ships in the content-index package.
export { onRequest } from 'content-index/functions/api';
`,
  'functions/mcp/[[path]].ts': `// Pages Function for /mcp and /mcp/*: the MCP server (list_content, search_content, content_stats).
// Written by \`content-index init\`; the handler ships in the content-index package, and its data is the
// module \`content-index build\` writes into the site's private folder, which wrangler bundles in.
import { createMcpFunction } from 'content-index/functions/mcp';
// If wrangler cannot resolve this import, the site has not been built yet: run the build first.
import data from '../../.content-index/worker/mcp-data.mjs';

export const onRequest = createMcpFunction(data);
`,
} as const;

export const HUGO_CONFIG_FILES = [
  'hugo.toml',
  'hugo.yaml',
  'hugo.yml',
  'hugo.json',
  'config.toml',
  'config.yaml',
  'config.yml',
  'config.json',
];
export const ASTRO_CONFIG_FILES = [
  'astro.config.mjs',
  'astro.config.ts',
  'astro.config.js',
  'astro.config.mts',
];
const WRANGLER_FILES = ['wrangler.toml', 'wrangler.json', 'wrangler.jsonc'];
const PLACEHOLDER_SITE = 'https://example.com/';

/** Every path `planInit` may look at, for the command to test for existence. */
export const INIT_PATHS = [
  'site.config.ts',
  'headers.config.ts',
  ...Object.keys(FUNCTION_FILES),
  ...WRANGLER_FILES,
  'package.json',
  '.gitignore',
  'content',
  ...HUGO_CONFIG_FILES,
  ...ASTRO_CONFIG_FILES,
];

export function planInit(facts: ProjectFacts): InitPlan {
  const hugo = facts.hugoConfig ? readHugoConfig(facts.hugoConfig) : {};
  const out = facts.out ?? (facts.generator === 'astro' ? 'dist' : (hugo.publishDir ?? 'public'));
  const site = facts.site ?? hugo.baseURL ?? PLACEHOLDER_SITE;
  const actions: InitAction[] = [];
  const create = (path: string, content: string, note?: string) => {
    if (facts.exists.has(path)) actions.push({ kind: 'skip', path, why: 'exists' });
    else actions.push({ kind: 'create', path, content, ...(note && { note }) });
  };

  create(
    'site.config.ts',
    siteConfig({ site, name: hugo.title, generator: facts.generator }),
    site === PLACEHOLDER_SITE ? 'set `site` to your site’s address' : undefined,
  );
  create('headers.config.ts', headersConfig(facts.today));
  for (const [path, content] of Object.entries(FUNCTION_FILES)) create(path, content);
  const wrangler = WRANGLER_FILES.find((f) => facts.exists.has(f));
  if (wrangler) actions.push({ kind: 'skip', path: wrangler, why: 'exists' });
  else create('wrangler.toml', wranglerToml(projectName(facts), out, facts.compatibilityDate));
  actions.push(packageScripts(facts, out));
  const ignore = gitignore(facts.gitignore, out);
  if (ignore) actions.push(ignore);
  return {
    generator: facts.generator,
    out,
    site,
    placeholderSite: site === PLACEHOLDER_SITE,
    actions,
  };
}

/** `baseURL`, `title` and `publishDir` of a Hugo configuration (TOML, YAML or JSON), top level only. */
export function readHugoConfig(text: string): { baseURL?: string; title?: string; publishDir?: string } {
  // Keys in TOML tables ([params], [menu]) are not the site's: read only up to the first table.
  const top = text.split(/^\s*\[/m)[0] ?? '';
  const value = (key: string) => {
    const match = new RegExp(
      `(?:^|[{,])\\s*"?${key}"?\\s*[=:]\\s*(?:"([^"]*)"|'([^']*)'|([^\\s,#]+))`,
      'im',
    ).exec(top);
    const found = match?.[1] ?? match?.[2] ?? match?.[3];
    return found === undefined || found === '' ? undefined : found;
  };
  const result: { baseURL?: string; title?: string; publishDir?: string } = {};
  const base = value('baseURL');
  if (base && /^https?:\/\//i.test(base)) result.baseURL = base.endsWith('/') ? base : `${base}/`;
  const title = value('title');
  if (title) result.title = title;
  const publishDir = value('publishDir');
  if (publishDir) result.publishDir = publishDir.replace(/\/+$/, '');
  return result;
}

function siteConfig(options: { site: string; name: string | undefined; generator: Generator }): string {
  const lines = [
    "import { defineSite } from 'content-index';",
    '',
    '// What content-index publishes about this site; every option is in docs/configuration.md of the',
    '// content-index package. `content` says where the Markdown files are (docs/existing-site.md).',
    'export default defineSite({',
    `  site: ${quote(options.site)},`,
    '  // Where relative `image:` values of the front matter resolve.',
    `  images: ${quote(options.site)},`,
  ];
  if (options.name) lines.push(`  name: ${quote(options.name)},`);
  if (options.generator === 'astro') {
    lines.push(
      '  // An Astro content collection: adjust the globs to your collections.',
      "  content: { dir: 'src/content', types: { post: 'blog/**/*.{md,mdx}' }, language: 'folder' },",
    );
  }
  lines.push('});', '');
  return lines.join('\n');
}

/** A single-quoted TypeScript string. */
function quote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}'`;
}

function headersConfig(today: string): string {
  return `import { defineHeaders } from 'content-index';

// The API versions and their lifecycle (docs/versions.md of the content-index package). When a new
// version ships, v1 gets a sunset at least 12 months after it and is served unchanged until then.
export default defineHeaders({
  versions: {
    v1: { published: '${today}' },
  },
});
`;
}

function wranglerToml(name: string, out: string, compatibilityDate: string): string {
  return `# Cloudflare Pages project: \`wrangler pages dev ${out}\` serves it locally, \`content-index deploy\` publishes it.
name = "${name}"
pages_build_output_dir = "${out}"
compatibility_date = "${compatibilityDate}"
`;
}

/** A Pages project name: lowercase letters, digits and dashes. */
function projectName(facts: ProjectFacts): string {
  let name = facts.folderName;
  try {
    const parsed = JSON.parse(facts.packageJson ?? '{}') as { name?: unknown };
    if (typeof parsed.name === 'string' && parsed.name) name = parsed.name.replace(/^@[^/]+\//, '');
  } catch {
    // An unreadable package.json is reported by packageScripts.
  }
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 58);
  return cleaned || 'site';
}

function packageScripts(facts: ProjectFacts, out: string): InitAction {
  const flag = out === 'public' ? '' : ` --out ${out}`;
  const before =
    facts.generator === 'hugo' ? 'hugo && ' : facts.generator === 'astro' ? 'astro build && ' : '';
  const wanted: Record<string, string> = {
    build: `${before}content-index build${flag}`,
    dev: `content-index dev${flag}`,
    deploy: `content-index deploy${flag}`,
  };
  let manifest: Record<string, unknown> = {};
  let indent = '  ';
  if (facts.packageJson !== undefined) {
    try {
      manifest = JSON.parse(facts.packageJson);
    } catch {
      return { kind: 'skip', path: 'package.json', why: 'is not valid JSON; no scripts were added' };
    }
    indent = /^([ \t]+)"/m.exec(facts.packageJson)?.[1] ?? indent;
  }
  const scripts = { ...((manifest.scripts as Record<string, string> | undefined) ?? {}) };
  const added = Object.keys(wanted).filter((name) => scripts[name] === undefined);
  const taken = Object.keys(wanted).filter((name) => scripts[name] !== undefined);
  if (added.length === 0) {
    return {
      kind: 'skip',
      path: 'package.json',
      why: `scripts ${taken.join(', ')} exist; run \`content-index build${flag}\` after your site generator in your build script`,
    };
  }
  for (const name of added) scripts[name] = wanted[name] as string;
  const next = facts.packageJson === undefined ? { name: projectName(facts), private: true } : manifest;
  const text = `${JSON.stringify({ ...next, scripts }, null, indent)}\n`;
  const skipped =
    taken.length > 0
      ? ` (${taken.join(', ')} kept as ${taken.length === 1 ? 'it is' : 'they are'}${taken.includes('build') ? `: add \`&& content-index build${flag}\` to build` : ''})`
      : '';
  return facts.packageJson === undefined
    ? { kind: 'create', path: 'package.json', content: text }
    : { kind: 'update', path: 'package.json', content: text, what: `scripts ${added.join(', ')}${skipped}` };
}

/**
 * `.gitignore` lines for what the tool writes: its private folder, wrangler's, and the output folder,
 * which the build makes a link (written without a trailing slash: `/public/` matches folders only, and
 * git would list the link as a new file).
 */
function gitignore(text: string | undefined, out: string): InitAction | undefined {
  const lines = (text ?? '').split(/\r?\n/).map((line) => line.trim());
  const present = new Set(lines.map(normalise));
  const outIgnored = lines.some((line) => line === out || line === `/${out}`);
  const wanted = [
    '.content-index/',
    '.wrangler/',
    'node_modules/',
    ...(outIgnored ? [] : [`/${out}`]),
    // Transient names beside the output folder while a build switches it (see docs/configuration.md).
    '.*.content-index*',
  ].filter((line) => !present.has(normalise(line)) || line === `/${out}`);
  if (wanted.length === 0) return undefined;
  const block = ['# content-index: its private folder, wrangler’s state, the output it writes', ...wanted];
  if (text === undefined) return { kind: 'create', path: '.gitignore', content: `${block.join('\n')}\n` };
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return {
    kind: 'update',
    path: '.gitignore',
    content: `${text}${separator}${text.trim() ? '\n' : ''}${block.join('\n')}\n`,
    what: wanted.join(' '),
  };
}

/** `/public/`, `public/` and `public` ignore the same folder at the root. */
function normalise(line: string): string {
  return line.trim().replace(/^\//, '').replace(/\/$/, '');
}
