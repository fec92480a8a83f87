import type { JsonSchema } from './json-schema';

/**
 * Smaller spellings of a JSON Schema (draft 2020-12) that accept exactly the same documents, for tools/list, which
 * every MCP session loads into a model's context (issue 34 item 3). The full schemas, descriptions and all, stay
 * in /openapi.json, schemas/ and the docs.
 */

// Keywords whose value is a map of names to schemas, an array of schemas, or one schema. Every other keyword holds
// a value (`enum`, `const`, `required`, `default`…), never walked: a property called "description" is data there.
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas']);
const SCHEMA_ARRAYS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);

/** Calls `visit` on every subschema below `node` (not `node` itself), with a name for it taken from where it sits. */
function eachSubschema(node: JsonSchema, context: string, visit: (schema: unknown, context: string) => void): void {
  for (const [k, v] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') {
      for (const [name, sub] of Object.entries(v as JsonSchema)) visit(sub, name);
    } else if (SCHEMA_ARRAYS.has(k) && Array.isArray(v)) {
      for (const sub of v) visit(sub, context);
    } else if (SCHEMA_VALUES.has(k)) {
      visit(v, k === 'items' ? singular(context) : `${context}Value`);
    }
  }
}

/** The schema rebuilt with `replace` applied to each of its subschemas (the schema itself is kept). */
function mapSubschemas(node: JsonSchema, replace: (schema: unknown) => unknown): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(k) && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as JsonSchema).map(([name, sub]) => [name, replace(sub)]));
    } else if (SCHEMA_ARRAYS.has(k) && Array.isArray(v)) out[k] = v.map(replace);
    else if (SCHEMA_VALUES.has(k)) out[k] = replace(v);
    else out[k] = v;
  }
  return out;
}

const isSchemaObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema without `description` and `title` annotations anywhere (they never change what validates). For MCP
 * output schemas: a client validates structuredContent against them, while the model reads the tool's description.
 */
export function withoutDescriptions(schema: JsonSchema): JsonSchema {
  const strip = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    const { description: _description, title: _title, ...rest } = node;
    return mapSubschemas(rest, strip);
  };
  return strip(schema) as JsonSchema;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * An output schema open to additions: no `additionalProperties: false`, and no safe-integer bounds (zod's spelling of
 * an integer; JSON cannot carry a larger one exactly anyway). Unlike the spellings above this accepts more documents,
 * on purpose: a client that validates results against a closed schema would fail on a field a later version adds,
 * which turns every additive change into a breaking one. Inputs stay closed (an unknown argument is refused).
 */
export function openToAdditions(schema: JsonSchema): JsonSchema {
  const open = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    const rest: JsonSchema = { ...node };
    if (rest.additionalProperties === false) delete rest.additionalProperties;
    if (rest.maximum === MAX_SAFE) delete rest.maximum;
    if (rest.minimum === -MAX_SAFE) delete rest.minimum;
    return mapSubschemas(rest, open);
  };
  return open(schema) as JsonSchema;
}

// Keywords that bound a value rather than say what it is: a number's range, a string's length, pattern and format, an
// array's or object's size.
const VALUE_BOUNDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
];

/**
 * An output schema reduced to its outline, for a reader planning what to do with a result: each object's fields, their
 * types, enums and nullability. Like openToAdditions it accepts more documents, on purpose (bounding what the server
 * sends is the server's business, and a client that validates results gains nothing from it):
 * - no value bounds (VALUE_BOUNDS: ranges, lengths, patterns, formats; a time is an ISO 8601 UTC string, said once in
 *   the MCP instructions);
 * - no `required` where an object requires every property it lists, which is nearly every object of a result (the
 *   instructions say once that a listed field is always sent, null where its schema allows); an object with an
 *   optional property keeps its list, so that exception still reads from the schema.
 * Input schemas keep all of it (an argument out of bounds is refused), and so do /openapi.json and schemas/.
 */
export function outlineOf(schema: JsonSchema): JsonSchema {
  const outline = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    const rest: JsonSchema = { ...node };
    for (const k of VALUE_BOUNDS) if (typeof rest[k] !== 'object') delete rest[k];
    if (Array.isArray(rest.required) && isSchemaObject(rest.properties)) {
      const required = new Set(rest.required as string[]);
      const listed = Object.keys(rest.properties);
      if (listed.length === required.size && listed.every((k) => required.has(k))) delete rest.required;
    }
    // A schema that was only bounds accepts any value now: `true` says so portably (an empty `{}` is not).
    if (Object.keys(rest).length === 0) return true;
    return mapSubschemas(rest, outline);
  };
  return outline(schema) as JsonSchema;
}

/**
 * The schema without keywords that restate what another keyword of the same schema says, for tools/list:
 * - `type` beside an `enum` or `const` whose values are all strings of that type (the values say it; same documents);
 * - keywords that state a default: `additionalProperties: true`, `properties: {}`, and `propertyNames: {type: string}`
 *   (every JSON key is a string);
 * - the `pattern` zod writes beside `format: "date-time"` (a 400-byte regular expression in every date). The format
 *   names the rule and both SDK clients check it (Ajv with ajv-formats); it also admits an offset other than `Z`,
 *   which the service refuses on input (VALIDATION_ERROR) and never writes in a result;
 * and it says a nullable enum once: `{anyOf: [{enum: [a, b]}, {type: null}]}` (or a `const` for the enum) is
 * `{enum: [a, b, null]}`, the same values, without a `type` array (which the MCP Inspector's --strict flags as less
 * portable).
 */
export function withoutRestatements(schema: JsonSchema): JsonSchema {
  const lean = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    return nullableEnumOf(mapSubschemas(restated(node), lean));
  };
  return lean(schema) as JsonSchema;
}

/** withoutRestatements' rules on one schema, its subschemas aside. */
function restated(node: JsonSchema): JsonSchema {
  const rest: JsonSchema = { ...node };
  const values = Array.isArray(rest.enum) ? (rest.enum as unknown[]) : 'const' in rest ? [rest.const] : undefined;
  if (rest.type === 'string' && values?.length && values.every((v) => typeof v === 'string')) delete rest.type;
  if (rest.format === 'date-time' && typeof rest.pattern === 'string') delete rest.pattern;
  if (rest.additionalProperties === true) delete rest.additionalProperties;
  if (isSchemaObject(rest.properties) && Object.keys(rest.properties).length === 0) delete rest.properties;
  if (isSchemaObject(rest.propertyNames) && Object.keys(rest.propertyNames).join() === 'type' && rest.propertyNames.type === 'string') {
    delete rest.propertyNames;
  }
  return rest;
}

/** `{anyOf: [{enum: V} or {const: v}, {type: null}]}` as `{enum: [...V, null]}`; any other schema as it is. */
function nullableEnumOf(node: JsonSchema): JsonSchema {
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || 'enum' in rest || 'const' in rest || 'type' in rest) return node;
  const nullAt = anyOf.findIndex((b) => isSchemaObject(b) && Object.keys(b).join() === 'type' && b.type === 'null');
  const other = anyOf[1 - nullAt] as unknown;
  if (nullAt < 0 || !isSchemaObject(other)) return node;
  const keys = Object.keys(other).join();
  const values = keys === 'enum' && Array.isArray(other.enum) ? (other.enum as unknown[]) : keys === 'const' ? [other.const] : undefined;
  if (!values) return node;
  return { ...rest, enum: values.includes(null) ? values : [...values, null] };
}

/**
 * An open output schema (openToAdditions) without the properties marked `deprecated: true`: an open schema accepts
 * them as additions, so the same results pass, and a model reading the schema meets only the current names (a
 * renamed field is sent under both names for a version; the docs keep the old one, marked).
 */
export function withoutDeprecatedProperties(schema: JsonSchema): JsonSchema {
  const lean = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    let rest: JsonSchema = node;
    if (isSchemaObject(node.properties)) {
      const deprecated = Object.keys(node.properties).filter((k) => (node.properties as Record<string, JsonSchema>)[k]?.deprecated === true);
      if (deprecated.length > 0) {
        if (node.additionalProperties === false) throw new Error('withoutDeprecatedProperties needs an open schema');
        rest = { ...node, properties: Object.fromEntries(Object.entries(node.properties).filter(([k]) => !deprecated.includes(k))) };
        if (Array.isArray(node.required)) rest.required = (node.required as string[]).filter((k) => !deprecated.includes(k));
      }
    }
    return mapSubschemas(rest, lean);
  };
  return lean(schema) as JsonSchema;
}

/**
 * The schema with each property marked `deprecated: true` kept (it is still accepted) but without its description: a
 * model should send the current name, and the docs keep the note that says which.
 */
export function withoutDeprecatedNotes(schema: JsonSchema): JsonSchema {
  const lean = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    if (node.deprecated !== true) return mapSubschemas(node, lean);
    const { description: _description, ...rest } = node;
    return mapSubschemas(rest, lean);
  };
  return lean(schema) as JsonSchema;
}

/**
 * An input schema as the documents a model reads spell it (tools/list, the agent card's skill input schemas): the same
 * arguments accepted, no restated keywords, no notes on deprecated aliases.
 */
export const leanInputSchema = (schema: JsonSchema): JsonSchema => withoutRestatements(withoutDeprecatedNotes(schema));

const refTo = (name: string) => ({ $ref: `#/$defs/${name}` });
// Bytes a definition must save at least to be worth a name: no `$ref` for a `{"type":"string"}`.
const MIN_SAVING = 24;

/**
 * The schema with every subschema that appears more than once (where naming it saves bytes) moved to the root's
 * `$defs` and referenced as `{"$ref": "#/$defs/Name"}`. A `$ref` alone in its object is the schema it names
 * (JSON Schema 2020-12 and draft-07 alike), so the same documents are accepted. Largest saving first, until none
 * is left; names come from where a subschema first appears (`DateTime` for a date-time string).
 */
export function withSharedDefs(schema: JsonSchema): JsonSchema {
  let root: JsonSchema = { ...schema, $defs: { ...((schema.$defs as JsonSchema | undefined) ?? {}) } };
  const taken = new Set(Object.keys(root.$defs as JsonSchema));
  // Subtrees a replacement does not touch are kept as they are, so their texts stay remembered between rounds.
  const text = serializer();
  for (;;) {
    const seen = new Map<string, { count: number; context: string; schema: JsonSchema }>();
    const count = (node: unknown, context: string) => {
      if (!isSchemaObject(node)) return;
      const key = text(node);
      if (!('$ref' in node && Object.keys(node).length === 1)) {
        const entry = seen.get(key);
        if (entry) entry.count += 1;
        else seen.set(key, { count: 1, context, schema: node });
      }
      eachSubschema(node, context, count);
    };
    eachSubschema(root, 'value', count);
    let best: { key: string; saving: number; context: string; schema: JsonSchema } | undefined;
    for (const [key, { count: n, context, schema: sub }] of seen) {
      if (n < 2) continue;
      const name = nameFor(sub, context, taken, false);
      const saving = n * (key.length - JSON.stringify(refTo(name)).length) - (key.length + name.length + 4);
      if (saving >= MIN_SAVING && (!best || saving > best.saving)) best = { key, saving, context, schema: sub };
    }
    if (!best) break;
    const name = nameFor(best.schema, best.context, taken, true);
    const target = best.key;
    const replace = (node: unknown): unknown => {
      if (!isSchemaObject(node)) return node;
      const own = text(node);
      if (own === target) return refTo(name);
      return own.includes(target) ? mapSubschemas(node, replace) : node;
    };
    root = mapSubschemas(root, replace);
    (root.$defs as JsonSchema)[name] = best.schema;
  }
  if (Object.keys(root.$defs as JsonSchema).length === 0) delete root.$defs;
  else {
    // `$defs` last, so a reader meets the schema's shape before its parts.
    const { $defs, ...rest } = root;
    root = { ...rest, $defs };
  }
  return root;
}

/**
 * The schema with each repeat of an object or array subschema, after its first (depth first, in key order), written as
 * its bare type: `{"type":"object"}`. For MCP tool lists, which carry no `$ref` (MCP SDK 1.22.0 resolves none and lists no
 * tool at all, and function-calling APIs refuse them), where inlining each repeat would cost its bytes every time (a
 * benchmark record's 40 estimates: 10 KB instead of 3). It accepts more than the schema (a repeat's fields go unchecked),
 * never less, as an MCP output schema may (see mcpResultSchema); the first occurrence shows a model the shape.
 */
export function withRepeatsOutlined(schema: JsonSchema): JsonSchema {
  const text = serializer();
  const seen = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (!isSchemaObject(node)) return node;
    const { type } = node;
    if (type === 'object' || type === 'array') {
      const key = text(node);
      if (key.length >= MIN_REPEAT && seen.has(key)) return { type };
      seen.add(key);
    }
    return mapSubschemas(node, walk);
  };
  return walk(schema) as JsonSchema;
}

// A repeat shorter than this is written out again: its bare type would save too little to lose its shape for.
const MIN_REPEAT = 48;

/** JSON.stringify, remembering each object's text: a walk asks for every subtree's, which would be quadratic. */
function serializer(): (value: unknown) => string {
  const memo = new WeakMap<object, string>();
  const text = (value: unknown): string => {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    let s = memo.get(value);
    if (s === undefined) {
      s = Array.isArray(value)
        ? `[${value.map(text).join(',')}]`
        : `{${Object.entries(value)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`)
            .join(',')}}`;
      memo.set(value, s);
    }
    return s;
  };
  return text;
}

/** A PascalCase name for a shared subschema: its format or type for a scalar, else the property it first appears as. */
function nameFor(schema: JsonSchema, context: string, taken: Set<string>, claim: boolean): string {
  let base: string;
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]).filter(isSchemaObject) : [];
  const nonNull = branches.filter((b) => b.type !== 'null');
  const nullable = branches.length === 2 && nonNull.length === 1;
  const scalar = nullable ? nonNull[0]! : schema;
  if (!('properties' in scalar) && !('items' in scalar) && !('anyOf' in scalar) && typeof scalar.type === 'string') {
    base = (nullable ? 'Nullable' : '') + pascal(typeof scalar.format === 'string' ? scalar.format : scalar.type);
  } else {
    base = pascal(context);
  }
  let name = base;
  for (let i = 2; taken.has(name); i += 1) name = `${base}${i}`;
  if (claim) taken.add(name);
  return name;
}

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('') || 'Schema';

/** `orders` → `order`, `categories` → `category`: the name of an array's item. */
function singular(s: string): string {
  if (s.endsWith('ies')) return `${s.slice(0, -3)}y`;
  if (s.endsWith('s') && !s.endsWith('ss')) return s.slice(0, -1);
  return `${s}Item`;
}
