import { z } from 'zod';
import type { AnyMethod } from '../registry/method';

export type JsonSchema = Record<string, unknown>;

const caches = { input: new WeakMap<object, JsonSchema>(), output: new WeakMap<object, JsonSchema>() };

/** JSON Schema (draft 2020-12) of a zod schema, computed once per schema object and direction. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const cache = caches[io];
  let json = cache.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    delete json.$schema;
    cache.set(schema, json);
  }
  return json;
}

export const inputSchemaOf = (m: AnyMethod): JsonSchema => toJsonSchema(m.input, 'input');
export const outputSchemaOf = (m: AnyMethod): JsonSchema => toJsonSchema(m.output, 'output');
