import type { Queryable } from '../../db/database';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a market id names, whichever venue holds it: forecasts and comments take either kind of id. */
export interface MarketFacts {
  venue: 'mirrored' | 'community';
  /** Open to trading: a mirrored market while active, a community market while active and before its end date. */
  open: boolean;
  /** Outcomes: 1 (YES) for a mirrored market, each of a community market's. */
  outcomes: number;
  /** A community market's creator; null for a mirrored market (no account owns it). */
  creatorId: string | null;
}

/** A market by id, mirrored or community, or undefined when neither venue has it. */
export async function marketFacts(q: Queryable, marketId: string, now: Date): Promise<MarketFacts | undefined> {
  const mirrored = await q.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [marketId]);
  if (mirrored[0]) return { venue: 'mirrored', open: mirrored[0].status === 'active', outcomes: 1, creatorId: null };
  if (!UUID.test(marketId)) return undefined;
  const community = await q.query<{ status: string; end_date: Date; outcomes: number; creator_id: string }>(
    `SELECT c.status, c.end_date, c.creator_id, (SELECT count(*)::int FROM community_outcomes o WHERE o.market_id = c.id) AS outcomes
     FROM community_markets c WHERE c.id = $1`,
    [marketId],
  );
  const c = community[0];
  if (!c) return undefined;
  return {
    venue: 'community',
    open: c.status === 'active' && new Date(c.end_date).getTime() > now.getTime(),
    outcomes: Number(c.outcomes),
    creatorId: c.creator_id,
  };
}
