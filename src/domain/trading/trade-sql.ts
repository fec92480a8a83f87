import type { BuyRowPart } from './trade-hooks';
import { randomUUID } from 'node:crypto';
import type { Micro } from '../money/micro';
import type { SellFill } from './fills';
import { creditSql, debitSql } from '../ledger/cash';
import { entrySql } from '../ledger/journal';
import { addSharesSql, removeSharesSql } from '../ledger/shares';
import { poolAccountSql, VENUE } from '../ledger/accounts';
import { buyTransfersSql, sellTransfersSql } from '../ledger/trade-transfers';

/**
 * Where a trade's market is checked in its own statement: a mirrored market's row (locked shared, so it cannot close
 * under the trade), or a community market's (its pool row is already locked by the trade, so it cannot resolve meanwhile).
 */
export type Venue = 'mirrored' | 'pool';

const GATE: Record<Venue, string> = {
  mirrored: `SELECT m.id FROM markets m WHERE m.id = $2 AND m.status = 'active' FOR SHARE`,
  pool: `SELECT c.id FROM community_markets c WHERE c.id = $2::text::uuid AND c.status = 'active'`,
};

/** The ledger account on the other side of a venue's trades: the venue, or the community market's pool. */
const COUNTER: Record<Venue, string> = { mirrored: `'${VENUE}'`, pool: poolAccountSql('$2::text') };

/**
 * A whole buy as one data-modifying statement, built from the ledger's parts: the market gate, the debit (refused
 * unless the account's available cash covers it, after freeing what a resting order consumes of its own reservation),
 * its journal entry, the position opened or extended, and the trade's journal. Every part reads the debit, so a refused
 * debit changes nothing. A refused buy still takes the account row (`held`; after the market, as a debit does): the trade
 * hooks' statements are sent behind this one before its answer (TradePath.buy) and rely on the lock order every trade
 * keeps, the account row first. The `refused_held` column is only there so that `held` runs (a plain CTE runs only when read).
 * Parameters: $1 user, $2 market, $3 token, $4 amount µ$, $5 shares µ, $6 price µ$, $7 outcome, $8 time, $9 trade id,
 * $10 new position id, $11 reserved cash consumed µ$, $12 the resting order whose reservation that was (or null), $13 the
 * venue's fee µ$ (part of $4). Its
 * transfers (ledger/trade-transfers.ts) are written beside the debit and the position. The parts — the listeners' (TradeHooks.buyRowParts), then the buy's
 * own (PricedBuy.carry: a stated forecast) — add their assignments to the account row's update, numbered after these,
 * read their columns back under their names, and may add CTEs before the update and after it (BuyRowPart.ctesBefore/ctesAfter).
 */
function buySql(venue: Venue, parts: readonly BuyRowPart[]): string {
  let first = 14;
  const sets: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  for (const part of parts) {
    sets.push(part.set(first));
    if (part.ctesBefore) before.push(`${part.ctesBefore(first)},\n `);
    if (part.ctesAfter) after.push(`,\n ${part.ctesAfter(first)}`);
    first += part.count;
  }
  const returning = parts.flatMap((p) => p.returning);
  const nameOf = (r: string) => /\bAS\s+(\w+)\s*$/i.exec(r)?.[1];
  if (returning.some((r) => !nameOf(r))) throw new Error('every column a part reads back is named: `expression AS name`');
  // Only what the parts' after() reads travels back to the service (a column pg must parse on every buy otherwise).
  const names = parts.filter((p) => p.answered !== false).flatMap((p) => p.returning.map(nameOf));
  return `WITH ${before.join('')}market AS (
   ${GATE[venue]}
 ), debit AS (
   ${debitSql({ user: '$1', amount: '$4', release: '$11', set: ['last_active_at = $8', ...sets], when: 'EXISTS (SELECT 1 FROM market)', returning })}
 ), entry AS (
   ${entrySql({ from: 'debit', user: '$1', type: 'buy', amount: '-$4::bigint', ref: '$9::text', at: '$8' })}
 ), pos AS (
   ${addSharesSql({ from: 'debit', id: '$10', user: '$1', market: '$2', token: '$3', outcome: '$7', quantity: '$5', cost: '$4', at: '$8' })}
 ), journal AS (
   INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, fee_micro, created_at)
   SELECT $9::uuid, $1, pos.id, $2, $3, 'BUY', $5, $6, -$4::bigint, $13, $8 FROM pos
 ), moves AS (
   ${buyTransfersSql({ cashMoved: 'debit', sharesMoved: 'pos', user: '$1::text', position: 'pos.id::text', counter: COUNTER[venue], token: '$3', cash: '$4', shares: '$5', release: '$11', order: '$12', ref: '$9::text', at: '$8' })}
 ), held AS (
   SELECT id FROM users WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM debit) FOR UPDATE
 )${after.join('')}
 SELECT EXISTS (SELECT 1 FROM market) AS market_ok, (SELECT balance_micro FROM debit) AS balance_micro, (SELECT id FROM pos) AS position_id,${names
   .map((n) => ` (SELECT ${n} FROM debit) AS ${n},`)
   .join('')}
   EXISTS (SELECT 1 FROM held) AS refused_held`;
}

/** The buy of a mirrored market with no listener's part: the statement the benchmark drives directly. */
export const BUY_STATEMENT = buySql('mirrored', []);

/** How many parameters BUY_STATEMENT takes (its highest `$n`; buyParams gives them): a part's own come after them. */
export const BUY_PARAMS = Math.max(...[...BUY_STATEMENT.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));

/** The buy statement of a venue with these parts in its update of the account row (TradeHooks.buyRowParts, PricedBuy.carry). */
export function buyStatementWith(parts: readonly BuyRowPart[], venue: Venue = 'mirrored'): string {
  return buySql(venue, parts);
}

/** One buy, by name: the buy statement's parameters (the ids are fresh unless given). */
export interface BuyRow {
  userId: string;
  marketId: string;
  tokenId: string;
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  outcome: string;
  at: Date;
  /** Of the account's reserved cash, what this buy spends (a resting buy order's fill); 0 otherwise. */
  releaseMicro?: Micro;
  /** The resting order whose reservation that is (its pending transfer is posted by that much). */
  orderId?: string;
  /** The venue's fee, part of amountMicro; 0 otherwise. */
  feeMicro?: Micro;
  tradeId?: string;
  positionId?: string;
}

/** The buy statement's parameters in their order, so no caller counts $n by hand. */
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
    (b.releaseMicro ?? 0n).toString(),
    b.orderId ?? null,
    (b.feeMicro ?? 0n).toString(),
  ];
}

/**
 * A whole sale as one statement: the shares leave the position (refused unless its unreserved shares, after freeing what
 * a resting sell order consumes of its own reservation, cover them), the proceeds are credited with their journal entry,
 * and the trade is journaled with its transfers. Parameters: $1 user, $2 position, $3 shares µ, $4 cost removed µ$, $5
 * realized PnL µ$, $6 closes, $7 time, $8 proceeds µ$, $9 trade id, $10 market, $11 token, $12 price µ$, $13 reserved
 * shares consumed µ, $14 the venue's ledger account (VENUE or a pool's), $15 the resting order whose reservation $13 was,
 * $16 the venue's fee µ$ (already taken from $8).
 */
export const SELL_STATEMENT = `WITH upd AS (
   ${removeSharesSql({ position: '$2', quantity: '$3', costRemoved: '$4', realized: '$5', closes: '$6', at: '$7', release: '$13' })}
 ), credit AS (
   ${creditSql({ user: '$1', amount: '$8', set: ['last_active_at = $7'], when: 'EXISTS (SELECT 1 FROM upd)' })}
 ), entry AS (
   ${entrySql({ from: 'credit', user: '$1', type: 'sell', amount: '$8', ref: '$9::text', at: '$7' })}
 ), journal AS (
   INSERT INTO trades (id, user_id, position_id, market_id, token_id, side, quantity_micro, price_micro, cash_micro, realized_pnl_micro, fee_micro, created_at)
   SELECT $9::uuid, $1, $2, $10, $11, 'SELL', $3, $12, $8, $5, $16, $7 FROM credit
 ), moves AS (
   ${sellTransfersSql({ cashMoved: 'credit', sharesMoved: 'upd', user: '$1::text', position: '$2::text', counter: '$14::text', token: '$11', cash: '$8', shares: '$3', release: '$13', order: '$15', ref: '$9::text', at: '$7' })}
 )
 SELECT balance_micro FROM credit`;

/** One sale, by name: SELL_STATEMENT's parameters. */
export interface SellRow {
  userId: string;
  positionId: string;
  fill: SellFill;
  at: Date;
  marketId: string;
  tokenId: string;
  /** Of the position's reserved shares, what this sale consumes (a resting sell order's fill); 0 otherwise. */
  releaseMicro: Micro;
  /** The resting order whose reservation that is. */
  orderId?: string;
  /** The venue's ledger account (accounts.ts): VENUE unless a community market's pool. */
  counter?: string;
  tradeId?: string;
}

/** SELL_STATEMENT's parameters in their order, so no caller counts $n by hand. */
export function sellParams(r: SellRow): unknown[] {
  return [
    r.userId,
    r.positionId,
    r.fill.quantityMicro.toString(),
    r.fill.costRemovedMicro.toString(),
    r.fill.realizedPnlMicro.toString(),
    r.fill.closes,
    r.at,
    r.fill.proceedsMicro.toString(),
    r.tradeId ?? randomUUID(),
    r.marketId,
    r.tokenId,
    r.fill.priceMicro.toString(),
    r.releaseMicro.toString(),
    r.counter ?? VENUE,
    r.orderId ?? null,
    (r.fill.feeMicro ?? 0n).toString(),
  ];
}
