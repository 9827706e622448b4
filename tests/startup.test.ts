import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledMarks } from './helpers/bundled.ts';
import { md, PROJECT_ROOT, type TempSite, tempSite } from './helpers/site.ts';

// What the installed bin loads before it does any work: every command pays for it. A build that finds
// nothing changed parses no file, so it loads no parser; nor does --version; and neither loads the dev
// server's code or sorts anything by locale (the first collation loads ICU's data, 10–20 ms; the first
// number formatted by locale, 20–35 ms). No command imports a package dist/ bundles as CommonJS through
// Node's ES loader (its translator and export lexer: 15–30 ms a package).

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'bin', 'content-index.js');

/** The parsers of front matter and of Hugo's configuration, and what they load. */
const PARSERS = ['gray-matter', 'js-yaml', 'jsonc-parser', 'esprima'];

/** Packages dist/ holds in its own JavaScript (scripts/bundled-packages.mjs), CommonJS ones among them. */
const BUNDLED = ['gray-matter', 'commander', 'ajv', 'fast-deep-equal', 'jsonc-parser'];

/** The packages each file of dist/ holds, by the file's URL: a record sees one load by its file's URL. */
async function bundledByFile(): Promise<Map<string, Set<string>>> {
  const dist = join(PROJECT_ROOT, 'dist');
  const byFile = new Map<string, Set<string>>();
  for (const file of (await readdir(dist)).filter((name) => name.endsWith('.js'))) {
    const text = await readFile(join(dist, file), 'utf8');
    const names = bundledMarks(text).map((mark) => mark.name);
    if (names.length > 0) byFile.set(pathToFileURL(join(dist, file)).href, new Set(names));
  }
  return byFile;
}

// A preload that records, in the file $CONTENT_INDEX_LOADED names, every module the process loads from
// node_modules (ES modules through a loader hook, CommonJS from require's cache; package.json files read
// for a version are not loads), each CommonJS file the loader hook imported (`esm-commonjs:` and its
// URL), the Node built-ins it loads, and whether anything collated by locale.
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (url.startsWith('file:')) {
    // A CommonJS file imported as an ES module goes through Node's CommonJS translator and export lexer.
    const through = loaded.format === 'commonjs' ? 'esm-commonjs:' + url + '\\n' : '';
    appendFileSync(process.env.CONTENT_INDEX_LOADED, url + '\\n' + through);
  }
  return loaded;
}
`;
const PRELOAD = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url));
const file = process.env.CONTENT_INDEX_LOADED;
const localeCompare = String.prototype.localeCompare;
String.prototype.localeCompare = function (...args) {
  appendFileSync(file, 'icu:localeCompare\\n');
  return localeCompare.apply(this, args);
};
const toLocaleString = Number.prototype.toLocaleString;
Number.prototype.toLocaleString = function (...args) {
  appendFileSync(file, 'icu:toLocaleString\\n');
  return toLocaleString.apply(this, args);
};
for (const name of ['Collator', 'NumberFormat']) {
  Intl[name] = new Proxy(Intl[name], {
    construct(target, args) {
      appendFileSync(file, 'icu:' + name + '\\n');
      return Reflect.construct(target, args);
    },
  });
}
process.on('exit', () => {
  const cjs = Object.keys(createRequire(import.meta.url).cache).map((path) => 'file://' + path);
  const builtins = process.moduleLoadList.flatMap((m) => (m.startsWith('NativeModule ') ? ['node:' + m.slice(13)] : []));
  appendFileSync(file, [...cjs, ...builtins].join('\\n') + '\\n');
});
`;

let site: TempSite;
let preload: string;
let bundled: Map<string, Set<string>>;

beforeAll(async () => {
  site = await tempSite({
    'content/posts/hola.es.md': md({ title: 'Hola', date: '2025-03-01' }),
    'content/posts/hola.en.md': md({ title: 'Hello', date: '2025-03-01' }),
    'content/tips/atajo.es.md': md({ title: 'Atajo' }),
    'wrangler.toml': 'name = "startup"\npages_build_output_dir = "public"\n',
  });
  await site.write('.startup/hooks.mjs', HOOKS);
  await site.write('.startup/preload.mjs', PRELOAD);
  preload = pathToFileURL(join(site.root, '.startup', 'preload.mjs')).href;
  bundled = await bundledByFile();
});
afterAll(() => site.dispose());

/** Runs the bin under the preload: what it printed, and the packages, built-ins and ICU uses it loaded. */
async function loads(...args: string[]) {
  return recorded([BIN, ...args]);
}

/** The same of any Node command line (`node --import <preload> …argv`). */
async function recorded(argv: string[]) {
  const file = join(site.root, '.startup', 'loaded.txt');
  await writeFile(file, '');
  const { stdout } = await run(process.execPath, ['--import', preload, ...argv], {
    cwd: site.root,
    env: { ...process.env, CONTENT_INDEX_LOADED: file },
  });
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  const packages = new Set(
    lines.flatMap((line) => {
      if (line.endsWith('/package.json') || line.startsWith('esm-commonjs:')) return [];
      const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1];
      return name ? [name] : [];
    }),
  );
  const builtins = new Set(lines.filter((line) => line.startsWith('node:')));
  const icu = lines.filter((line) => line.startsWith('icu:'));
  /** The packages dist/ bundles whose file of dist/ loaded. */
  const fromDist = new Set(lines.flatMap((line) => [...(bundled.get(line) ?? [])]));
  /** The packages of BUNDLED imported as CommonJS through the loader hook. */
  const commonJs = BUNDLED.filter((name) =>
    lines.some((line) => line.startsWith('esm-commonjs:') && line.includes(`/node_modules/${name}/`)),
  );
  const anyCommonJs = lines.some((line) => line.startsWith('esm-commonjs:'));
  return { stdout, lines, packages, fromDist, builtins, icu, commonJs, anyCommonJs };
}

describe('what a command loads before it works', () => {
  it("a build that parses files loads the parsers (the record sees them), not gray-matter's js-yaml 3 and esprima", async () => {
    const first = await loads('build', '--json');
    expect(JSON.parse(first.stdout).incremental.unchanged).toBe(false);
    expect([...first.packages]).toEqual(expect.arrayContaining(['js-yaml', 'smol-toml']));
    // gray-matter is bundled into dist/ with its YAML engine left out (scripts/build-dist.mjs): the
    // js-yaml 3 it requires would load esprima, 25–30 ms, for an engine parse-source.js replaces.
    expect(first.packages.has('esprima')).toBe(false);
    // jsonc-parser's ES module build is part of dist/ (scripts/bundled-packages.mjs): the UMD build Node
    // would import requires its parts one by one through the CommonJS translator, 20–30 ms of every
    // process that parses a file. The parsers come from dist/'s files, and none from node_modules.
    expect([...first.fromDist]).toEqual(expect.arrayContaining(['gray-matter', 'jsonc-parser']));
    expect(first.commonJs).toEqual([]);
    expect(first.packages.has('jsonc-parser')).toBe(false);
    // What the hook records as CommonJS it does see: a first build imports esbuild (the configuration)
    // and fast-glob (the listing) that way.
    expect(first.anyCommonJs).toBe(true);
    expect(
      first.lines.filter(
        (line) => line.includes('/node_modules/gray-matter/') && !line.endsWith('/package.json'),
      ),
    ).toEqual([]);
    // Nor ICU's collation or number formatting (what the record sees): every name it orders is plain
    // (core/text-order.ts), and it groups its numbers itself.
    expect(first.icu).toEqual([]);
  });

  it('records a use of ICU when there is one (the checks of none above would otherwise prove nothing)', async () => {
    const used = await recorded([
      '-e',
      "['b', 'a'].sort((x, y) => x.localeCompare(y)); (2588).toLocaleString('en-US'); new Intl.Collator('en');",
    ]);
    expect(used.icu).toEqual(['icu:localeCompare', 'icu:toLocaleString', 'icu:Collator']);
  });

  it('a build that finds nothing changed loads no front-matter parser, no dev server, no ICU collation', async () => {
    const unchanged = await loads('build', '--json');
    expect(JSON.parse(unchanged.stdout).incremental.unchanged).toBe(true);
    expect(PARSERS.filter((name) => unchanged.packages.has(name) || unchanged.fromDist.has(name))).toEqual(
      [],
    );
    // Its own parts load (the record is not empty): wrangler.toml's TOML parser, and commander and ajv's
    // runtime helpers from dist/ (imported from node_modules, each went through Node's CommonJS
    // translator: 15–25 ms of every command).
    expect(unchanged.packages.has('smol-toml')).toBe(true);
    expect([...unchanged.fromDist]).toEqual(expect.arrayContaining(['commander', 'ajv']));
    expect(unchanged.commonJs).toEqual([]);
    // (fast-glob may load: folders this young are listed again, their stamps too recent to trust.)
    expect(unchanged.packages.has('chokidar')).toBe(false);
    expect(unchanged.builtins.has('node:http')).toBe(false);
    expect(unchanged.icu).toEqual([]);
  });

  it("a build after an edit loads no ICU collation: its report keeps the last build's order of files", async () => {
    await site.write('content/posts/hola.es.md', md({ title: 'Hola otra vez', date: '2025-03-01' }));
    const edited = await loads('build', '--json');
    const report = JSON.parse(edited.stdout) as {
      incremental: { unchanged: boolean };
      files: { path: string }[];
    };
    expect(report.incremental.unchanged).toBe(false);
    expect(edited.icu).toEqual([]);
    // It parses the file: the parsers from dist/ (js-yaml, not bundled, from node_modules).
    expect([...edited.fromDist]).toEqual(expect.arrayContaining(['gray-matter', 'jsonc-parser']));
    expect(edited.packages.has('js-yaml')).toBe(true);
    expect(edited.commonJs).toEqual([]);
    const paths = report.files.map((file) => file.path);
    expect(paths).toEqual([...paths].sort((a, b) => a.localeCompare(b)));
    expect(paths).toContain('api/v1/content.json');
  });

  it('--version loads no parser at all, nor picomatch (a Hugo cascade target loads it)', async () => {
    const version = await loads('--version');
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(
      [...PARSERS, 'smol-toml', 'picomatch'].filter(
        (name) => version.packages.has(name) || version.fromDist.has(name),
      ),
    ).toEqual([]);
    expect(version.fromDist.has('commander')).toBe(true);
    expect(version.commonJs).toEqual([]);
    expect(version.anyCommonJs).toBe(false);
    expect(version.builtins.has('node:http')).toBe(false);
    expect(version.icu).toEqual([]);
  });
});
