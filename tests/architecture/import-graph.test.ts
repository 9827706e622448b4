import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/site.ts';

// The layout's rules, checked on the import graph TypeScript itself reads: each file's module specifiers
// as its parser lists them (static, type-only, re-exports and dynamic `import()` alike), from the program
// of tsconfig.json. TypeScript 7 has no `preProcessFile`; its API (`typescript/unstable/sync`) gives the
// parsed source files, whose `imports` are that same list.

/** A module as the graph names it: a repository path (`build/cli.ts`) or a package specifier (`ajv`). */
type Graph = Map<string, string[]>;

const EDGE = 'build/core/edge/';
/** The package's Function entry points (`content-index/functions/*`): thin adapters over the edge folder. */
const FUNCTION_ENTRIES = 'build/functions/';
/** The data module the build writes for the /mcp Function (not a source; no imports of its own). */
const WORKER_DATA = '.content-index/worker/';
const CODE = /\.(?:[cm]?[jt]s|tsx?)$/;

let graph: Graph;

beforeAll(() => {
  const api = new API({ cwd: PROJECT_ROOT });
  try {
    const config = join(PROJECT_ROOT, 'tsconfig.json');
    const project = api.updateSnapshot({ openProject: config }).getProject(config);
    if (!project) throw new Error('TypeScript did not open tsconfig.json');
    // `content-index` and `content-index/functions/*` resolve as tsconfig.json's paths say (the sources).
    const paths = Object.entries(project.compilerOptions.paths ?? {}).map(([pattern, [target = '']]) => ({
      pattern,
      target,
    }));
    graph = new Map();
    for (const file of project.program.getSourceFileNames()) {
      const path = relative(PROJECT_ROOT, file);
      if (!/^(?:build|functions)\//.test(path)) continue;
      const source = project.program.getSourceFile(file);
      if (!source) throw new Error(`TypeScript has no source for ${path}`);
      graph.set(
        path,
        source.imports.map((node) =>
          resolveSpecifier((node as unknown as { text: string }).text, path, paths),
        ),
      );
    }
  } finally {
    api.close();
  }
}, 60_000);

function resolveSpecifier(specifier: string, from: string, paths: { pattern: string; target: string }[]) {
  if (specifier.startsWith('.'))
    return relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(from), specifier));
  for (const { pattern, target } of paths) {
    const [prefix = '', suffix] = pattern.split('*');
    if (suffix === undefined ? specifier === prefix : specifier.startsWith(prefix)) {
      const rest = suffix === undefined ? '' : specifier.slice(prefix.length);
      return relative(PROJECT_ROOT, resolve(PROJECT_ROOT, target.replace('*', rest)));
    }
  }
  return specifier;
}

const isPackage = (module: string) =>
  !graph.has(module) && !/^(?:build|functions|\.content-index)\//.test(module);
const isNodeBuiltin = (module: string) =>
  module.startsWith('node:') || builtinModules.includes(module.split('/')[0] ?? module);
const isAjv = (module: string) => /^ajv(?:$|[-/])/.test(module);

/** Why a module may not be in a Pages Function's graph, or undefined when it may. */
function notFunctionSafe(module: string): string | undefined {
  if (isPackage(module)) {
    if (isAjv(module)) return 'ajv (a Function validates nothing with ajv: it compiles code at run time)';
    if (isNodeBuiltin(module)) return 'a Node built-in (workerd has no Node APIs here)';
    return undefined;
  }
  if (module.endsWith('.json')) return undefined; // data (schemas, package.json): no imports of its own
  if (module.startsWith(WORKER_DATA)) return undefined;
  if (module.startsWith(EDGE) || module.startsWith(FUNCTION_ENTRIES)) return undefined;
  if (module.startsWith('functions/')) return undefined;
  return `a file outside ${EDGE}`;
}

/** Every module reachable from `roots`, with the chain that reaches it first (breadth first). */
function reach(roots: string[]): Map<string, string[]> {
  const chains = new Map(roots.map((root) => [root, [root]]));
  const queue = [...roots];
  for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
    for (const next of graph.get(module) ?? []) {
      if (chains.has(next)) continue;
      chains.set(next, [...(chains.get(module) ?? []), next]);
      if (graph.has(next)) queue.push(next);
    }
  }
  return chains;
}

/** Strongly connected components with more than one module (or a module importing itself): the circles. */
function cycles(within: (module: string) => boolean): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (module: string) => {
    index.set(module, next);
    low.set(module, next++);
    stack.push(module);
    onStack.add(module);
    const targets = (graph.get(module) ?? []).filter((m) => graph.has(m) && within(m));
    for (const target of targets) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(module) === index.get(module)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== module);
      if (component.length > 1 || targets.includes(module)) found.push(component.sort());
    }
  };
  for (const module of [...graph.keys()].filter(within).sort()) if (!index.has(module)) visit(module);
  return found;
}

describe('the import graph', () => {
  it('is read whole: every Function, the edge folder, the CLI and the programmatic API are in it', () => {
    const files = [...graph.keys()];
    expect(files).toEqual(
      expect.arrayContaining(['build/cli.ts', 'build/index.ts', 'build/functions/mcp.ts']),
    );
    expect(files.filter((f) => f.startsWith('functions/')).length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => f.startsWith(EDGE)).length).toBeGreaterThan(10);
    // The Function's package import resolves to the sources, so the walk below goes through it.
    expect(graph.get('functions/api/[[path]].ts')).toContain('build/functions/api.ts');
  });

  it('from functions/ (and the package’s content-index/functions/*) reaches only the edge folder: no ajv, no Node built-in', () => {
    const files = [...graph.keys()];
    // Every edge file is held to the rule, reached or not; a chain from functions/ is the one reported.
    const chains = new Map([
      ...reach(files.filter((f) => f.startsWith(FUNCTION_ENTRIES) || f.startsWith(EDGE))),
      ...reach(files.filter((f) => f.startsWith('functions/'))),
    ]);
    const offences = [...chains]
      .map(([module, chain]) => ({ why: notFunctionSafe(module), chain }))
      .filter(({ why }) => why !== undefined)
      .map(({ why, chain }) => `${chain.join(' → ')}: ${why}`);
    expect(offences).toEqual([]);
  });

  it('has no import circle in build/ and functions/ (type-only imports count)', () => {
    expect(cycles((m) => CODE.test(m) && /^(?:build|functions)\//.test(m))).toEqual([]);
  });

  it('runs down the layers only: cli → commands → runtime → index → stages → core → core/edge', () => {
    const layer = (module: string): number | undefined => {
      if (module.startsWith(EDGE)) return 0;
      if (module.startsWith('build/core/')) return 1;
      if (module.startsWith('build/stages/')) return 2;
      if (module === 'build/index.ts' || module === 'build/report.ts') return 3;
      if (module.startsWith('build/runtime/')) return 4;
      if (module.startsWith('build/commands/') || module === 'build/cli-schema.ts') return 5;
      if (module === 'build/cli.ts') return 6;
      return undefined;
    };
    const upward: string[] = [];
    for (const [module, imports] of graph) {
      const from = layer(module);
      if (from === undefined) continue;
      for (const target of imports) {
        const to = layer(target);
        if (to !== undefined && to > from) upward.push(`${module} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
