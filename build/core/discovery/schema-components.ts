/**
 * Turns the repo's JSON Schema files into OpenAPI 3.1 component schemas, so the OpenAPI description
 * publishes exactly what the build validates with. OpenAPI 3.1 schemas are JSON Schema 2020-12, so the
 * only changes are structural: the root and each `$defs` entry become components, `#/$defs/X` references
 * become `#/components/schemas/X`, and the file-level `$schema`/`$id` and the build's own `x-` error
 * annotations are dropped.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose value maps names (not keywords) to subschemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

export interface ComponentNaming {
  /** Component name for the schema's root. */
  root: string;
  /** Appended to every name, to keep two versions' schemas apart (`ContentIndexV1`). Default: none. */
  suffix?: string;
}

/** Returns the components (root first, then `$defs` in file order), keyed by their names. */
export function schemaComponents(schema: object, naming: ComponentNaming): Record<string, object> {
  const { $defs, ...root } = schema as JsonObject & { $defs?: Record<string, JsonObject> };
  const suffix = naming.suffix ?? '';
  const components: Record<string, object> = {};
  components[naming.root + suffix] = rewrite(root, suffix, true) as object;
  for (const [name, def] of Object.entries($defs ?? {}))
    components[name + suffix] = rewrite(def, suffix, true) as object;
  return components;
}

export function componentRef(name: string): string {
  return `#/components/schemas/${name}`;
}

function rewrite(node: Json, suffix: string, isSchema: boolean): Json {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, suffix, isSchema));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (!isSchema) {
      // A name map: every value is a schema.
      out[key] = rewrite(value, suffix, true);
      continue;
    }
    if (key === '$schema' || key === '$id' || key.startsWith('x-')) continue;
    if (key === '$ref') {
      out[key] = rewriteRef(value);
      continue;
    }
    // `enum`, `const`, `examples` and `default` hold data, not schemas.
    if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default') {
      out[key] = value;
      continue;
    }
    out[key] = rewrite(value, suffix, !NAME_MAPS.has(key));
  }
  return out;

  function rewriteRef(ref: Json): string {
    const match = typeof ref === 'string' ? /^#\/\$defs\/([^/]+)$/.exec(ref) : null;
    if (!match?.[1])
      throw new Error(`cannot publish $ref ${JSON.stringify(ref)}: only #/$defs/<name> is supported`);
    return componentRef(match[1] + suffix);
  }
}
