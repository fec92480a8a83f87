import { createHash } from 'node:crypto';
import { together, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { heldByEach, heldByOrderSql } from '../ledger/transfers';
import { fromMicro, type Micro } from '../money/micro';
import type { Depth } from '../trading/price-service';
import type { OrderSide, OrderState, SizedBy, TimeInForce } from './order-rules';

/** An order as stored (orders table, migration 17), with what the ledger says it holds (ORDER_COLUMNS). */
export interface OrderRow {
  id: string;
  user_id: string;
  client_order_id: string | null;
  market_id: string;
  token_id: string;
  outcome: 'YES' | 'NO';
  position_id: string | null;
  side: OrderSide;
  /** The unit of size_micro and filled_size_micro (migration 45). */
  sized_by: SizedBy;
  limit_price_micro: bigint;
  size_micro: bigint;
  time_in_force: TimeInForce;
  expires_at: Date | null;
  state: OrderState;
  filled_size_micro: bigint;
  filled_shares_micro: bigint;
  filled_cash_micro: bigint;
  /** What the order holds now, read from the ledger (heldByOrderSql): cash of a BUY, shares of a SELL; 0 once closed. */
  held_micro: bigint;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  created_key?: string;
}

/** A quote a resting order is checked against: bid, ask, when quoted, and the venue's book where it publishes one. */
export interface Quote {
  bidMicro: Micro;
  askMicro: Micro;
  asOf: Date;
  depth?: Depth;
  /** With depth: which book it is (bookHash()), the key of what fills have taken from it (market_tokens.book_*). */
  bookHash?: string;
}

export type OrderView = ReturnType<typeof toView>;

/** An order's columns with what it holds (the ledger's answer, never a copy on the row), from `orders o`. */
export const ORDER_COLUMNS = `o.*, ${heldByOrderSql('o.id')} AS held_micro`;

/**
 * Order rows as a locking statement (`lock`, `SELECT ${ORDER_COLUMNS} ... FOR UPDATE OF o`, already sent) returns them,
 * with what each holds read again by a statement of its own sent right behind it (one round trip): had the lock waited
 * for another transaction's fill, amend or cancel of the order, the locking statement still sums the order's transfers
 * as they stood when it began (PostgreSQL's read committed), although the row itself is the one that transaction left.
 * The statement behind it begins once the lock is held, so it sees every change to what the order holds.
 */
export async function lockedWithHeld<T extends OrderRow>(tx: Queryable, lock: Promise<T[]>, ids: readonly string[]): Promise<T[]> {
  const [rows, held] = await together(lock, heldByEach(tx, ids));
  return rows.map((r) => ({ ...r, held_micro: held.get(r.id) ?? 0n }));
}

/** The open states as an SQL list. */
export const OPEN = `('open', 'partially_filled')`;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const notFound = (id: string) => new AppError('NOT_FOUND', `Order ${id} not found.`, { hint: 'List your orders with list_orders.' });

export async function byId(q: Queryable, id: string): Promise<OrderRow | undefined> {
  return (await q.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.id = $1`, [id]))[0];
}

export async function byClientId(q: Queryable, userId: string, clientOrderId: string): Promise<OrderRow | undefined> {
  return (await q.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.user_id = $1 AND o.client_order_id = $2`, [userId, clientOrderId]))[0];
}

/** A book's identity (its levels), to tell a new book from one already filled against, in any process. */
export function bookHash(d: Depth): string {
  const side = (ls: Depth['bids']) => ls.map((l) => `${l.priceMicro}:${l.sizeMicro}`).join(',');
  return createHash('sha256')
    .update(`${side(d.bids)}|${side(d.asks)}`)
    .digest('base64url');
}

/** An order as get_order and every order event show it. */
export function toView(r: OrderRow) {
  const avgPrice = r.filled_shares_micro > 0n ? fromMicro((r.filled_cash_micro * 1_000_000n) / r.filled_shares_micro) : null;
  return {
    id: r.id,
    clientOrderId: r.client_order_id,
    marketId: r.market_id,
    tokenId: r.token_id,
    outcome: r.outcome,
    side: r.side,
    limitPrice: fromMicro(r.limit_price_micro),
    amount: r.sized_by === 'amount' ? fromMicro(r.size_micro) : null,
    shares: r.sized_by === 'shares' ? fromMicro(r.size_micro) : null,
    size: fromMicro(r.size_micro),
    timeInForce: r.time_in_force,
    expiresAt: r.expires_at ? new Date(r.expires_at).toISOString() : null,
    state: r.state,
    filledSize: fromMicro(r.filled_size_micro),
    filledShares: fromMicro(r.filled_shares_micro),
    filledCash: fromMicro(r.filled_cash_micro),
    avgPrice,
    // Deprecated duplicate of avgPrice (docs/glossary.md), kept one version for clients that read it.
    avgFillPrice: avgPrice,
    reservedCash: fromMicro(r.side === 'BUY' ? r.held_micro : 0n),
    reservedShares: fromMicro(r.side === 'SELL' ? r.held_micro : 0n),
    reason: r.reason,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}
