import { z } from 'zod';
import type { AnyMethod } from '../registry/method';
import { ALWAYS_SELECTED } from '../registry/fields';

export type JsonSchema = Record<string, unknown>;

const caches = { input: new WeakMap<object, JsonSchema>(), output: new WeakMap<object, JsonSchema>() };

/** JSON Schema (draft 2020-12) of a zod schema, computed once per schema object and direction. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const cache = caches[io];
  let json = cache.get(schema);
  if (!json) {
    json = deprecatedOptional(portable(z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema)) as JsonSchema;
    delete json.$schema;
    cache.set(schema, json);
  }
  return json;
}

/**
 * The schema with every property marked `deprecated: true` left out of its object's `required`: an answer under
 * `Prefer: strict-vocabulary` carries none of them (src/registry/deprecations.ts), so none is promised.
 */
export function deprecatedOptional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(deprecatedOptional);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node as JsonSchema)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'required') out[k] = v;
    else if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v).map(([n, sub]) => [n, deprecatedOptional(sub)]));
    else out[k] = deprecatedOptional(v);
  }
  const props = out.properties as Record<string, JsonSchema> | undefined;
  if (props && Array.isArray(out.required)) {
    const required = (out.required as string[]).filter((n) => props[n]?.deprecated !== true);
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

export const inputSchemaOf = (m: AnyMethod): JsonSchema => toJsonSchema(m.input, 'input');
export const outputSchemaOf = (m: AnyMethod): JsonSchema => (m.selectsFields ? selectableOutput(m, m.selectsFields) : toJsonSchema(m.output, 'output'));

const selectableOutputs = new WeakMap<AnyMethod, JsonSchema>();

/**
 * A method whose input takes `fields` (src/registry/fields.ts) may answer its list's items with only the named fields
 * and `id`: its schema requires only `id` of them (without `fields`, every item is whole, as the SPEC states it).
 */
function selectableOutput(m: AnyMethod, list: string): JsonSchema {
  let schema = selectableOutputs.get(m);
  if (!schema) {
    const full = toJsonSchema(m.output, 'output');
    const props = full.properties as Record<string, JsonSchema>;
    const items = props[list]!.items as JsonSchema;
    const required = ((items.required as string[] | undefined) ?? []).filter((n) => n === ALWAYS_SELECTED);
    const { required: _all, ...rest } = items;
    schema = { ...full, properties: { ...props, [list]: { ...props[list], items: { ...rest, required } } } };
    selectableOutputs.set(m, schema);
  }
  return schema;
}

// Keywords that describe a schema rather than constrain its value: they stay beside an `anyOf`, not in a branch.
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment', 'id', '$id']);
// Keywords whose value is a map of names to schemas (each value is a schema, the map itself is not).
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas']);

/**
 * The spelling of zod's output that every client reads the same way (the MCP Inspector's schema
 * portability check, single-`type` dialects such as Gemini's function declarations):
 * - `type: [X, "null"]` becomes `anyOf: [{type: X, …its constraints}, {type: "null"}]`, annotations kept outside;
 * - an empty schema `{}` (zod's spelling of "any value", e.g. `additionalProperties` of a loose object) becomes `true`,
 *   the explicit boolean schema with the same meaning.
 * The meaning of every schema is unchanged.
 */
export function portable(node: unknown, schemaPosition = true): unknown {
  if (Array.isArray(node)) return node.map((n) => portable(n, schemaPosition));
  if (!node || typeof node !== 'object') return node;
  const obj = node as JsonSchema;
  if (!schemaPosition) return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, portable(v)]));
  if (Object.keys(obj).length === 0) return true;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(obj)) {
    // `enum`, `const`, `default`, `examples` and `required` hold values, not schemas: left as they are.
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'required') out[k] = v;
    else if (SCHEMA_MAPS.has(k)) out[k] = portable(v, false);
    else out[k] = portable(v);
  }
  const type = out.type;
  if (!Array.isArray(type) || type.length < 2) return out;
  const nonNull = type.filter((t) => t !== 'null');
  const annotations: JsonSchema = {};
  const constraints: JsonSchema = {};
  for (const [k, v] of Object.entries(out)) {
    if (k === 'type') continue;
    (ANNOTATIONS.has(k) ? annotations : constraints)[k] = v;
  }
  const branches: JsonSchema[] = nonNull.map((t) => ({ type: t, ...constraints }));
  if (nonNull.length !== type.length) branches.push({ type: 'null' });
  return { anyOf: branches, ...annotations };
}

/** The single JSON type a property's schema declares (looking through `anyOf` with null), for query-string coercion. */
export function declaredType(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  if (typeof schema.type === 'string') return schema.type;
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [];
  return branches.map((b) => b.type).find((t): t is string => typeof t === 'string' && t !== 'null');
}
