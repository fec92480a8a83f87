import { together, type Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import { cashAccount, cashAccountSql, positionAccount, positionAccountSql, USD, VENUE } from './accounts';
import { covers } from './cash';
import { moveCounterBalance } from './pool-cash';
import { sellable } from './shares';
import { insertTransfers, insertTransfersSql, type Transfer } from './transfers';

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
  /** The position the shares go into: the account's open one in the token (buyerOf), or the id of the one the buy opens. */
  positionId: string;
  at: Date;
}

/** What BUY's transfers share: the buyer's cash account, the asset of cash, and the trade's ref and time, each written after the debit. */
const BUYER_CASH = cashAccountSql('$1::uuid::text');
const CASH = `'${USD}'`;
const OF_THE_BUY = { ref: '$12::text', at: '$9::timestamptz', from: 'spent' } as const;

/**
 * A buy's money and shares in one statement (every part of it this module's): the debit, refused beyond available cash
 * (covers(), counting `release` of the account's reservation as freed); then, only from a debit that moved, the shares
 * into the position (the account's open one in the token, or the one the buy opens) and the transfers — the price to the
 * venue's account, the fee to the venue, the shares from the venue's account into the position, and the post of a
 * consumed reservation (those of zero amount record nothing).
 * $1 user, $2 amount (fee included), $3 release, $4 position, $5 market, $6 token, $7 outcome, $8 shares, $9 time,
 * $10 the venue's account, $11 fee, $12 trade (every transfer's ref), $13 the order whose reservation is consumed.
 */
const BUY = `WITH spent AS (
    UPDATE cash_balances SET balance_micro = balance_micro - $2::bigint, reserved_micro = reserved_micro - $3::bigint
    WHERE user_id = $1::uuid AND ${covers('$2::bigint', '$3::bigint')} RETURNING balance_micro),
  held AS (
    INSERT INTO positions (id, user_id, market_id, token_id, outcome, quantity_micro, cost_micro, bought_micro, created_at, updated_at)
    SELECT $4::uuid, $1::uuid, $5::text, $6::text, $7::text, $8::bigint, $2::bigint, $8::bigint, $9::timestamptz, $9::timestamptz FROM spent
    ON CONFLICT (user_id, token_id) WHERE NOT is_closed DO UPDATE SET
      quantity_micro = positions.quantity_micro + EXCLUDED.quantity_micro,
      cost_micro = positions.cost_micro + EXCLUDED.cost_micro,
      bought_micro = positions.bought_micro + EXCLUDED.bought_micro,
      updated_at = EXCLUDED.updated_at
    RETURNING id),
  moves AS (${insertTransfersSql([
    { debit: BUYER_CASH, credit: '$10::text', asset: CASH, amount: '$2::bigint - $11::bigint', kind: 'buy', ...OF_THE_BUY },
    { debit: BUYER_CASH, credit: `'${VENUE}'`, asset: CASH, amount: '$11::bigint', kind: 'fee', ...OF_THE_BUY },
    { debit: '$10::text', credit: positionAccountSql('$4::uuid::text'), asset: '$6::text', amount: '$8::bigint', kind: 'buy', ...OF_THE_BUY },
    // The post of what the fill consumed of a resting order's reservation: the reservation's own accounts (cash to the venue).
    { debit: BUYER_CASH, credit: `'${VENUE}'`, asset: CASH, amount: '$3::bigint', kind: 'reserve', phase: 'post', order: '$13', ...OF_THE_BUY },
  ])})
  SELECT spent.balance_micro, held.id FROM spent, held`;

/** The account's ($1) open position in the token ($2): at most one (a partial unique index), read by buyerOf and openPositionOf. */
const OPEN_POSITION = 'SELECT id FROM positions WHERE user_id = $1 AND token_id = $2 AND NOT is_closed';

/** What a buy needs to know of its account, read together under the account row's lock: its cash and its open position in the token. */
export interface Buyer {
  balanceMicro: Micro;
  reservedMicro: Micro;
  /** The account's open position in the token, if any: every writer of a position holds the account row's lock, so it stays the one. */
  positionId: string | undefined;
}

/** The account's cash and its open position in `tokenId` (one statement); undefined when there is no such account. */
export async function buyerOf(tx: Queryable, userId: string, tokenId: string): Promise<Buyer | undefined> {
  const rows = await tx.query<{ balance_micro: bigint; reserved_micro: bigint; position_id: string | null }>(
    `SELECT c.balance_micro, c.reserved_micro, (${OPEN_POSITION}) AS position_id FROM cash_balances c WHERE c.user_id = $1`,
    [userId, tokenId],
    'ledger_buyer_of',
  );
  const r = rows[0];
  return r && { balanceMicro: BigInt(r.balance_micro), reservedMicro: BigInt(r.reserved_micro), positionId: r.position_id ?? undefined };
}

/**
 * The account's open position in `tokenId`, if any: read under the account row's lock (every writer of a position holds
 * it), so a buy's moves know the position they add to before they are sent.
 */
export async function openPositionOf(tx: Queryable, userId: string, tokenId: string): Promise<string | undefined> {
  const rows = await tx.query<{ id: string }>(OPEN_POSITION, [userId, tokenId], 'ledger_open_position');
  return rows[0]?.id;
}

/**
 * A buy's money and shares (BUY, one statement), and the counter-account's maintained balance when it keeps one (a
 * pool's cash; the venue keeps none), sent together. Null when the account's available cash (counting the order's
 * consumed reservation as freed) does not cover it: nothing of the buy was written, though a pool's balance may have
 * moved, so the caller must roll back (the engine's refusal does).
 */
export async function buyMoves(tx: Queryable, b: BuyMoves): Promise<{ balanceMicro: Micro } | null> {
  if (b.feeMicro < 0n || b.feeMicro > b.amountMicro) throw new Error(`a buy's fee ${b.feeMicro} lies outside its amount ${b.amountMicro}`);
  if (b.releaseMicro < 0n || (b.releaseMicro > 0n && !b.orderId)) throw new Error(`a buy releases ${b.releaseMicro} of no order's reservation`);
  const [bought] = await together(
    tx.query<{ balance_micro: bigint; id: string }>(
      BUY,
      [
        b.userId,
        b.amountMicro.toString(),
        b.releaseMicro.toString(),
        b.positionId,
        b.marketId,
        b.tokenId,
        b.outcome,
        b.quantityMicro.toString(),
        b.at,
        b.counter,
        b.feeMicro.toString(),
        b.tradeId,
        b.orderId,
      ],
      'ledger_buy',
    ),
    // The price (the amount less the venue's fee) into the counter-account's maintained balance, when it keeps one (a pool).
    moveCounterBalance(tx, b.counter, b.amountMicro - b.feeMicro),
  );
  const row = bought[0];
  if (!row) return null;
  // The position was read under the account's lock, which every writer of a position holds: another id is a broken invariant.
  if (row.id !== b.positionId) throw new Error(`a buy's shares went into position ${row.id}, not the expected ${b.positionId}`);
  return { balanceMicro: BigInt(row.balance_micro) };
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
