import { together, type Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import { pricesMicro, type Pool } from './lmsr';

/** A community market's pool as read (and locked) inside a trade's transaction. */
export interface PoolState {
  marketId: string;
  slug: string;
  question: string;
  status: 'active' | 'resolved';
  endDate: Date;
  creatorId: string;
  b: Micro;
  cash: Micro;
  outcomes: Array<{ tokenId: string; idx: number; label: string; offset: Micro; shares: Micro }>;
}

interface Row {
  market_id: string;
  slug: string;
  question: string;
  status: 'active' | 'resolved';
  end_date: Date;
  creator_id: string;
  b_micro: bigint;
  cash_micro: bigint;
  token_id: string;
  idx: number;
  label: string;
  offset_micro: bigint;
  shares_micro: bigint;
}

/**
 * Reads a pool with its outcomes. With `lock`, the pool row is locked FOR UPDATE first, so every fill
 * of one market is priced on the state the previous fill left (lock order: pool, account, position).
 */
export async function readPool(q: Queryable, marketId: string, lock: boolean): Promise<PoolState | undefined> {
  // The lock and the read go out together (one round trip, not two while the pool row is held): the read is a statement
  // after the lock's, so it sees the state the previous holder committed.
  const [, rows] = await together(
    lock ? q.query('SELECT 1 FROM community_pools WHERE market_id = $1::uuid FOR UPDATE', [marketId], 'community-pool-lock') : Promise.resolve([]),
    q.query<Row>(
      `SELECT p.market_id, m.slug, m.question, m.status, m.end_date, m.creator_id, p.b_micro, coalesce(c.cash_micro, 0) AS cash_micro,
            o.token_id, o.idx, o.label, o.offset_micro, o.shares_micro
     FROM community_pools p JOIN community_markets m ON m.id = p.market_id JOIN community_outcomes o ON o.market_id = p.market_id
       LEFT JOIN pool_balances c ON c.market_id = p.market_id
     WHERE p.market_id = $1::uuid ORDER BY o.idx`,
      [marketId],
      'community-pool-read',
    ),
  );
  const first = rows[0];
  if (!first) return undefined;
  return {
    marketId: first.market_id,
    slug: first.slug,
    question: first.question,
    status: first.status,
    endDate: new Date(first.end_date),
    creatorId: first.creator_id,
    b: BigInt(first.b_micro),
    cash: BigInt(first.cash_micro),
    outcomes: rows.map((r) => ({ tokenId: r.token_id, idx: r.idx, label: r.label, offset: BigInt(r.offset_micro), shares: BigInt(r.shares_micro) })),
  };
}

/** The rule's view of a pool: q_i = opening offset + shares sold. */
export function lmsrOf(pool: PoolState): Pool {
  return { b: pool.b, q: pool.outcomes.map((o) => o.offset + o.shares) };
}

/** The same pool after `delta` shares of outcome i changed hands (positive: the pool sold them). */
export function moved(pool: Pool, i: number, delta: Micro): Pool {
  const q = pool.q.slice();
  q[i] = q[i]! + delta;
  return { b: pool.b, q };
}

/**
 * Books a fill on the pool's curve inside the trade's transaction: volume and trade count, the outcome's shares, every
 * outcome's new price, and one price point per outcome (every trade is a point of the history); with `thick` (the trade
 * found the market no longer thin for the record), the moment it first was (`thick_at`, THIN_MARKET_SQL's shortcut). The
 * pool's cash is not here: it moved with the trade's transfers, in the ledger (ledger/pool-cash.ts).
 */
export async function bookFill(
  tx: Queryable,
  pool: PoolState,
  after: Pool,
  fill: { tokenId: string; sharesDelta: Micro; volume: Micro; at: Date; thick: boolean },
): Promise<void> {
  const prices = pricesMicro(after).map(String);
  const tokens = pool.outcomes.map((o) => o.tokenId);
  await tx.query(
    `WITH pool AS (
       UPDATE community_pools SET volume_micro = volume_micro + $2::bigint, trades = trades + 1,
         thick_at = CASE WHEN $8::boolean THEN coalesce(thick_at, $7) ELSE thick_at END
       WHERE market_id = $1::uuid RETURNING market_id
     ), outs AS (
       UPDATE community_outcomes o SET shares_micro = o.shares_micro + CASE WHEN o.token_id = $3::text THEN $4::bigint ELSE 0 END, price_micro = x.price
       FROM unnest($5::text[], $6::bigint[]) AS x(token_id, price) WHERE o.token_id = x.token_id RETURNING o.token_id
     )
     INSERT INTO community_price_points (token_id, t, price_micro) SELECT x.token_id, $7, x.price FROM unnest($5::text[], $6::bigint[]) AS x(token_id, price)`,
    [pool.marketId, fill.volume.toString(), fill.tokenId, fill.sharesDelta.toString(), tokens, prices, fill.at, fill.thick],
    'community-pool-book',
  );
}
