import type { Queryable } from '../db/database';

/** How far back a market's move is measured, and the span of its sparkline. */
export const MOVE_WINDOW_S = 24 * 3600;
/** Points of a sparkline: one per hour over the window, the last one the current price. */
export const SPARKLINE_POINTS = 25;

/**
 * The YES price a move is measured from: the last snapshot at or before `ago`, else (a market younger than the window,
 * or a mirror that started since) the first one after it. Both are one probe of the (token_id, t) primary key.
 */
export const basePriceSql = (tokenId: string, ago: string) => `coalesce(
    (SELECT s.price_micro FROM price_snapshots s WHERE s.token_id = ${tokenId} AND s.t <= ${ago} ORDER BY s.t DESC LIMIT 1),
    (SELECT s.price_micro FROM price_snapshots s WHERE s.token_id = ${tokenId} AND s.t > ${ago} ORDER BY s.t ASC LIMIT 1))`;

/**
 * The sort key of list_markets' change24h sort: the size of the YES price's move over the window in micro-units, as
 * float8 (the keyset cursor's key type); -1 for a market without a price or history, so those come last.
 */
export const moveKeySql = (ago: string) =>
  `coalesce((SELECT abs(y.price_micro - ${basePriceSql('y.token_id', ago)}) FROM market_tokens y WHERE y.market_id = m.id AND y.outcome = 'YES'), -1)::float8`;

export interface MarketMove {
  /** YES price now minus the base price, in probability units; null without a price or history. */
  change24h: number | null;
  /** Hourly YES prices over the window, oldest first, ending with the current one; only when asked for. */
  sparkline?: number[];
}

/** The move (and, with `sparkline`, the hourly path) of each listed market, in two statements for the whole page. */
export async function marketMoves(db: Queryable, marketIds: string[], now: Date, sparkline: boolean): Promise<Map<string, MarketMove>> {
  const out = new Map<string, MarketMove>();
  if (marketIds.length === 0) return out;
  const ago = new Date(now.getTime() - MOVE_WINDOW_S * 1000).toISOString();
  const changes = await db.query<{ market_id: string; change: string | null }>(
    `SELECT y.market_id, (y.price_micro - ${basePriceSql('y.token_id', '$2::timestamptz')})::text AS change
     FROM market_tokens y WHERE y.market_id = ANY($1::text[]) AND y.outcome = 'YES'`,
    [marketIds, ago],
  );
  for (const id of marketIds) out.set(id, { change24h: null, ...(sparkline ? { sparkline: [] } : {}) });
  for (const r of changes) out.get(r.market_id)!.change24h = r.change === null ? null : Number(r.change) / 1e6;
  if (!sparkline) return out;
  // Hour i before now: the last snapshot at or before it; hour 0 is the current price. Hours before the first
  // snapshot have none and are left out, so a young market's line is shorter.
  const points = await db.query<{ market_id: string; i: number; p: string | null }>(
    `SELECT y.market_id, h.i, (CASE WHEN h.i = 0 THEN y.price_micro ELSE
       (SELECT s.price_micro FROM price_snapshots s WHERE s.token_id = y.token_id AND s.t <= $2::timestamptz - h.i * interval '1 hour' ORDER BY s.t DESC LIMIT 1)
     END)::text AS p
     FROM market_tokens y CROSS JOIN generate_series(0, $3::int - 1) AS h(i)
     WHERE y.market_id = ANY($1::text[]) AND y.outcome = 'YES'
     ORDER BY y.market_id, h.i DESC`,
    [marketIds, now.toISOString(), SPARKLINE_POINTS],
  );
  for (const r of points) if (r.p !== null) out.get(r.market_id)!.sparkline!.push(Number(r.p) / 1e6);
  return out;
}
