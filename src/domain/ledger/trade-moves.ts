import { together, type Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import { cashAccount, positionAccount, USD, VENUE } from './accounts';
import { covers } from './cash';
import { moveCounterBalance } from './pool-cash';
import { sellable } from './shares';
import { insertTransfers, type Transfer } from './transfers';

/**
 * What a trade moves, in the ledger's own plain statements (the trade engine calls these in its transaction, then writes
 * the trade record): cash out of or into the account, the shares into or out of the position, and the transfers — the
 * price in cash between the account and the venue's account (the venue, or a community market's pool), the venue's fee
 * as a transfer of its own (kind 'fee', the account to the venue), the shares the other way, and for a resting order's
 * fill the `post` of what the fill consumed of the order's pending transfer.
 * Lock order, as every trade keeps it: the account row (the engine's, before these), then its cash, then the position.
 */

export interface BuyMoves {
  userId: string;
  marketId: string;
  tokenId: string;
  outcome: string;
  /** Cash spent, the venue's fee included. */
  amountMicro: Micro;
  /** Of amountMicro, the venue's fee (its own transfer, to the venue); the rest is the price, to `counter`. */
  feeMicro: Micro;
  quantityMicro: Micro;
  /** The venue's account on the other side (accounts.ts): VENUE, or a community market's pool. */
  counter: string;
  /** Of the account's reserved cash, what this buy spends (a resting buy order's fill), and that order. */
  releaseMicro: Micro;
  orderId: string | null;
  /** The trade's id (every transfer's ref). */
  tradeId: string;
  /** The position the shares go into: the account's open one in the token (openPositionOf), or the id of the one the buy opens. */
  positionId: string;
  at: Date;
}

const SPEND = `UPDATE cash_balances SET balance_micro = balance_micro - $2, reserved_micro = reserved_micro - $3
  WHERE user_id = $1 AND ${covers('$2', '$3')} RETURNING balance_micro`;

const ADD_SHARES = `INSERT INTO positions (id, user_id, market_id, token_id, outcome, quantity_micro, cost_micro, bought_micro, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $8, $8)
  ON CONFLICT (user_id, token_id) WHERE NOT is_closed DO UPDATE SET
    quantity_micro = positions.quantity_micro + EXCLUDED.quantity_micro,
    cost_micro = positions.cost_micro + EXCLUDED.cost_micro,
    bought_micro = positions.bought_micro + EXCLUDED.bought_micro,
    updated_at = EXCLUDED.updated_at
  RETURNING id`;

/**
 * The account's open position in `tokenId`, if any: read under the account row's lock (every writer of a position holds
 * it), so a buy's moves know the position they add to before they are sent.
 */
export async function openPositionOf(tx: Queryable, userId: string, tokenId: string): Promise<string | undefined> {
  const rows = await tx.query<{ id: string }>(
    'SELECT id FROM positions WHERE user_id = $1 AND token_id = $2 AND NOT is_closed',
    [userId, tokenId],
    'ledger_open_position',
  );
  return rows[0]?.id;
}

/**
 * A buy's money and shares, sent together (one round trip): the debit, the shares into the position (`b.positionId`),
 * the counter-account's maintained balance (a pool's cash; the venue keeps none) and the transfers — the price to the
 * venue's account, the fee to the venue, the shares into the position, and the post of a consumed reservation. Null
 * when the account's available cash (counting the order's consumed reservation as freed) does not cover it: the rest
 * went out with the debit, so the caller must roll back (the engine's refusal does).
 */
export async function buyMoves(tx: Queryable, b: BuyMoves): Promise<{ balanceMicro: Micro } | null> {
  if (b.feeMicro < 0n || b.feeMicro > b.amountMicro) throw new Error(`a buy's fee ${b.feeMicro} lies outside its amount ${b.amountMicro}`);
  const cash = cashAccount(b.userId);
  const moves: Transfer[] = [
    { debit: cash, credit: b.counter, asset: USD, amountMicro: b.amountMicro - b.feeMicro, kind: 'buy', ref: b.tradeId, at: b.at },
    { debit: cash, credit: VENUE, asset: USD, amountMicro: b.feeMicro, kind: 'fee', ref: b.tradeId, at: b.at },
    { debit: b.counter, credit: positionAccount(b.positionId), asset: b.tokenId, amountMicro: b.quantityMicro, kind: 'buy', ref: b.tradeId, at: b.at },
  ];
  if (b.orderId) moves.push(postOf(cash, USD, b.releaseMicro, b.orderId, b.tradeId, b.at));
  const [spent, pos] = await together(
    tx.query<{ balance_micro: bigint }>(SPEND, [b.userId, b.amountMicro.toString(), b.releaseMicro.toString()], 'ledger_buy_spend'),
    tx.query<{ id: string }>(
      ADD_SHARES,
      [b.positionId, b.userId, b.marketId, b.tokenId, b.outcome, b.quantityMicro.toString(), b.amountMicro.toString(), b.at],
      'ledger_buy_shares',
    ),
    // The price (the amount less the venue's fee) into the counter-account's maintained balance, when it keeps one (a pool).
    moveCounterBalance(tx, b.counter, b.amountMicro - b.feeMicro),
    insertTransfers(tx, moves),
  );
  // The position was read under the account's lock, which every writer of a position holds: another id is a broken invariant.
  if (pos[0]?.id !== b.positionId) throw new Error(`a buy's shares went into position ${pos[0]?.id}, not the expected ${b.positionId}`);
  if (!spent[0]) return null;
  return { balanceMicro: BigInt(spent[0].balance_micro) };
}

export interface SellMoves {
  userId: string;
  positionId: string;
  tokenId: string;
  quantityMicro: Micro;
  /** The cost basis the shares carried, and the PnL they realized. */
  costRemovedMicro: Micro;
  realizedPnlMicro: Micro;
  /** Whether the sale empties the position. */
  closes: boolean;
  /** Cash received, the venue's fee already taken. */
  proceedsMicro: Micro;
  /** The venue's fee: the counter pays proceeds + fee, and the fee goes to the venue as its own transfer. */
  feeMicro: Micro;
  counter: string;
  /** Of the position's reserved shares, what this sale consumes (a resting sell order's fill), and that order. */
  releaseMicro: Micro;
  orderId: string | null;
  tradeId: string;
  at: Date;
}

const REMOVE_SHARES = `UPDATE positions SET quantity_micro = quantity_micro - $2, cost_micro = cost_micro - $3, sold_micro = sold_micro + $2,
    realized_pnl_micro = realized_pnl_micro + $4, is_closed = $5, closed_at = CASE WHEN $5 THEN $6::timestamptz END,
    updated_at = $6, reserved_micro = reserved_micro - $7
  WHERE id = $1 AND NOT is_closed AND ${sellable('$2', '$7')} RETURNING id`;

const EARN = 'UPDATE cash_balances SET balance_micro = balance_micro + $2 WHERE user_id = $1 RETURNING balance_micro';

/**
 * A sale's shares, money, transfers and the counter-account's maintained balance (a pool's cash), sent together (one round trip). Null when the position's unreserved shares do
 * not cover it: the rest went out with the removal, so the caller must roll back.
 */
export async function sellMoves(tx: Queryable, s: SellMoves): Promise<{ balanceMicro: Micro } | null> {
  if (s.feeMicro < 0n) throw new Error(`a sale's fee is not negative: ${s.feeMicro}`);
  const held = positionAccount(s.positionId);
  const cash = cashAccount(s.userId);
  const moves: Transfer[] = [
    { debit: held, credit: s.counter, asset: s.tokenId, amountMicro: s.quantityMicro, kind: 'sell', ref: s.tradeId, at: s.at },
    { debit: s.counter, credit: cash, asset: USD, amountMicro: s.proceedsMicro + s.feeMicro, kind: 'sell', ref: s.tradeId, at: s.at },
    { debit: cash, credit: VENUE, asset: USD, amountMicro: s.feeMicro, kind: 'fee', ref: s.tradeId, at: s.at },
  ];
  if (s.orderId) moves.push(postOf(held, s.tokenId, s.releaseMicro, s.orderId, s.tradeId, s.at));
  const [removed, earned] = await together(
    tx.query(
      REMOVE_SHARES,
      [s.positionId, s.quantityMicro.toString(), s.costRemovedMicro.toString(), s.realizedPnlMicro.toString(), s.closes, s.at, s.releaseMicro.toString()],
      'ledger_sell_shares',
    ),
    tx.query<{ balance_micro: bigint }>(EARN, [s.userId, s.proceedsMicro.toString()], 'ledger_sell_earn'),
    insertTransfers(tx, moves),
    moveCounterBalance(tx, s.counter, -(s.proceedsMicro + s.feeMicro)),
  );
  if (!removed[0]) return null;
  // The position is the account's, so the account exists: no row here is a broken invariant.
  if (!earned[0]) throw new Error(`sale of position ${s.positionId}: account ${s.userId} not found`);
  return { balanceMicro: BigInt(earned[0].balance_micro) };
}

/** The `post` of `amount` of an order's pending transfer: the same accounts as the reservation's (accounts to the venue). */
const postOf = (debit: string, asset: string, amountMicro: Micro, orderId: string, ref: string, at: Date): Transfer => ({
  debit,
  credit: VENUE,
  asset,
  amountMicro,
  kind: 'reserve',
  phase: 'post',
  orderId,
  ref,
  at,
});
