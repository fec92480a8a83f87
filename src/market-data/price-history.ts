import type { Queryable } from '../db/database';
import type { HistoryRange, PricePoint } from './feed';

export { INTERVALS, rangeFor, type Interval } from '../domain/trading/price-intervals';

/** The mirror's own snapshots over a range, the last one in each step-wide bucket, oldest first. */
export async function localPoints(db: Queryable, tokenId: string, range: HistoryRange): Promise<PricePoint[]> {
  const rows = await db.query<{ ts: bigint; price_micro: bigint }>(
    `SELECT DISTINCT ON (bucket) ts, price_micro FROM (
       SELECT floor(extract(epoch FROM t))::int8 AS ts, price_micro, floor(extract(epoch FROM t) / $4)::int8 AS bucket
       FROM price_snapshots WHERE token_id = $1 AND t >= to_timestamp($2) AND t <= to_timestamp($3)
     ) s ORDER BY bucket, ts DESC`,
    [tokenId, range.fromS, range.toS, range.stepS],
  );
  return rows.map((r) => ({ t: Number(r.ts), p: Number(r.price_micro) / 1e6 }));
}

/**
 * Whether the mirror alone answers the range: snapshots from its start (within one step) to its end
 * (within one step or two sync intervals, whichever is longer).
 */
export async function locallyCovered(db: Queryable, tokenId: string, range: HistoryRange, syncIntervalS: number): Promise<boolean> {
  const rows = await db.query<{ first: bigint | null; last: bigint | null }>(
    `SELECT floor(extract(epoch FROM min(t)))::int8 AS first, floor(extract(epoch FROM max(t)))::int8 AS last FROM price_snapshots WHERE token_id = $1`,
    [tokenId],
  );
  const first = rows[0]?.first;
  const last = rows[0]?.last;
  if (first === null || first === undefined || last === null || last === undefined) return false;
  return Number(first) <= range.fromS + range.stepS && Number(last) >= range.toS - Math.max(range.stepS, 2 * syncIntervalS);
}
