import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import { toMicro, type Micro } from '../money/micro';
import { appendEvent } from '../events/account-events';
import { reserveCash } from '../ledger/cash';
import { reserveShares } from '../ledger/shares';
import type { PriceChange, PriceService } from '../trading/price-service';
import type { TradeHooks } from '../trading/trade-hooks';
import { marketIdOf } from '../trading/market-ref';
import { marketClosed, type IntentForecast, type TradeEngine } from '../trading/engine';
import { fillOrder } from './order-fill';
import { CANCELLED_BY_OWNER, OrderLifecycle, releaseHeld } from './order-lifecycle';
import { planAmend, planPlacement, type PlacementPlan } from './order-plan';
import { bookHash, byClientId, byId, lockedWithHeld, notFound, ORDER_COLUMNS, toView, UUID, type OrderRow, type OrderView, type Quote } from './order-rows';
import { buyReservation, copyDepth, OPEN_STATES, unitOf, type OrderSide, type OrderState, type SizedBy, type TimeInForce } from './order-rules';
import { RestingFills } from './resting-fills';

export type { OrderView } from './order-rows';

export interface PlaceOrder {
  tokenId: string;
  side: OrderSide;
  limitPrice: number;
  /** In the order's unit: dollars to spend (a BUY by amount) or shares (to sell, or to buy with sizedBy 'shares'). */
  size: number;
  /** The unit of size; absent: its side's own (amount of a BUY, shares of a SELL). */
  sizedBy?: SizedBy;
  timeInForce: TimeInForce;
  expiresAt?: string;
  clientOrderId?: string;
}

/** An amend of a resting order: its new limit price and/or new total size (filled part included); omitted: unchanged. */
export interface ReplaceOrder {
  limitPrice?: number;
  size?: number;
}

/** Stores an idempotent call's response in the order's own transaction (invoke's Idempotency-Key handling). */
export type CompleteIdempotent = (tx: Queryable, response: unknown) => Promise<void>;

const SORT = 'newest';

/**
 * Limit orders, in three parts: placement here (a pure plan from the order and the book, order-plan.ts, carried out in
 * one transaction), resting fills (resting-fills.ts: one eligibility rule, at each price change and after each sync),
 * and the lifecycle of an order that ends without filling (order-lifecycle.ts: cancel, expiry, a closed market, a
 * deleted account). Every fill goes through the one trade path (order-fill.ts); every reservation is held, consumed and
 * released through the ledger (src/domain/ledger/). Each state change appends its account event (order.*, and
 * 'balance' when a reservation moves available cash) in its own transaction.
 */
export class OrderService {
  private readonly fills: RestingFills;
  private readonly lifecycle: OrderLifecycle;

  constructor(
    private readonly db: Database,
    private readonly prices: PriceService,
    private readonly path: TradeEngine,
    private readonly hooks: TradeHooks,
    log: Logger,
    /** A price older than this (PRICE_MAX_AGE_S) fills nothing, as a trade never fills at a stale price. */
    maxAgeS: number,
  ) {
    this.fills = new RestingFills(db, prices, path, hooks, log, maxAgeS);
    this.lifecycle = new OrderLifecycle(db);
  }

  /**
   * A new order: what can fill now fills through the trade path (order-rules take(): the whole without published depth,
   * no more than the book shows with it); the rest of a GTC/GTD order rests holding a reservation, IOC cancels it, FOK
   * refuses anything short of whole. With a published book, the plan is made again in the transaction against what the
   * book still shows once earlier fills (in any process) are counted (claimBook). The intent's stated forecast, if any,
   * is recorded by the engine with the order's fill now, or with the resting order when nothing fills now; a rejected
   * order (or a repeated clientOrderId) records none.
   */
  async place(userId: string, input: PlaceOrder, now: Date, complete?: CompleteIdempotent, forecast?: IntentForecast): Promise<OrderView> {
    const order = {
      side: input.side,
      limitMicro: toMicro(input.limitPrice),
      sizeMicro: toMicro(input.size),
      timeInForce: input.timeInForce,
      sizedBy: unitOf(input.side, input.sizedBy),
    };
    if (order.side === 'SELL' && order.sizedBy !== 'shares') throw new AppError('VALIDATION_ERROR', 'a SELL order is sized by shares.');
    const expiresAt = expiryOf(input, now);
    if (input.clientOrderId !== undefined) {
      const first = await byClientId(this.db, userId, input.clientOrderId);
      if (first) return toView(first);
    }
    const tokens = await this.db.query<{ market_id: string; outcome: 'YES' | 'NO'; status: string }>(
      'SELECT t.market_id, t.outcome, m.status FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1',
      [input.tokenId],
    );
    const token = tokens[0];
    if (!token) throw new AppError('NOT_FOUND', `Token ${input.tokenId} not found.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets.' });
    if (token.status !== 'active') throw marketClosed(token.status);
    const quote = await this.quoteFor(input);
    // Refuses an order too small to buy anything before the transaction; without depth it is the plan.
    const early = planPlacement(order, quote);

    const id = randomUUID();
    const placed = await this.db.transaction(async (tx) => {
      const market = await tx.query<{ status: string }>('SELECT status FROM markets WHERE id = $1 FOR SHARE', [token.market_id]);
      if (market[0]!.status !== 'active') throw marketClosed(market[0]!.status);
      // The book record is locked after the market and before the account, as in the resting fills.
      const claimed = quote?.depth ? await this.fills.claimBook(tx, input.tokenId, quote) : null;
      const plan = quote?.depth ? planPlacement(order, claimed) : early;
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const inserted = await tx.query<OrderRow>(
        `INSERT INTO orders (id, user_id, client_order_id, market_id, token_id, outcome, side, limit_price_micro, size_micro, time_in_force,
           expires_at, state, created_at, updated_at, sized_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'open', $12, $12, $13)
         ON CONFLICT (user_id, client_order_id) WHERE client_order_id IS NOT NULL DO NOTHING RETURNING *, 0::bigint AS held_micro`,
        [
          id,
          userId,
          input.clientOrderId ?? null,
          token.market_id,
          input.tokenId,
          token.outcome,
          input.side,
          order.limitMicro,
          order.sizeMicro,
          input.timeInForce,
          expiresAt,
          now,
          order.sizedBy,
        ],
      );
      // A concurrent first order with the same clientOrderId committed meanwhile: that one is the answer.
      if (!inserted[0]) return { view: toView((await byClientId(tx, userId, input.clientOrderId!))!), traded: false };
      await appendEvent(tx, userId, 'order.accepted', toView(inserted[0]), now);
      await this.carryOut(tx, inserted[0], plan, now, forecast);
      if (claimed && 'take' in plan) await this.fills.recordTaken(tx, input.tokenId, quote!, { ...claimed, depth: plan.left });
      const view = toView((await byId(tx, id))!);
      if (complete) await complete(tx, { order: view });
      return { view, traded: 'take' in plan };
    });
    if (placed.traded) this.hooks.committed();
    return placed.view;
  }

  /**
   * The owner amends a resting order's limit price and/or total size, keeping its id, its time in force, expiry and
   * place in time. One transaction under the order's row lock (the lock a fill, a cancel or an expiry takes first, so
   * an amend and a fill of one order never interleave): the old reservation is released and the order planned again as
   * a new order of its unfilled rest would be (planAmend): what now crosses the book fills through the trade path, the
   * rest takes its new reservation. Refused with nothing changed when available cash or shares do not cover it
   * (INSUFFICIENT_BALANCE / VALIDATION_ERROR), when the order is no longer open (CONFLICT) or its market closed.
   */
  async replace(userId: string, id: string, change: ReplaceOrder, now: Date, complete?: CompleteIdempotent): Promise<OrderView> {
    if (change.limitPrice === undefined && change.size === undefined)
      throw new AppError('VALIDATION_ERROR', 'Give limitPrice, size or both: the new terms of the order.');
    const found = UUID.test(id) ? await byId(this.db, id) : undefined;
    if (!found || found.user_id !== userId) throw notFound(id);
    const want = {
      ...(change.limitPrice !== undefined ? { limitMicro: toMicro(change.limitPrice) } : {}),
      ...(change.size !== undefined ? { sizeMicro: toMicro(change.size) } : {}),
    };
    if (OPEN_STATES.includes(found.state)) planAmend(amendedOf(found), want, null); // a size at or below what filled is refused before any quote
    const quote = OPEN_STATES.includes(found.state) ? await this.quoteFor({ tokenId: found.token_id, timeInForce: found.time_in_force }) : null;
    const done = await this.db.transaction(async (tx) => {
      // The order (locked), with its market (shared: it cannot close meanwhile), as a resting fill takes them; what it
      // holds is read again once the lock is held (lockedWithHeld), so an amend that waited for a fill sees what the fill left.
      const rows = await lockedWithHeld(
        tx,
        tx.query<OrderRow & { market_status: string }>(
          `SELECT ${ORDER_COLUMNS}, m.status AS market_status FROM orders o JOIN markets m ON m.id = o.market_id WHERE o.id = $1 FOR UPDATE OF o FOR SHARE OF m`,
          [id],
        ),
        [id],
      );
      const o = rows[0]!;
      if (!OPEN_STATES.includes(o.state) || (o.expires_at !== null && new Date(o.expires_at).getTime() <= now.getTime())) {
        const state = OPEN_STATES.includes(o.state) ? 'expired' : o.state;
        throw new AppError('CONFLICT', `Order ${id} is ${state}; only an open order can be replaced.`, { hint: 'Read it with get_order.' });
      }
      if (o.market_status !== 'active') throw marketClosed(o.market_status);
      const claimed = quote?.depth ? await this.fills.claimBook(tx, o.token_id, quote) : null;
      const amend = planAmend(amendedOf(o), want, quote?.depth ? claimed : quote);
      if (amend === null) {
        // Nothing to change: the order as it stands.
        const same = toView(o);
        if (complete) await complete(tx, { order: same });
        return { view: same, traded: false };
      }
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      // The old reservation leaves whole (what the ledger says it holds); the plan below takes the new one (and any fill spends from available).
      await releaseHeld(tx, o, now);
      await tx.query('UPDATE orders SET limit_price_micro = $2, size_micro = $3, updated_at = $4 WHERE id = $1', [id, amend.limitMicro, amend.sizeMicro, now]);
      const amended = (await byId(tx, id))!;
      await appendEvent(tx, userId, 'order.replaced', toView(amended), now);
      await this.carryOut(tx, amended, amend.plan, now);
      if (claimed && 'take' in amend.plan) await this.fills.recordTaken(tx, o.token_id, quote!, { ...claimed, depth: amend.plan.left });
      const view = toView((await byId(tx, id))!);
      if (complete) await complete(tx, { order: view });
      return { view, traded: 'take' in amend.plan };
    });
    if (done.traded) this.hooks.committed();
    return done.view;
  }

  async get(userId: string, id: string): Promise<OrderView> {
    const row = UUID.test(id) ? await byId(this.db, id) : undefined;
    if (!row || row.user_id !== userId) throw notFound(id);
    return toView(row);
  }

  /** `states`: only orders in one of these (an A2A task state spans several order states: working = open or partially filled). */
  async list(
    userId: string,
    q: { state?: OrderState; states?: readonly OrderState[]; limit: number; cursor?: string },
  ): Promise<{ orders: OrderView[]; nextCursor: string | null }> {
    const params: unknown[] = [userId, q.limit + 1];
    const param = (v: unknown) => `$${params.push(v)}`;
    let where = 'user_id = $1';
    if (q.state !== undefined) where += ` AND state = ${param(q.state)}`;
    if (q.states !== undefined) where += ` AND state = ANY(${param([...q.states])}::text[])`;
    if (q.cursor !== undefined) {
      const c = decodeCursor(
        q.cursor,
        SORT,
        (k) => TIMESTAMP_TEXT.test(k),
        'Pass nextCursor from the previous page unchanged.',
        (i) => UUID.test(i),
      );
      where += ` AND (created_at, id) < (${param(c.k)}::timestamptz, ${param(c.i)}::uuid)`;
    }
    const rows = await this.db.query<OrderRow>(
      `SELECT ${ORDER_COLUMNS}, o.created_at::text AS created_key FROM orders o WHERE ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT $2`,
      params,
    );
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      orders: page.map(toView),
      nextCursor: rows.length > q.limit && last ? encodeCursor({ s: SORT, k: last.created_key!, i: last.id }) : null,
    };
  }

  /** The owner cancels a resting order; its reservation is released. An order no longer open cannot be cancelled. */
  cancel(userId: string, id: string, now: Date): Promise<OrderView> {
    return this.lifecycle.cancel(userId, id, now);
  }

  /** Price changes the service saw: the resting orders each crosses fill (RestingFills.onPriceChanges). */
  onPriceChanges(changes: PriceChange[], now: Date): Promise<number> {
    return this.fills.onPriceChanges(changes, now);
  }

  /** Fills one resting order if it is still open and the quote (default: the mirrored book) crosses it. */
  fillResting(id: string, now: Date, quote?: Quote): Promise<boolean> {
    return this.fills.fillResting(id, now, quote);
  }

  /** GTD orders past expiresAt: expired, reservations released. */
  expireDue(now: Date): Promise<number> {
    return this.lifecycle.expireDue(now);
  }

  /** Resting orders of markets that closed, resolved or were voided: cancelled, reservations released. */
  cancelClosedMarkets(now: Date): Promise<number> {
    return this.lifecycle.cancelClosedMarkets(now);
  }

  /** Every open order of an account, cancelled (after the account is deleted: its books stay, its orders stop). */
  async cancelAllOf(userId: string, reason: string, now: Date): Promise<number> {
    return (await this.lifecycle.cancelAllOf(userId, reason, now)).length;
  }

  /**
   * The owner cancels all their resting orders, or one market's (`marketId`: its id or slug; NOT_FOUND when unknown),
   * each released through the same close as cancel(); the ids cancelled, oldest first (none on a repeat).
   */
  async cancelAll(userId: string, now: Date, marketId?: string): Promise<string[]> {
    const market = marketId === undefined ? undefined : await marketIdOf(this.db, marketId, { hint: 'Use Order.marketId from list_orders.' });
    return this.lifecycle.cancelAllOf(userId, CANCELLED_BY_OWNER, now, market);
  }

  /** A settling or closing position's resting sell orders: locked now, cancelled by the returned step (OrderLifecycle.holdsOn). */
  holdsOn(tx: Queryable, positionId: string, reason: string): Promise<(now: Date) => Promise<string[]>> {
    return this.lifecycle.holdsOn(tx, positionId, reason);
  }

  /** The after-sync work: close what must close first (so no fill runs on a closed market), then fill what crossed. */
  async afterSync(now: Date): Promise<{ cancelled: number; expired: number; filled: number }> {
    const cancelled = await this.lifecycle.cancelClosedMarkets(now);
    const expired = await this.lifecycle.expireDue(now);
    const filled = await this.fills.fillCrossed(now);
    return { cancelled, expired, filled };
  }

  /** The live quote an order is planned against; null when no fresh price exists and the order may simply rest (GTC/GTD). */
  private async quoteFor(input: Pick<PlaceOrder, 'tokenId' | 'timeInForce'>): Promise<Quote | null> {
    try {
      const live = await this.prices.live(input.tokenId);
      return {
        bidMicro: live.bidMicro,
        askMicro: live.askMicro,
        asOf: live.asOf,
        ...(live.depth ? { depth: copyDepth(live.depth), bookHash: bookHash(live.depth) } : {}),
      };
    } catch (err) {
      // IOC and FOK need a price now.
      if (!(err instanceof AppError && err.code === 'PRICE_UNAVAILABLE') || input.timeInForce === 'IOC' || input.timeInForce === 'FOK') throw err;
      return null;
    }
  }

  /**
   * Carries out a placement plan on the new order `o` (its row as inserted) in the placing transaction. A new order's
   * `forecast` goes with its fill into the engine's intent; an order that does not fill now records it as it rests
   * (or is cancelled unfilled, IOC), never when rejected.
   */
  private async carryOut(tx: Queryable, o: OrderRow, plan: PlacementPlan, now: Date, forecast?: IntentForecast): Promise<void> {
    if ('take' in plan) await fillOrder(tx, this.path, o, plan.take, now, 0n, forecast);
    else if (forecast && !(plan.kind === 'end' && plan.state === 'rejected')) await forecast.record(tx);
    if (plan.kind === 'rest' || plan.kind === 'fill-rest') await this.reserve(tx, o, plan.restMicro, now);
    if (plan.kind === 'end' || plan.kind === 'fill-cancel') {
      const state: OrderState = plan.kind === 'end' ? plan.state : 'cancelled';
      await tx.query(`UPDATE orders SET state = $2, reason = $3, updated_at = $4 WHERE id = $1`, [o.id, state, plan.reason, now]);
      await appendEvent(tx, o.user_id, state === 'rejected' ? 'order.rejected' : 'order.cancelled', toView((await byId(tx, o.id))!), now);
    }
  }

  /**
   * The resting part of a new order (`size` in its unit) holds its reservation: cash of a buy (buyReservation: the dollars
   * of a buy by amount, the worst-case cost of one in shares), shares of a sell (through the ledger).
   */
  private async reserve(tx: Queryable, o: OrderRow, size: Micro, now: Date): Promise<void> {
    if (o.side === 'BUY') {
      const cash = buyReservation(o.sized_by, size, BigInt(o.limit_price_micro));
      await reserveCash(tx, o.user_id, cash, now, o.id);
      return;
    }
    const positionId = await reserveShares(tx, o.user_id, o.token_id, size, o.id, now);
    await tx.query('UPDATE orders SET position_id = $2 WHERE id = $1', [o.id, positionId]);
  }
}

/** An order row's terms as planAmend() reads them. */
function amendedOf(o: OrderRow) {
  return {
    side: o.side,
    limitMicro: BigInt(o.limit_price_micro),
    sizeMicro: BigInt(o.size_micro),
    filledSizeMicro: BigInt(o.filled_size_micro),
    timeInForce: o.time_in_force,
    sizedBy: o.sized_by,
  };
}

/** A GTD order's expiry (required, in the future); none for the other times in force. */
function expiryOf(input: PlaceOrder, now: Date): Date | null {
  if (input.timeInForce !== 'GTD') {
    if (input.expiresAt !== undefined)
      throw new AppError('VALIDATION_ERROR', 'expiresAt is only for GTD orders.', { hint: 'Use timeInForce GTD, or omit expiresAt.' });
    return null;
  }
  if (input.expiresAt === undefined) throw new AppError('VALIDATION_ERROR', 'expiresAt is required for a GTD order.');
  const expiresAt = new Date(input.expiresAt);
  if (!(expiresAt.getTime() > now.getTime())) throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future.');
  return expiresAt;
}
