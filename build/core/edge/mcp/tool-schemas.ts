import contentStatsInput from '../../../schemas/mcp/content-stats.input.schema.json' with { type: 'json' };
import contentStatsOutput from '../../../schemas/mcp/content-stats.output.schema.json' with { type: 'json' };
import sharedDefs from '../../../schemas/mcp/defs.schema.json' with { type: 'json' };
import listContentInput from '../../../schemas/mcp/list-content.input.schema.json' with { type: 'json' };
import listContentOutput from '../../../schemas/mcp/list-content.output.schema.json' with { type: 'json' };
import searchContentInput from '../../../schemas/mcp/search-content.input.schema.json' with { type: 'json' };
import searchContentOutput from '../../../schemas/mcp/search-content.output.schema.json' with {
  type: 'json',
};
import indexSchema from '../../../schemas/v1/content-index.schema.json' with { type: 'json' };

export type JsonSchema = Record<string, unknown>;

// ContentItem comes from the published v1 schema itself, so a tool's items can never disagree with it.
const DEFINITIONS: Record<string, JsonSchema> = {
  ...sharedDefs.$defs,
  ContentItem: indexSchema.$defs.ContentItem,
};

/**
 * A tool schema as published in `tools/list`: self-contained (MCP clients resolve no outside `$ref`),
 * with exactly the shared definitions it refers to, directly or through another definition.
 */
export function composeSchema(schema: JsonSchema): JsonSchema {
  const own = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const needed = new Map<string, JsonSchema>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
        const name = value.slice('#/$defs/'.length);
        const definition = own[name] ?? DEFINITIONS[name];
        if (!definition) throw new Error(`tool schema refers to an unknown definition: ${value}`);
        if (!(name in own) && !needed.has(name)) {
          needed.set(name, definition);
          visit(definition);
        }
      } else visit(value);
    }
  };
  visit(schema);
  if (needed.size === 0) return schema;
  // Code-point order, not localeCompare's: the same on every host, and TOOL_SCHEMAS is made when the
  // module loads, where a first collation would load ICU's data (10–20 ms) into every start of the CLI
  // and of the /mcp Function.
  const defs = Object.fromEntries([...needed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...schema, $defs: { ...own, ...defs } };
}

export const TOOL_SCHEMAS = {
  list_content: { input: composeSchema(listContentInput), output: composeSchema(listContentOutput) },
  search_content: { input: composeSchema(searchContentInput), output: composeSchema(searchContentOutput) },
  content_stats: { input: composeSchema(contentStatsInput), output: composeSchema(contentStatsOutput) },
} as const satisfies Record<string, { input: JsonSchema; output: JsonSchema }>;
