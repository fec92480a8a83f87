import { z } from 'zod';
import type { AnyMethod, ObjectSchema } from './method';

/**
 * Answers a model can afford (issue 51 item 2): a market list takes `fields`, the names of the item fields to answer,
 * so a scan of 100 markets reads five fields each instead of twenty. `id` is always answered (what every other call
 * takes). Without `fields` the answer is the whole item, as the SPEC states it.
 */

/** The field every selection keeps. */
export const ALWAYS_SELECTED = 'id';

/** The item fields a selection may name: every field of the item's object but the deprecated ones (their names go). */
export function selectableNames(item: ObjectSchema): string[] {
  return Object.entries(item.shape)
    .filter(([, schema]) => (schema as z.ZodType).meta()?.deprecated !== true)
    .map(([name]) => name);
}

/** The `fields` input of a list whose items are `item`: a subset of its field names, unknown names refused. */
export function fieldsInput(item: ObjectSchema) {
  const names = selectableNames(item);
  return z
    .array(z.enum(names as [string, ...string[]]))
    .min(1)
    .max(names.length)
    .optional()
    .describe('Item fields to answer (id always).');
}

/** The item schema of the output list `list` of a method (the array's element), or undefined when it is not a list of objects. */
export function listItemOf(method: AnyMethod, list: string): ObjectSchema | undefined {
  const field = method.output.shape[list] as z.ZodType | undefined;
  if (!(field instanceof z.ZodArray)) return undefined;
  const element = field.element as z.ZodType;
  return element instanceof z.ZodObject ? (element as ObjectSchema) : undefined;
}

/** The answer with each item of the method's selectable list cut to the named fields and id (the answer as is when none are named). */
export function withSelectedFields(method: AnyMethod, result: unknown, fields: unknown): unknown {
  const list = method.selectsFields;
  if (!list || !Array.isArray(fields) || !result || typeof result !== 'object') return result;
  const keep = new Set<string>([ALWAYS_SELECTED, ...(fields as string[])]);
  const answer = result as Record<string, unknown>;
  const items = answer[list];
  if (!Array.isArray(items)) return result;
  const cut = items.map((item) =>
    item && typeof item === 'object' ? Object.fromEntries(Object.entries(item as Record<string, unknown>).filter(([k]) => keep.has(k))) : item,
  );
  return { ...answer, [list]: cut };
}
