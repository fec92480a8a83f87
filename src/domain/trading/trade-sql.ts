import { randomUUID } from 'node:crypto';
import type { Micro } from '../money/micro';

/**
 * A whole buy as one data-modifying statement: lock the market row (shared) and require it active,
 * debit the account only if its available cash (balance − what resting buy orders reserve) covers it, write the ledger entry, open or extend the
 * position, and journal the trade. Every part reads the debit, so a refused debit changes nothing.
 * A refused buy still takes the account row (`held`; after the market, as a debit does): the trade hooks'
 * statements are sent behind this one before its answer (TradingService.buy), and they rely on the lock
 * order every trade keeps, the account row first. A successful buy skips `held` (its debit holds the row);
 * the `refused_held` column is only there so that `held` runs (a plain CTE runs only when read).
 * Parameters: $1 user, $2 market, $3 token, $4 amount µ$, $5 shares µ, $6 price µ$, $7 outcome,
 * $8 time, $9 trade id, $10 new position id. The benchmark drives this same statement directly.
 */
export const BUY_STATEMENT = `WITH market AS (
   SELECT m.id FROM markets m WHERE m.id = $2 AND m.status = 'active' FOR SHARE
 ), debit AS (
   UPDATE users SET balance_micro = balance_micro - $4, last_active_at = $8
   WHERE id = $1 AND balance_micro - reserved_micro >= $4 AND EXISTS (SELECT 1 FROM market)
   RETURNING balance_micro
 ), entry AS (
   INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at)
   SELECT $1, 'buy', -$4::bigint, $9::text, $8 FROM debit
 ), pos AS (
   INSERT INTO positions (id, user_id, market_id, token_id, outcome, quantity_micro, cost_micro, bought_micro, created_at, updated_at)
   SELECT $10, $1, $2, $3, $7, $5, $4, $5, $8, $8 FROM debit
   ON CONFLICT (user_id, token_id) WHERE NOT is_closed DO UPDATE SET
     quantity_micro = positions.quantity_micro + EXCLUDED.quantity_micro,
     cost_micro = positions.cost_micro + EXCLUDED.cost_micro,
     bought_micro = positions.bought_micro + EXCLUDED.bought_micro,
     updated_at = EXCLUDED.updated_at
   RETURNING id
 ), journal AS (
   INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, created_at)
   SELECT $9::uuid, $1, pos.id, $2, $3, 'BUY', $5, $6, -$4::bigint, $8 FROM pos
 ), held AS (
   SELECT id FROM users WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM debit) FOR UPDATE
 )
 SELECT EXISTS (SELECT 1 FROM market) AS market_ok, (SELECT balance_micro FROM debit) AS balance_micro, (SELECT id FROM pos) AS position_id,
   EXISTS (SELECT 1 FROM held) AS refused_held`;

/** One buy, by name: BUY_STATEMENT's parameters (the ids are fresh unless given). */
export interface BuyRow {
  userId: string;
  marketId: string;
  tokenId: string;
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  outcome: string;
  at: Date;
  tradeId?: string;
  positionId?: string;
}

/** BUY_STATEMENT's parameters in their order, so no caller counts $n by hand. */
export function buyParams(b: BuyRow): unknown[] {
  return [
    b.userId,
    b.marketId,
    b.tokenId,
    b.amountMicro.toString(),
    b.quantityMicro.toString(),
    b.priceMicro.toString(),
    b.outcome,
    b.at,
    b.tradeId ?? randomUUID(),
    b.positionId ?? randomUUID(),
  ];
}
