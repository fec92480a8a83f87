import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { appendEvent } from '../events/account-events';
import { releaseCash } from '../ledger/cash';
import { releaseShares } from '../ledger/shares';
import { heldBy } from '../ledger/transfers';
import { byId, notFound, OPEN, ORDER_COLUMNS, toView, UUID, type OrderRow, type OrderView } from './order-rows';

/** Expired per expiry pass at most (the rest go on the next pass, a fraction of a second later). */
const EXPIRE_BATCH = 500;

/** The reason an order its owner cancelled carries (cancel_order, cancel_all_orders). */
export const CANCELLED_BY_OWNER = 'cancelled by the owner';

/**
 * How a resting order ends without filling: cancelled by its owner, by its market closing or by its account's deletion,
 * or expired. Each close is one transaction, guarded by the order's open state under its row lock, that releases the
 * order's reservation through the ledger: a reservation leaves exactly once whichever of fill, cancel or expiry comes first.
 */
export class OrderLifecycle {
  constructor(private readonly db: Database) {}

  /** The owner cancels a resting order; its reservation is released. An order no longer open cannot be cancelled. */
  async cancel(userId: string, id: string, now: Date): Promise<OrderView> {
    const row = UUID.test(id) ? await byId(this.db, id) : undefined;
    if (!row || row.user_id !== userId) throw notFound(id);
    const closed = await this.close(id, 'cancelled', CANCELLED_BY_OWNER, now);
    if (!closed) {
      const now2 = (await byId(this.db, id))!;
      throw new AppError('CONFLICT', `Order ${id} is ${now2.state}; only an open order can be cancelled.`, { hint: 'Read it with get_order.' });
    }
    return toView(closed);
  }

  /**
   * GTD orders past expiresAt: expired, reservation released. Found through orders_open_expiring; run by the
   * expiry ticker (OrderExpiry, within a second of expiresAt) and after each sync. Safe in every process at once:
   * each close is guarded by the order's open state under its row lock.
   */
  async expireDue(now: Date): Promise<number> {
    let n = 0;
    for (;;) {
      const due = await this.db.query<{ id: string }>(
        `SELECT id FROM orders WHERE state IN ${OPEN} AND expires_at <= $1 ORDER BY expires_at LIMIT ${EXPIRE_BATCH}`,
        [now],
        'orders_expiring',
      );
      let closed = 0;
      for (const { id } of due) if (await this.close(id, 'expired', 'expiresAt passed', now)) closed += 1;
      n += closed;
      // Another process may be closing the same batch: stop when a pass closed nothing new.
      if (due.length < EXPIRE_BATCH || closed === 0) return n;
    }
  }

  /** Resting orders of markets that closed, resolved or were voided: cancelled, reservations released. */
  async cancelClosedMarkets(now: Date): Promise<number> {
    const dead = await this.db.query<{ id: string; status: string }>(
      `SELECT o.id, m.status FROM orders o JOIN markets m ON m.id = o.market_id WHERE o.state IN ${OPEN} AND m.status <> 'active'`,
    );
    let n = 0;
    for (const { id, status } of dead) if (await this.close(id, 'cancelled', `market ${status}`, now)) n += 1;
    return n;
  }

  /**
   * Every open order of an account (only one market's with `marketId`), cancelled oldest first, each in its own close;
   * the ids of those this call closed (one a fill or another cancel ended first is not among them). After an account is
   * deleted (its books stay, its orders stop) and for the owner's cancel_all_orders.
   */
  async cancelAllOf(userId: string, reason: string, now: Date, marketId?: string): Promise<string[]> {
    const open = await this.db.query<{ id: string }>(
      `SELECT id FROM orders WHERE user_id = $1 AND state IN ${OPEN} AND ($2::text IS NULL OR market_id = $2) ORDER BY created_at, id`,
      [userId, marketId ?? null],
    );
    const closed: string[] = [];
    for (const { id } of open) if (await this.close(id, 'cancelled', reason, now)) closed.push(id);
    return closed;
  }

  /** Ends an open order with `state`, releasing its reservation; undefined when it was no longer open. */
  async close(id: string, state: 'cancelled' | 'expired', reason: string, now: Date): Promise<OrderRow | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.id = $1 AND o.state IN ${OPEN} FOR UPDATE OF o`, [id]);
      return rows[0] ? closeIn(tx, rows[0], state, reason, now) : undefined;
    });
  }

  /**
   * A settling position's hold on its shares: its open sell orders, locked now (settlement takes them before the account
   * row, as every order path takes an order before it); the returned step cancels them, releasing their shares, once
   * settlement (or the owner's close) holds the position. So a position never settles or closes with shares still
   * reserved. The step answers the ids it cancelled, each with `reason`.
   */
  async holdsOn(tx: Queryable, positionId: string, reason: string): Promise<(now: Date) => Promise<string[]>> {
    // Through orders_open_by_price (the position's token, side SELL): no scan of the orders at each settled position.
    const rows = await tx.query<OrderRow>(
      `SELECT ${ORDER_COLUMNS} FROM orders o
       WHERE o.token_id = (SELECT token_id FROM positions WHERE id = $1) AND o.side = 'SELL' AND o.state IN ${OPEN} AND o.position_id = $1
       ORDER BY o.id FOR UPDATE OF o`,
      [positionId],
      'orders_holding_position',
    );
    return async (now) => {
      for (const o of rows) await closeIn(tx, o, 'cancelled', reason, now);
      return rows.map((o) => o.id);
    };
  }
}

/** Ends the open order `o` (its row locked in `tx`) with `state`, releasing its reservation through the ledger. */
async function closeIn(tx: Queryable, o: OrderRow, state: 'cancelled' | 'expired', reason: string, now: Date): Promise<OrderRow> {
  await tx.query(`UPDATE orders SET state = $2, reason = $3, updated_at = $4 WHERE id = $1`, [o.id, state, reason, now]);
  // The release below voids what it holds; the event (sent first, as before) shows the order as it ends.
  const after: OrderRow = { ...(await byId(tx, o.id))!, held_micro: 0n };
  await appendEvent(tx, o.user_id, state === 'expired' ? 'order.expired' : 'order.cancelled', toView(after), now);
  await releaseHeld(tx, o, now);
  return after;
}

/**
 * Voids all that order `o` (its row locked in `tx`) holds: cash of a buy, shares of a sell. What it holds is read again
 * here, in a statement of its own: the statement that locked the row, had it waited for a fill's commit, still summed the
 * order's transfers as they stood when it began (PostgreSQL's read committed), and would release what the fill had used.
 */
export async function releaseHeld(tx: Queryable, o: OrderRow, now: Date): Promise<void> {
  const held = await heldBy(tx, o.id);
  if (held <= 0n) return;
  if (o.side === 'BUY') await releaseCash(tx, o.user_id, held, now, o.id);
  else await releaseShares(tx, o.position_id!, held, o.id, now);
}
