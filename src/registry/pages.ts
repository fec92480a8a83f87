import { z } from 'zod';
import type { AnyMethod } from './method';

/**
 * Answers a model can afford (issue 51 item 2): every list method states its maximum page, and the largest answer at that
 * page is measured (test/registry/page-bounds.test.ts) against the bound a tool result must stay within.
 */

/**
 * The most bytes one answer of a list method may take at its maximum page: 25,000 tokens at 4 bytes a token (Claude Code
 * cuts a tool result at 25k tokens).
 */
export const PAGE_BYTES_BOUND = 100_000;

/**
 * SPEC list limits whose answer at the SPEC's maximum page can exceed the bound over data the SPEC allows; the SPEC's
 * limits are a contract and stay (a model names `fields` instead). list_community_markets: limit 1..100, and a question of
 * 200 characters, a description of 1000 and ten outcome labels of 50 (each also in outcomeTokens) make about 4.3 kB a market.
 */
export const OVER_BOUND_BY_SPEC: ReadonlyMap<string, string> = new Map([
  ['list_community_markets', 'the SPEC limit; at full-length questions, descriptions and ten outcomes about 430 kB: name `fields`'],
]);

/** A list method: it answers a page of some list and a `nextCursor` for the next (a call that only continues work is not one). */
export function isListMethod(method: AnyMethod): boolean {
  const out = method.output.shape as Record<string, z.ZodType>;
  return 'nextCursor' in out && Object.values(out).some((field) => field instanceof z.ZodArray);
}

/** A list method's maximum page: the `maximum` of its `limit` input (the one place it is stated), or undefined when it has none. */
export function maxPageOf(method: AnyMethod): number | undefined {
  let limit = (method.input.shape as Record<string, z.ZodType>).limit;
  while (limit instanceof z.ZodDefault || limit instanceof z.ZodOptional) limit = limit.unwrap() as z.ZodType;
  if (!(limit instanceof z.ZodNumber)) return undefined;
  const max = limit.maxValue;
  return max !== null && Number.isFinite(max) ? max : undefined;
}

/** A list method's default page: what `limit` is when omitted. */
export function defaultPageOf(method: AnyMethod): number | undefined {
  const limit = (method.input.shape as Record<string, z.ZodType>).limit;
  const parsed = limit?.safeParse(undefined);
  return parsed?.success && typeof parsed.data === 'number' ? parsed.data : undefined;
}
