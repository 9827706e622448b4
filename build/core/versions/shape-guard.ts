/**
 * The API contract (docs/api.md, Versions): within a version the shape is stable, existing fields are
 * never removed and never change type; only new fields are added. The guard flattens a version's frozen schema and its live
 * schema into field paths (`content[].url`, `versions.deprecation.sunset_at`) and compares them.
 */
import { compareText } from '../text-order.ts';

type Schema = Record<string, unknown>;

export interface FieldShape {
  /** JSON types the field may have, sorted (`null`, `object`…). */
  types: string[];
  /** Formats (`uri`, `date-time`), sorted; empty when none. */
  formats: string[];
  /** Required by its parent object (array items count as required). */
  required: boolean;
}

export interface ShapeChange {
  field: string;
  message: string;
}

export function compareSchemas(snapshot: Schema, live: Schema): ShapeChange[] {
  const before = fieldShapes(snapshot);
  const after = fieldShapes(live);
  const changes: ShapeChange[] = [];
  for (const [field, old] of before) {
    const now = after.get(field);
    if (!now) {
      // Report the outermost removed field only; its children go with it.
      const parent = parentOf(field);
      if (parent === '' || after.has(parent)) changes.push({ field, message: 'was removed' });
      continue;
    }
    if (old.types.join() !== now.types.join())
      changes.push({ field, message: `changed type from ${list(old.types)} to ${list(now.types)}` });
    if (old.formats.join() !== now.formats.join())
      changes.push({ field, message: `changed format from ${list(old.formats)} to ${list(now.formats)}` });
    if (!old.required && now.required) changes.push({ field, message: 'became required' });
    if (old.required && !now.required)
      changes.push({ field, message: 'is no longer required, so clients could stop receiving it' });
  }
  for (const [field, now] of after) {
    if (before.has(field) || !now.required || field.endsWith('[]')) continue;
    const parent = parentOf(field);
    // A required field inside a new optional object is fine: the object itself is the addition.
    if (parent === '' || before.has(parent))
      changes.push({
        field,
        message: 'was added as required; a field added within a version must be optional',
      });
  }
  return changes.sort((a, b) => compareText(a.field, b.field));
}

export function fieldShapes(schema: Schema): Map<string, FieldShape> {
  const shapes = new Map<string, FieldShape>();
  const add = (path: string, shape: FieldShape) => {
    const known = shapes.get(path);
    if (!known) return shapes.set(path, shape);
    // The same field reached through several branches (oneOf…): the union of what it may be.
    known.types = union(known.types, shape.types);
    known.formats = union(known.formats, shape.formats);
    known.required &&= shape.required;
    return shapes;
  };
  const visit = (node: unknown, path: string, required: boolean, refs: readonly string[]) => {
    const found = collect(schema, node, refs);
    if (path !== '')
      add(path, { types: [...found.types].sort(), formats: [...found.formats].sort(), required });
    for (const object of found.objects) {
      const requiredKeys = Array.isArray(object.node.required) ? (object.node.required as string[]) : [];
      for (const [key, sub] of Object.entries(object.node.properties as Schema)) {
        visit(sub, path === '' ? key : `${path}.${key}`, requiredKeys.includes(key), object.refs);
      }
    }
    for (const items of found.items) visit(items.node, `${path}[]`, true, items.refs);
  };
  visit(schema, '', true, []);
  return shapes;
}

interface Found {
  types: Set<string>;
  formats: Set<string>;
  objects: { node: Schema; refs: readonly string[] }[];
  items: { node: unknown; refs: readonly string[] }[];
}

/** What a subschema says about one value, through `$ref`, `oneOf`, `anyOf` and `allOf`. */
function collect(root: Schema, node: unknown, refs: readonly string[]): Found {
  const found: Found = { types: new Set(), formats: new Set(), objects: [], items: [] };
  if (typeof node !== 'object' || node === null) return found;
  let current = node as Schema;
  let chain = refs;
  if (typeof current.$ref === 'string') {
    // A recursive schema stops at the second visit of the same definition.
    if (refs.includes(current.$ref)) return found;
    chain = [...refs, current.$ref];
    const target = resolvePointer(root, current.$ref);
    const merged = collect(root, target, chain);
    merge(found, merged);
    const { $ref: _ref, ...rest } = current;
    current = rest;
  }
  const type = current.type;
  if (typeof type === 'string') found.types.add(type);
  if (Array.isArray(type)) for (const t of type) found.types.add(String(t));
  if (type === undefined && 'const' in current) found.types.add(jsonType(current.const));
  if (type === undefined && Array.isArray(current.enum))
    for (const v of current.enum) found.types.add(jsonType(v));
  if (typeof current.format === 'string') found.formats.add(current.format);
  if (typeof current.properties === 'object' && current.properties !== null)
    found.objects.push({ node: current, refs: chain });
  if (current.items !== undefined) found.items.push({ node: current.items, refs: chain });
  for (const keyword of ['oneOf', 'anyOf', 'allOf']) {
    const branches = current[keyword];
    if (Array.isArray(branches)) for (const branch of branches) merge(found, collect(root, branch, chain));
  }
  return found;
}

function merge(into: Found, from: Found): void {
  for (const t of from.types) into.types.add(t);
  for (const f of from.formats) into.formats.add(f);
  into.objects.push(...from.objects);
  into.items.push(...from.items);
}

function resolvePointer(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Schema)[key] : undefined;
  }
  return node;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function parentOf(field: string): string {
  if (field.endsWith('[]')) return field.slice(0, -2);
  const dot = field.lastIndexOf('.');
  return dot === -1 ? '' : field.slice(0, dot);
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

function list(values: readonly string[]): string {
  return values.length === 0 ? '(none)' : values.join(' or ');
}
