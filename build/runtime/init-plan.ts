import { CONTENT_TYPES, LANGUAGES } from '../core/edge/languages.ts';
import { ContentIndexError } from '../core/errors.ts';
import type { HugoSettings } from './hugo-config.ts';
import { type HugoSetup, planHugoSite } from './hugo-site.ts';

/**
 * What `content-index init` writes into an existing site, decided from what is already there. Pure: the
 * command reads the facts and applies the plan. Nothing that exists is ever replaced: a file that is
 * there is skipped, a script name that is taken is skipped, a `.gitignore` line that is there is not
 * added again. So a second run finds nothing to do.
 */

export type Generator = 'hugo' | 'astro' | 'none';

/** The command each generator builds its pages with, which runs before content-index's. */
export const GENERATOR_COMMAND: Record<Generator, string | undefined> = {
  hugo: 'hugo',
  astro: 'astro build',
  none: undefined,
};

/** Where an installed copy's reference is, from the site's root: the package ships docs/. */
export const PACKAGE_DOCS = 'node_modules/content-index/docs';

export interface ProjectFacts {
  /** Paths (relative, POSIX) of the files below that exist. */
  exists: ReadonlySet<string>;
  /** The project folder's name, for a project name when package.json has none. */
  folderName: string;
  /** package.json as text, when present. */
  packageJson?: string;
  gitignore?: string;
  /** A Hugo site's configuration, read by hugo-config.ts, and the top folders of its content folders. */
  hugo?: { settings: HugoSettings; sections: Record<string, string[]>; logo?: string };
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
  /** What init assumed about a Hugo site, or could not reproduce (printed; empty when site.config.ts exists). */
  notes: string[];
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
];

export function planInit(facts: ProjectFacts): InitPlan {
  // Routes and layout are worked out only while there is a site.config.ts to write them into.
  const hugo = facts.hugo && !facts.exists.has('site.config.ts') ? hugoSetup(facts.hugo) : undefined;
  const out =
    facts.out ?? (facts.generator === 'astro' ? 'dist' : (facts.hugo?.settings.publishDir ?? 'public'));
  const site = facts.site ?? hugo?.site ?? facts.hugo?.settings.baseURL ?? PLACEHOLDER_SITE;
  const actions: InitAction[] = [];
  const create = (path: string, content: string, note?: string) => {
    if (facts.exists.has(path)) actions.push({ kind: 'skip', path, why: 'exists' });
    else actions.push({ kind: 'create', path, content, ...(note && { note }) });
  };

  create(
    'site.config.ts',
    siteConfig({ site, generator: facts.generator, hugo }),
    site === PLACEHOLDER_SITE
      ? 'set `site` to your site’s address'
      : httpsOf(site) !== site
        ? `images is ${httpsOf(site)}: published images must be https, and ${site} is http`
        : undefined,
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
    notes: hugo?.notes ?? [],
  };
}

function hugoSetup(hugo: NonNullable<ProjectFacts['hugo']>): HugoSetup {
  const result = planHugoSite(hugo.settings, hugo.sections, {
    ...(hugo.logo !== undefined && { logo: hugo.logo }),
  });
  if (result.ok) return result.setup;
  throw new ContentIndexError([
    {
      code: 'config_invalid',
      file: hugo.settings.files[0] ?? 'hugo.toml',
      field: 'defaultContentLanguage',
      message: `${result.message}; init wrote nothing`,
      hint: result.hint,
    },
  ]);
}

/** The image host must be https (browsers and crawlers fetch it): an http site's address, made https. */
function httpsOf(site: string): string {
  return site.replace(/^http:/i, 'https:');
}

function siteConfig(options: { site: string; generator: Generator; hugo: HugoSetup | undefined }): string {
  const { hugo } = options;
  const lines = [
    "import { defineSite } from 'content-index';",
    '',
    '// What content-index publishes about this site. Every option is in',
    `// ${PACKAGE_DOCS}/configuration.md; \`content\` (where the Markdown files are) in`,
    `// ${PACKAGE_DOCS}/existing-site.md.`,
  ];
  if (hugo) lines.push(...hugoComment(hugo));
  lines.push(
    'export default defineSite({',
    `  site: ${quote(options.site)},`,
    '  // Where relative `image:` values of the front matter resolve (an https address).',
    `  images: ${quote(httpsOf(options.site))},`,
  );
  if (hugo?.name !== undefined) lines.push(`  name: ${literal(hugo.name, '  ')},`);
  if (hugo?.description !== undefined) {
    lines.push(
      '  // Hugo’s params.description: each llms.txt opens with its language’s.',
      `  description: ${literal(hugo.description, '  ')},`,
    );
  }
  if (hugo) {
    lines.push(
      '  // The languages Hugo publishes; the default one is canonical (each item’s url, title and /llms.txt).',
      `  languages: ${literal(hugo.languages, '  ')},`,
    );
    if (hugo.canonicalLanguage !== 'es') lines.push(`  canonicalLanguage: ${quote(hugo.canonicalLanguage)},`);
    if (hugo.languagePaths) lines.push(`  languagePaths: ${literal(hugo.languagePaths, '  ')},`);
  }
  if (options.generator === 'astro') {
    lines.push(
      '  // An Astro content collection: adjust the globs to your collections.',
      "  content: { dir: 'src/content', types: { post: 'blog/**/*.{md,mdx}' }, language: 'folder' },",
    );
  }
  if (hugo) {
    if (hugo.sections.length > 0) {
      lines.push(
        '  // The sections the index lists: Hugo’s list pages of the published sections.',
        `  sections: ${literal(hugo.sections, '  ')},`,
      );
    }
    if (Object.keys(hugo.content).length > 0) lines.push(`  content: ${literal(hugo.content, '  ')},`);
    const routes: string[] = [];
    for (const type of CONTENT_TYPES) {
      const byLang = hugo.routes[type];
      if (!byLang) continue;
      routes.push(`    ${type}: {`);
      for (const lang of LANGUAGES) {
        const route = byLang[lang];
        if (route === undefined) continue;
        const todo = hugo.todos[type]?.[lang];
        if (todo) routes.push(`      // TODO: ${todo}`);
        routes.push(`      ${key(lang)}: ${quote(route)},`);
      }
      routes.push('    },');
    }
    if (routes.length > 0) lines.push('  routes: {', ...routes, '  },');
    lines.push(
      '  // Addresses made as Hugo makes them: lowercase, spaces as hyphens, a page’s own `url` front matter.',
      `  urls: ${literal(hugo.urls, '  ')},`,
    );
    if (hugo.generatorStatic.length > 0) {
      lines.push(
        '  // Hugo copies these into the output: their _headers and _redirects are merged with the API’s.',
        `  generatorStatic: ${literal(hugo.generatorStatic, '  ')},`,
      );
    }
    lines.push(...aiPluginLines(hugo));
  }
  lines.push('});', '');
  return lines.join('\n');
}

/**
 * /.well-known/ai-plugin.json's values from Hugo (a title made short enough, its contact and logo), and
 * what the build asks for when Hugo has none: each left out is a warning on every build until it is set.
 */
function aiPluginLines(hugo: HugoSetup): string[] {
  const entries = Object.entries(hugo.aiPlugin).filter(([, value]) => value !== undefined);
  const missing = [
    ...(hugo.aiPlugin.contactEmail === undefined ? ["contactEmail: 'you@example.com'"] : []),
    ...(hugo.aiPlugin.logoUrl === undefined && hugo.servedLogo === undefined ? ["logoUrl: '/logo.png'"] : []),
  ];
  const lines = [
    `  // /.well-known/ai-plugin.json (every key has a default: ${PACKAGE_DOCS}/discovery.md).`,
    ...hugo.aiPluginComments.map((comment) => `  // ${comment}`),
    ...(hugo.aiPlugin.logoUrl === undefined && hugo.servedLogo !== undefined
      ? [`  // The logo is ${hugo.servedLogo}, which Hugo publishes: the build finds it (or set logoUrl).`]
      : []),
  ];
  if (missing.length > 0)
    lines.push(
      `  // Hugo's configuration gives no ${missing.map((m) => m.split(':')[0]).join(' and ')}: the build warns until each is set`,
      `  // (the logo: a file the site serves; without one, the first of /logo.png, /favicon.ico… it serves).`,
    );
  if (entries.length === 0 && missing.length === 0) return lines;
  const inner = [
    ...entries.map(([name, value]) => `    ${name}: ${quote(String(value))},`),
    ...missing.map((line) => `    // ${line},`),
  ];
  return [...lines, '  aiPlugin: {', ...inner, '  },'];
}

/** What was read and assumed, above the configuration it explains. */
function hugoComment(hugo: HugoSetup): string[] {
  const mapped = Object.entries(hugo.mapped).map(([section, type]) => `${section} → ${type}`);
  return [
    '//',
    '// Written by `content-index init` from the Hugo configuration and the sections of the content folder:',
    `//   ${mapped.length > 0 ? mapped.join(', ') : 'no section is a post, project or tip'} (sections named like posts, projects or tips;`,
    '//   content.types says which folders are which type: edit it to publish others)',
    ...(hugo.unmapped.length > 0
      ? [`//   left out: ${hugo.unmapped.join(', ')} (no type matches them)`]
      : []),
    '// The routes are the addresses Hugo gives those pages (its permalinks, languages and URL rules): keep',
    '// them in step with the Hugo configuration.',
  ];
}

/** A TypeScript literal of plain data, one line when short. */
function literal(value: unknown, indent: string): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, indent)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const inline = `{ ${entries.map(([k, v]) => `${key(k)}: ${literal(v, indent)}`).join(', ')} }`;
  if (indent.length + inline.length <= 100) return inline;
  const inner = `${indent}  `;
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join('\n')}\n${indent}}`;
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name);
}

/** A single-quoted TypeScript string. */
function quote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}'`;
}

function headersConfig(today: string): string {
  return `import { defineHeaders } from 'content-index';

// The API versions and their lifecycle (${PACKAGE_DOCS}/versions.md). When a new version ships, v1
// gets a sunset at least 12 months after it and is served unchanged until then.
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
  const generator = GENERATOR_COMMAND[facts.generator];
  // The generator runs first in every script that publishes or serves the output folder: a fresh
  // checkout has no output folder (it is git-ignored), and a deploy of the API alone drops the site.
  const before = generator ? `${generator} && ` : '';
  const wanted: Record<string, string> = {
    build: `${before}content-index build${flag}`,
    // Hugo's own watch mode runs beside the server (dev --hugo), so pages and index follow every save.
    dev: facts.generator === 'hugo' ? `content-index dev --hugo${flag}` : `${before}content-index dev${flag}`,
    deploy: `${before}content-index deploy${flag}`,
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
  const advice = taken.flatMap((name) =>
    scriptAdvice(name, scripts[name] as string, wanted[name] as string, generator, flag),
  );
  if (added.length === 0) {
    return {
      kind: 'skip',
      path: 'package.json',
      why: `scripts ${taken.join(', ')} exist${advice.length > 0 ? `; ${advice.join('; ')}` : ''}`,
    };
  }
  for (const name of added) scripts[name] = wanted[name] as string;
  const next = facts.packageJson === undefined ? { name: projectName(facts), private: true } : manifest;
  const text = `${JSON.stringify({ ...next, scripts }, null, indent)}\n`;
  const skipped =
    taken.length > 0
      ? ` (${taken.join(', ')} kept as ${taken.length === 1 ? 'it is' : 'they are'}${advice.length > 0 ? `: ${advice.join('; ')}` : ''})`
      : '';
  return facts.packageJson === undefined
    ? { kind: 'create', path: 'package.json', content: text }
    : { kind: 'update', path: 'package.json', content: text, what: `scripts ${added.join(', ')}${skipped}` };
}

/**
 * What an existing script still needs, if anything: one that already runs the command (after the
 * generator, where there is one) needs nothing, so a second `init` has nothing to say about it.
 */
function scriptAdvice(
  name: string,
  current: string,
  wanted: string,
  generator: string | undefined,
  flag: string,
): string[] {
  if (name === 'dev') return [];
  const runs = new RegExp(`\\bcontent-index\\s+${name}\\b`).test(current);
  if (!runs) {
    return [
      name === 'build' ? `add \`&& content-index build${flag}\` to build` : `make ${name} run \`${wanted}\``,
    ];
  }
  const first = generator?.split(' ')[0];
  if (first && !new RegExp(`(^|[\\s;&|(])(npx\\s+)?${first}\\b`).test(current)) {
    return [`${name} runs content-index without ${generator} first: make it \`${wanted}\``];
  }
  return [];
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
    // Transient names beside the output folder while a build switches it (configuration.md, output folder).
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
