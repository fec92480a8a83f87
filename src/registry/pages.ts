import { z } from 'zod';
import type { AnyMethod } from './method';
import { ATTEMPTS_LISTED } from '../domain/webhooks/webhook-deliveries';

/**
 * Answers a model can afford (issue 51 item 2): every list method states its maximum page, and the largest answer at that
 * page is measured (test/registry/page-bounds.test.ts) against the bound a tool result must stay within.
 */

/**
 * The most bytes one answer of a list method may take: 25,000 tokens at 4 bytes a token (Claude Code cuts a tool result
 * at 25k tokens). A page that would pass it ends early (withinPageBudget), on every list method and every surface.
 */
export const PAGE_BYTES_BOUND = 100_000;

/**
 * Lists that grow inside one item (or beside a page) with the data, not with `limit`: the budget ends a page between
 * items, never inside one, so each is stated with what bounds it (docs/methods.md's Pages table).
 */
export const NESTED_LISTS: ReadonlyMap<string, string> = new Map([
  [
    'list_community_markets',
    "`outcomes` and `outcomeTokens` of a market: at most 10 each (the SPEC's outcomes); a full-length market is about 4.3 kB, so a page of 100 ends at about 23",
  ],
  ['list_comments', '`rationales` beside the first page of a closed market: at most 100 (one per forecaster, 280 characters each: under 60 kB)'],
  ['list_webhook_deliveries', `\`attempts\` of a delivery: the latest ${ATTEMPTS_LISTED} (n counts every one), each at most about 650 bytes`],
  [
    'get_replay_suite_board',
    '`runs` of an entry and of `you`: one per ended run, about 130 bytes each; an entry of more than about 700 runs alone passes the budget',
  ],
]);

/** An answer's size as every surface sends it: compact JSON (the MCP text block, the REST body, the JSON-RPC result). */
export const answerBytes = (answer: unknown): number => Buffer.byteLength(JSON.stringify(answer) ?? '');

/**
 * A list answer within PAGE_BYTES_BOUND. When the page asked for would pass it, the same call is made again with a
 * smaller `limit` (as many items as fit), so the page ends early and its nextCursor, made by the method as for any
 * page, points at the first item left out: the client pages on and loses nothing (`limit` is a maximum). The answer
 * sent is the second call's whole, never a cut of the first, so its items and cursor always agree. One item that alone
 * passes the bound is still answered (a page holds at least one); docs/methods.md says which nested lists can grow so.
 */
export async function withinPageBudget<I extends object>(method: AnyMethod, input: I, answerOf: (input: I) => Promise<unknown>): Promise<unknown> {
  let result = await answerOf(input);
  const asked = (input as { limit?: unknown }).limit;
  if (typeof asked !== 'number' || !isListMethod(method)) return result;
  let limit = asked;
  let bytes = answerBytes(result);
  while (bytes > PAGE_BYTES_BOUND && limit > 1) {
    limit = itemsThatFit(result, bytes, limit);
    result = await answerOf({ ...input, limit });
    bytes = answerBytes(result);
  }
  return result;
}

/**
 * How many items of an answer over the bound fit within it: its page's items (the answer's largest list; an export's
 * csv or jsonl text, its lines) counted from the first while the rest of the answer and they stay within. Always fewer
 * than `limit` and at least 1, so the calls of withinPageBudget end.
 */
export function itemsThatFit(answer: unknown, bytes: number, limit: number): number {
  const items = pageItemSizes(answer);
  let room = PAGE_BYTES_BOUND - (bytes - items.reduce((sum, size) => sum + size, 0));
  let fit = 0;
  for (const size of items) {
    if (size > room) break;
    room -= size;
    fit += 1;
  }
  return Math.max(1, Math.min(limit - 1, fit));
}

/** The bytes of each item of an answer's largest list (with its separator), or of each line of its largest text. */
function pageItemSizes(answer: unknown): number[] {
  if (!answer || typeof answer !== 'object') return [];
  let largest: number[] = [];
  let largestTotal = -1;
  for (const value of Object.values(answer as Record<string, unknown>)) {
    const sizes = Array.isArray(value)
      ? value.map((item) => answerBytes(item) + 1)
      : typeof value === 'string' && value.includes('\n')
        ? value.split('\n').map((line) => answerBytes(line)) // its quotes' two bytes: the escaped newline's
        : [];
    const total = sizes.reduce((sum, size) => sum + size, 0);
    if (total > largestTotal) [largest, largestTotal] = [sizes, total];
  }
  return largest;
}

/** A list method: it answers a page of some list and a `nextCursor` for the next (a call that only continues work is not one). */
export function isListMethod(method: AnyMethod): boolean {
  let known = listMethods.get(method);
  if (known === undefined) listMethods.set(method, (known = hasPageShape(method)));
  return known;
}

/** Read from the schema once per method: the pipeline asks on every call. */
const listMethods = new WeakMap<AnyMethod, boolean>();

function hasPageShape(method: AnyMethod): boolean {
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
