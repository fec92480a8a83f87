import { z } from 'zod';
import { defineMethod, type AnyMethod } from '../../src/registry/method';
import { answerBytes, itemsThatFit, PAGE_BYTES_BOUND, withinPageBudget } from '../../src/registry/pages';

/**
 * The page budget (issue 51 item 2), in the one place every list method's answer passes: a page that would pass
 * PAGE_BYTES_BOUND is asked again for as many items as fit, and the method's own cursor goes on from there. Here over a
 * list of fixed-size rows, so each count is hand-computed; test/registry/page-bounds.test.ts walks the real methods.
 */

const ROW = 1_000; // bytes of one row's JSON
const rows = Array.from({ length: 300 }, (_, i) => ({ id: String(i).padStart(4, '0'), text: 'x'.repeat(ROW - 23) }));

const listRows = defineMethod({
  name: 'list_rows_probe',
  toolset: 'markets',
  area: 'Markets',
  summary: 'probe',
  brief: 'probe',
  description: 'probe',
  auth: 'public',
  limit: 'api',
  input: z.object({ limit: z.number().int().min(1).max(200).default(100).describe('Rows.'), cursor: z.string().optional().describe('Cursor.') }),
  output: z.object({ rows: z.array(z.object({ id: z.string(), text: z.string() })).describe('Rows.'), nextCursor: z.string().nullable().describe('Next.') }),
  annotations: { title: 'probe', readOnlyHint: true },
  handler: async () => ({ rows: [], nextCursor: null }),
}) as unknown as AnyMethod;

/** The list as a keyset method answers it: rows after the cursor (an id), at most limit, and the last row's id as the next cursor. */
function page(input: { limit: number; cursor?: string }) {
  const from = input.cursor === undefined ? 0 : rows.findIndex((r) => r.id === input.cursor) + 1;
  const out = rows.slice(from, from + input.limit);
  return { rows: out, nextCursor: from + input.limit < rows.length ? out[out.length - 1]!.id : null };
}

describe('the page budget', () => {
  test('when a row is 1,000 bytes, then the fixture is what the counts below assume', () => {
    expect(answerBytes(rows[0])).toBe(ROW);
  });

  test('when a page of 200 rows would pass the bound, then it ends at 99 rows (99,129 bytes) and its cursor is the 99th', async () => {
    const calls: number[] = [];
    const answer = (await withinPageBudget(listRows, { limit: 200 }, async (input) => {
      calls.push(input.limit);
      return page(input);
    })) as ReturnType<typeof page>;
    // The envelope {"rows":[],"nextCursor":"0098"} is 31 bytes, each row 1,000 and a comma between: 99 make 99,129; 100, 100,130.
    expect(calls).toEqual([200, 99]);
    expect(answer.rows).toHaveLength(99);
    expect(answerBytes(answer)).toBeLessThanOrEqual(PAGE_BYTES_BOUND);
    expect(answer.nextCursor).toBe('0098');
  });

  test('when a client pages on at 200 with each nextCursor, then it reads every row once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const answer = (await withinPageBudget(listRows, { limit: 200, ...(cursor ? { cursor } : {}) }, async (input) => page(input))) as ReturnType<typeof page>;
      expect(answerBytes(answer)).toBeLessThanOrEqual(PAGE_BYTES_BOUND);
      seen.push(...answer.rows.map((r) => r.id));
      cursor = answer.nextCursor;
    } while (cursor);
    expect(seen).toEqual(rows.map((r) => r.id));
  });

  test('when a page is within the bound, then the method is called once and its answer is as it was', async () => {
    const calls: number[] = [];
    const answer = await withinPageBudget(listRows, { limit: 50 }, async (input) => {
      calls.push(input.limit);
      return page(input);
    });
    expect(calls).toEqual([50]);
    expect(answer).toEqual(page({ limit: 50 }));
  });

  test('when one row alone passes the bound, then the page holds that one row (a page ends between items, never inside one)', async () => {
    const huge = {
      rows: [
        { id: 'a', text: 'y'.repeat(PAGE_BYTES_BOUND) },
        { id: 'b', text: '' },
      ],
      nextCursor: null,
    };
    const calls: number[] = [];
    await withinPageBudget(listRows, { limit: 2 }, async (input) => {
      calls.push(input.limit);
      return { ...huge, rows: huge.rows.slice(0, input.limit) };
    });
    expect(calls).toEqual([2, 1]);
  });

  test('when the page is csv text, then its lines are the items counted', () => {
    // 200 lines of 999 characters and a newline: a JSON string escapes each newline as two bytes.
    const text = Array.from({ length: 200 }, () => 'z'.repeat(999)).join('\n');
    const answer = { format: 'csv', text, nextCursor: null };
    // Lines cost 1,001 bytes each in JSON (999 + the escaped newline) and the envelope about 40: 99 fit.
    expect(itemsThatFit(answer, answerBytes(answer), 200)).toBe(99);
  });
});
