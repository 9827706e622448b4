// The packages of node_modules that dist/ carries inside its own JavaScript, and their licences. Used by
// scripts/build-dist.mjs.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { manifestOf, ROOT } from './dist-inputs.mjs';

/**
 * Packages bundled into dist/ rather than imported from node_modules at run time. Node imports a
 * CommonJS package into an ES module through its CommonJS loader and a lexer that finds its exports:
 * 15–25 ms of every command before it starts (commander and ajv's runtime helpers, which every command
 * loads) and 20–30 ms more of every process that parses a file (jsonc-parser's UMD build, which requires
 * its parts one by one). As part of the bundle the same code costs a few milliseconds.
 *
 * gray-matter is bundled without the js-yaml 3 it requires for an engine the build replaces
 * (parse-source.js hands it js-yaml 4's): js-yaml 3 loads esprima, and requiring the two took 25–30 ms
 * of every process that parses a file; its `fs`, used only by `matter.read`, which the build never
 * calls, is left out. What a bundled package requires is bundled with it (a nested copy would be out of
 * dist/'s reach), except Node's own modules, taken from the running Node as `require` takes them.
 * @type {import('esbuild').Plugin}
 */
export const bundledPackages = {
  name: 'bundled-packages',
  setup(build) {
    /** @type {Set<string>} */
    const inside = new Set();
    const grayMatter = dirname(manifestOf('gray-matter')) + sep;
    const bundled = (/** @type {string} */ from, /** @type {string} */ specifier) => {
      const path = createRequire(from).resolve(specifier);
      inside.add(path);
      return { path };
    };
    build.onResolve({ filter: /^(gray-matter|commander|ajv\/dist\/runtime\/[\w.-]+)$/ }, (args) =>
      inside.has(args.importer) ? undefined : bundled(join(ROOT, 'package.json'), args.path),
    );
    // Its ES module build: the one Node loads (`main`) is UMD, whose requires a bundler cannot follow.
    build.onResolve({ filter: /^jsonc-parser$/ }, async (args) => {
      if (inside.has(args.importer)) return undefined;
      const manifest = manifestOf('jsonc-parser');
      const { module } = JSON.parse(await readFile(manifest, 'utf8'));
      if (typeof module !== 'string') return { errors: [{ text: `${manifest} names no ES module build` }] };
      return bundled(manifest, `./${module}`);
    });
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (!inside.has(args.importer)) return undefined;
      if (args.importer.startsWith(grayMatter) && (args.path === 'js-yaml' || args.path === 'fs'))
        return { path: args.path, namespace: 'left-out' };
      if (isBuiltin(args.path)) return { path: args.path, namespace: 'node-builtin' };
      return bundled(args.importer, args.path);
    });
    build.onResolve({ filter: /^\.\.?(\/|$)/ }, (args) =>
      inside.has(args.importer) ? bundled(args.importer, args.path) : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents:
        args.path === 'js-yaml'
          ? "const refused = () => { throw new Error('gray-matter is given its YAML engine'); };\nmodule.exports = { safeLoad: refused, safeDump: refused };"
          : 'module.exports = {};',
      loader: 'js',
    }));
    // Left external, a `require` of one would become esbuild's `__require`, which throws in an ES module
    // (there is no `require` to call); imported instead, the bundled code would get a namespace object
    // where it uses the module itself (`class extends require('node:events')`).
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * The `require` calls of bundled packages left to run time: each would throw there (see the
 * `node-builtin` loader above), whatever the build said. Empty when every one was followed.
 * @param {import('esbuild').Metafile} metafile
 */
export function requiresLeftOut(metafile) {
  return Object.entries(metafile.inputs).flatMap(([input, { imports }]) =>
    input.includes('node_modules/')
      ? imports.filter((i) => i.kind === 'require-call' && i.external).map((i) => `${input}: ${i.path}`)
      : [],
  );
}

/**
 * dist/THIRD-PARTY-LICENSES.txt: the licence and notice files of every package whose code the builds
 * put into dist/ (each input under node_modules/), which their terms ask to travel with it; one section
 * per installed copy, by name and version. `unlicensed`: the packages that have no such file.
 * @param {readonly import('esbuild').Metafile[]} metafiles
 */
export async function bundledLicences(metafiles) {
  /** @type {Map<string, string>} */
  const folders = new Map();
  for (const input of metafiles.flatMap((metafile) => Object.keys(metafile.inputs))) {
    const at = input.lastIndexOf('node_modules/') + 'node_modules/'.length;
    if (at < 'node_modules/'.length) continue;
    const [scope = '', bare = ''] = input.slice(at).split('/');
    const name = scope.startsWith('@') ? `${scope}/${bare}` : scope;
    const folder = join(ROOT, input.slice(0, at), name);
    folders.set(folder, name);
  }
  const sections = [];
  const unlicensed = [];
  for (const [folder, name] of folders) {
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    const files = (await readdir(folder))
      .filter((f) => /^(licen[cs]e|copying|notice)([.-]|$)/i.test(f))
      .sort();
    if (files.length === 0) unlicensed.push(`${name}@${manifest.version}`);
    const texts = await Promise.all(files.map(async (f) => (await readFile(join(folder, f), 'utf8')).trim()));
    const licence =
      manifest.license ?? manifest.licenses?.map((/** @type {{ type: string }} */ l) => l.type).join(' OR ');
    sections.push(
      `${name}@${manifest.version} (${licence ?? 'no licence named'})\n\n${texts.join('\n\n')}\n`,
    );
  }
  // Sorted by their headers, so that the file does not depend on the order esbuild met the inputs in.
  sections.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    text: `Packages bundled into this folder's JavaScript, and their licences.\n\n${sections.join('\n---\n\n')}`,
    unlicensed,
  };
}
