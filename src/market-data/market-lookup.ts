import type { Queryable } from '../db/database';
import type { MarketStatus } from './feed';

export interface TradableToken {
  marketId: string;
  slug: string;
  status: MarketStatus;
  tokenId: string;
  outcome: 'YES' | 'NO';
}

/**
 * The token of a market as the mirror holds it, for trading to check inside its own transaction
 * (pass the transaction's `tx`). `marketId` may also be the market's slug. Null when the token does
 * not belong to that market or either is unknown; the caller decides what status may trade.
 */
export async function findTradableToken(tx: Queryable, marketId: string, tokenId: string): Promise<TradableToken | null> {
  const rows = await tx.query<{ market_id: string; slug: string; status: MarketStatus; token_id: string; outcome: 'YES' | 'NO' }>(
    `SELECT m.id AS market_id, m.slug, m.status, t.token_id, t.outcome
     FROM market_tokens t JOIN markets m ON m.id = t.market_id
     WHERE t.token_id = $2 AND (m.id = $1 OR m.slug = $1)`,
    [marketId, tokenId],
  );
  const r = rows[0];
  return r ? { marketId: r.market_id, slug: r.slug, status: r.status, tokenId: r.token_id, outcome: r.outcome } : null;
}
