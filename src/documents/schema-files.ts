import type { AnyMethod } from '../registry/method';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from './json-schema';

/** The committed `schemas/` directory: one input and one output JSON Schema per method. */

export const SCHEMA_FILE_PATTERN = /^[\w.-]+\.(input|output)\.json$/;

// Keys under these keywords are names chosen by the author, in an order that reads well: keep it.
const NAMED_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas']);

/** Keywords sorted, property names in declaration order: the same schema always prints the same bytes. */
function canonical(node: unknown, keepOrder = false): unknown {
  if (Array.isArray(node)) return node.map((n) => canonical(n));
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node as Record<string, unknown>);
  if (!keepOrder) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, keepOrder ? canonical(v) : canonical(v, NAMED_MAPS.has(k))]));
}

function file(m: AnyMethod, io: 'input' | 'output', schema: JsonSchema): string {
  const doc = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${m.name} ${io}`,
    ...(io === 'input' ? { description: `Input of ${m.name}: ${m.summary}.` } : { description: `Output of ${m.name}: ${m.summary}.` }),
    ...schema,
  };
  return `${JSON.stringify(canonical(doc), null, 2)}\n`;
}

/** File name → content, for every method. */
export function schemaFiles(methods: readonly AnyMethod[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const m of methods) {
    files.set(`${m.name}.input.json`, file(m, 'input', inputSchemaOf(m)));
    files.set(`${m.name}.output.json`, file(m, 'output', outputSchemaOf(m)));
  }
  return files;
}
