import type { BuyRowPart } from './trade-hooks';
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

/** How many parameters BUY_STATEMENT takes (its highest `$n`; buyParams gives them): a part's own come after them. */
export const BUY_PARAMS = Math.max(...[...BUY_STATEMENT.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));

const DEBIT_SET = 'UPDATE users SET balance_micro = balance_micro - $4, last_active_at = $8\n';
const DEBIT_RETURNING = 'RETURNING balance_micro\n';
const ANSWER = '(SELECT balance_micro FROM debit) AS balance_micro,';

/**
 * BUY_STATEMENT with the listeners' parts in its update of the account row (TradeHooks.buyRowParts): their
 * assignments after the buy's, their columns read back in `debit` and answered by name. The parts' parameters follow
 * the buy's, in the parts' order. A refused buy updates no row, so the parts change nothing either.
 */
export function buyStatementWith(parts: readonly BuyRowPart[]): string {
  if (!BUY_STATEMENT.includes(DEBIT_SET) || !BUY_STATEMENT.includes(DEBIT_RETURNING) || !BUY_STATEMENT.includes(ANSWER)) {
    throw new Error('BUY_STATEMENT no longer has the account-row update the parts extend');
  }
  let first = BUY_PARAMS + 1;
  const sets: string[] = [];
  for (const part of parts) {
    sets.push(part.set(first));
    first += part.count;
  }
  const returning = parts.flatMap((p) => p.returning);
  const names = returning.map((r) => /\bAS\s+(\w+)\s*$/i.exec(r)?.[1]);
  if (names.some((n) => !n)) throw new Error('every column a part reads back is named: `expression AS name`');
  if (sets.length === 0) return BUY_STATEMENT;
  return BUY_STATEMENT.replace(DEBIT_SET, `UPDATE users s SET balance_micro = s.balance_micro - $4, last_active_at = $8,\n${sets.join(',\n')}\n`)
    .replace(DEBIT_RETURNING, `RETURNING s.balance_micro, ${returning.join(', ')}\n`)
    .replace(ANSWER, `${ANSWER} ${names.map((n) => `(SELECT ${n} FROM debit) AS ${n}`).join(', ')},`);
}

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
