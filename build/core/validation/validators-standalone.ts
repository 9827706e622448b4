import { createRequire } from 'node:module';
import { createAjv } from './_ajv.ts';
import { BUILT_IN_SCHEMAS, SCHEMA_FILES, type ValidatorName } from './validators.ts';

const require = createRequire(import.meta.url);

/**
 * The ES module scripts/build-dist.mjs puts in place of precompiled-validators.ts: ajv's standalone code
 * for every built-in schema, compiled by the same createAjv the sources compile with at run time, and
 * `PRECOMPILED`, the validators by name. `ajvModule` is how the module imports _ajv.ts (FORMATS), the
 * very module the validators' formats must come from.
 */
export function standaloneValidators(
  ajvModule: string,
  /** Where the module imports ajv's runtime helpers from: bare specifiers unless told otherwise. */
  resolve: (module: string) => string = (module) => module,
): string {
  const standaloneCode = (require('ajv/dist/standalone/index.js') as { default: StandaloneCode }).default;
  const ajv = createAjv({ builtIn: true, standalone: true });
  const added = new Set<string>();
  const exports: Record<string, string> = {};
  for (const [name, entry] of Object.entries(BUILT_IN_SCHEMAS) as [
    ValidatorName,
    { schema: object; refs?: object[] },
  ][]) {
    for (const schema of [...(entry.refs ?? []), entry.schema]) {
      const id = (schema as { $id?: string }).$id ?? `urn:content-index:${name}`;
      if (!added.has(id)) {
        ajv.addSchema(schema, (schema as { $id?: string }).$id ? undefined : id);
        compileOrExplain(ajv, id, schema);
      }
      added.add(id);
      if (schema === entry.schema) exports[identifier(name)] = id;
    }
  }
  let code = standaloneCode(ajv, exports);
  // ajv's runtime helpers (`require("ajv/dist/runtime/ucs2length")`) as ES imports.
  const imports = new Map<string, string>();
  code = code.replace(/require\("([^"]+)"\)/g, (_, module: string) => {
    let name = imports.get(module);
    if (!name) {
      name = `runtime${imports.size}`;
      imports.set(module, name);
    }
    return name;
  });
  // Each is CommonJS with `exports.default`: Node's ES import gives module.exports as the default,
  // some loaders give exports.default; either way the code reads `.default`.
  const header = [`import { FORMATS } from ${JSON.stringify(ajvModule)};`];
  for (const [module, name] of imports) {
    const file = resolve(module.endsWith('.js') ? module : `${module}.js`);
    header.push(
      `import ${name}Module from ${JSON.stringify(file)};`,
      `const ${name} = { default: typeof ${name}Module === 'function' ? ${name}Module : ${name}Module.default };`,
    );
  }
  const table = Object.keys(BUILT_IN_SCHEMAS).map((name) => `${JSON.stringify(name)}: ${identifier(name)}`);
  return `${header.join('\n')}\n${code}\nexport const PRECOMPILED = { ${table.join(', ')} };\n`;
}

/**
 * A built-in schema ajv refuses to compile (its strict mode: a keyword left on a field whose type no
 * longer takes it, an unknown keyword), named by its file and keyword for whoever edited it.
 */
export class SchemaRefused extends Error {
  constructor(
    /** Under build/schemas/. */
    readonly file: string,
    /** The keyword ajv names, when it names one. */
    readonly keyword: string | undefined,
    /** The place in the schema (`#/properties/counts/properties/posts`), when ajv says it. */
    readonly at: string | undefined,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'SchemaRefused';
  }
}

function compileOrExplain(ajv: { getSchema(id: string): unknown }, id: string, schema: object): void {
  try {
    ajv.getSchema(id);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const keyword = /keyword(?: is)?:? "([^"]+)"/.exec(reason)?.[1];
    const at = /at "[^"#]*(#[^"]*)"/.exec(reason)?.[1];
    const said = reason.replace(/^strict mode: /, '').replace(/ at "[^"]*"/, '');
    throw new SchemaRefused(SCHEMA_FILES.get(schema) ?? id, keyword, at, said);
  }
}

type StandaloneCode = (ajv: unknown, refs: Record<string, string>) => string;

function identifier(name: string): string {
  return name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}
