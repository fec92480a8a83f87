import { decodeCursor, FLOAT_TEXT, TIMESTAMP_TEXT, type KeysetCursor } from '../db/keyset-cursor';
import type { MarketStatus } from './feed';
import { MARKET_COLUMNS, MARKET_JOINS, type MarketViewRow } from './market-view';
import { MOVE_WINDOW_S, moveKeySql } from './market-moves';

export const MARKET_SORTS = ['volume', 'ending', 'newest', 'change24h'] as const;
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
  // Largest 24 h move of the YES price first (src/market-data/market-moves.ts). No index walks this key: it is
  // computed per market (two primary-key probes each), which the mirror's few thousand markets afford. $2 is the
  // window's start, so the key is the same for every page read at the same time.
  change24h: { key: moveKeySql('$2::timestamptz'), type: 'float8', dir: 'DESC' },
};

export interface ListQuery {
  category?: string;
  status: ListStatus;
  sort: MarketSort;
  limit: number;
  cursor?: string;
  /** Each market's hourly YES prices over the last 24 h as well (list_markets' sparkline). */
  sparkline?: boolean;
}

/** A cursor's key for a sort: the text PostgreSQL wrote for that sort's key. */
const validKey = (sort: MarketSort) => (k: string) => (SORTS[sort].type === 'float8' ? FLOAT_TEXT.test(k) : k === 'infinity' || TIMESTAMP_TEXT.test(k));

export function decodeListCursor(text: string, sort: MarketSort): KeysetCursor {
  return decodeCursor(text, sort, validKey(sort), 'Pass nextCursor from the previous page unchanged, with the same sort; omit cursor for the first page.');
}

export type ListedRow = MarketViewRow & { sort_key: string };

/**
 * The statement of one page and its parameters: one index walk of at most limit + 1 rows per status asked
 * for (three for 'all', merged), then the page's markets with their tokens.
 */
export function listStatement(q: ListQuery, after: KeysetCursor | null, now: Date = new Date()): { sql: string; params: unknown[] } {
  const { key, type, dir } = SORTS[q.sort];
  const cmp = dir === 'DESC' ? '<' : '>';
  const params: unknown[] = [q.limit + 1];
  if (q.sort === 'change24h') params.push(new Date(now.getTime() - MOVE_WINDOW_S * 1000).toISOString());
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
