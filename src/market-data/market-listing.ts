import { AppError } from '../errors/app-error';
import type { MarketStatus } from './feed';
import { MARKET_COLUMNS, MARKET_JOINS, type MarketViewRow } from './market-view';

export const MARKET_SORTS = ['volume', 'ending', 'newest'] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];
export const LIST_STATUSES = ['active', 'closed', 'resolved', 'all'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];

const STATES: readonly MarketStatus[] = ['active', 'closed', 'resolved'];

/**
 * Each sort is one key expression plus the id as tie-breaker, both in the same direction, so a page boundary
 * is a row comparison `(key, id) < (cursor key, cursor id)` that an index walk answers (migration
 * 1700000000010 indexes exactly these expressions, per status and per category and status). A missing volume
 * sorts as -1 (volumes are >= 0) and a missing end date as 'infinity': last, without NULL breaking the row
 * comparison. Keys travel in the cursor as text (timestamps keep their microseconds).
 */
const SORTS: Record<MarketSort, { key: string; type: 'float8' | 'timestamptz'; dir: 'ASC' | 'DESC' }> = {
  volume: { key: 'coalesce(m.volume, -1::float8)', type: 'float8', dir: 'DESC' },
  ending: { key: "coalesce(m.end_date, 'infinity'::timestamptz)", type: 'timestamptz', dir: 'ASC' },
  newest: { key: 'm.created_at', type: 'timestamptz', dir: 'DESC' },
};

export interface ListQuery {
  category?: string;
  status: ListStatus;
  sort: MarketSort;
  limit: number;
  cursor?: string;
}

/** Where the previous page ended: its sort, and the last row's key and id. */
interface Cursor {
  s: MarketSort;
  k: string;
  i: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function badCursor(): AppError {
  return new AppError('VALIDATION_ERROR', 'cursor is not a cursor of this listing.', {
    hint: 'Pass nextCursor from the previous page unchanged, with the same sort; omit cursor for the first page.',
  });
}

// The text PostgreSQL writes for a float8 and (DateStyle ISO) for a timestamptz: anything else is not ours.
const FLOAT_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

export function decodeCursor(text: string, sort: MarketSort): Cursor {
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const ok =
    typeof c === 'object' &&
    c !== null &&
    (c as Cursor).s === sort &&
    typeof (c as Cursor).k === 'string' &&
    typeof (c as Cursor).i === 'string' &&
    (c as Cursor).k.length <= 64 &&
    (c as Cursor).i.length <= 300;
  if (!ok) throw badCursor();
  const { k } = c as Cursor;
  const valid = SORTS[sort].type === 'float8' ? FLOAT_TEXT.test(k) : k === 'infinity' || TIMESTAMP_TEXT.test(k);
  if (!valid) throw badCursor();
  return c as Cursor;
}

export type ListedRow = MarketViewRow & { sort_key: string };

/**
 * The statement of one page and its parameters: one index walk of at most limit + 1 rows per status asked
 * for (three for 'all', merged), then the page's markets with their tokens.
 */
export function listStatement(q: ListQuery, after: Cursor | null): { sql: string; params: unknown[] } {
  const { key, type, dir } = SORTS[q.sort];
  const cmp = dir === 'DESC' ? '<' : '>';
  const params: unknown[] = [q.limit + 1];
  const param = (v: unknown) => `$${params.push(v)}`;
  const category = q.category !== undefined ? ` AND m.category = ${param(q.category)}` : '';
  const from = after ? ` AND (${key}, m.id) ${cmp} (${param(after.k)}::${type}, ${param(after.i)}::text)` : '';
  const states = q.status === 'all' ? STATES : [q.status];
  const walk = (state: string) =>
    `(SELECT m.id, ${key} AS k FROM markets m WHERE m.status = '${state}'${category}${from} ORDER BY ${key} ${dir}, m.id ${dir} LIMIT $1)`;
  const sql = `SELECT ${MARKET_COLUMNS}, page.k::text AS sort_key
    FROM (${states.map(walk).join(' UNION ALL ')}) page
    JOIN markets m ON m.id = page.id
    ${MARKET_JOINS}
    ORDER BY page.k ${dir}, m.id ${dir}
    LIMIT $1`;
  return { sql, params };
}

/** Active markets per category, most first; markets without a category are not counted. */
export const CATEGORIES_SQL = `SELECT category, count(*)::int AS n FROM markets WHERE status = 'active' AND category IS NOT NULL
  GROUP BY category ORDER BY n DESC, category`;
