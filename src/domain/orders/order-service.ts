import { createHash, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../../db/database';
import { decodeCursor, encodeCursor, TIMESTAMP_TEXT } from '../../db/keyset-cursor';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import { fromMicro, MICRO, toMicro, type Micro } from '../money/micro';
import { appendBalanceEvent, appendEvent, type AccountEventType } from '../events/account-events';
import { buyFill } from '../trading/fills';
import type { Depth, PriceChange, PriceService } from '../trading/price-service';
import type { TradeHooks } from '../trading/trade-hooks';
import { BUY_STATEMENT, buyParams } from '../trading/trade-sql';
import type { TradingService } from '../trading/trading-service';
import { afterTaken, copyDepth, onPlacement, sharesShown, take, type OrderSide, type OrderState, type Take, type TimeInForce } from './order-rules';

export interface PlaceOrder {
  tokenId: string;
  side: OrderSide;
  limitPrice: number;
  /** Dollars to spend (BUY) or shares to sell (SELL). */
  size: number;
  timeInForce: TimeInForce;
  expiresAt?: string;
  clientOrderId?: string;
}

interface OrderRow {
  id: string;
  user_id: string;
  client_order_id: string | null;
  market_id: string;
  token_id: string;
  outcome: 'YES' | 'NO';
  position_id: string | null;
  side: OrderSide;
  limit_price_micro: bigint;
  size_micro: bigint;
  time_in_force: TimeInForce;
  expires_at: Date | null;
  state: OrderState;
  filled_size_micro: bigint;
  filled_shares_micro: bigint;
  filled_cash_micro: bigint;
  reserved_cash_micro: bigint;
  reserved_shares_micro: bigint;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
  created_key?: string;
}

export type OrderView = ReturnType<typeof toView>;

/** A quote a resting order is checked against: bid, ask, when quoted, and the venue's book where it publishes one. */
interface Quote {
  bidMicro: Micro;
  askMicro: Micro;
  asOf: Date;
  depth?: Depth;
  /** With depth: which book it is (bookHash()), the key of what fills have taken from it (market_tokens.book_*). */
  bookHash?: string;
}

/** Stores an idempotent call's response in the order's own transaction (invoke's Idempotency-Key handling). */
export type CompleteIdempotent = (tx: Queryable, response: unknown) => Promise<void>;

const OPEN = `('open', 'partially_filled')`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SORT = 'newest';
/** Expired per expiry pass at most (the rest go on the next pass, a fraction of a second later). */
const EXPIRE_BATCH = 500;
/** Orders crossed by one price change filled per transaction at most. */
const FILL_BATCH = 100;
const notFound = (id: string) => new AppError('NOT_FOUND', `Order ${id} not found.`, { hint: 'List your orders with list_orders.' });

/**
 * Limit orders. A new order takes what can fill now (order-rules take(): the whole without published depth, no more
 * than the book shows with it) through the trade path of paper_trade / sell_position (BUY_STATEMENT and
 * TradingService.sellIn, with the trade hooks); the rest of a GTC/GTD order rests holding a reservation, IOC cancels
 * it, FOK refuses anything short of whole. Resting orders fill at each price change the service sees
 * (onPriceChanges: only the orders the new price crosses, through the index orders_open_by_price), expire
 * (expireDue), or are cancelled by their owner or by their market closing. Each state change appends its account
 * event (order.*, and 'balance' when a reservation moves available cash) in its own transaction.
 * What orders take from a published book is recorded on its token under the token row's lock in the fill's own
 * transaction (claimBook / recordTaken), so every process filling against one book takes no more than it showed.
 * Lock order: the order row, then the market (shared), then the token's book record (when the venue publishes
 * depth), then the account, then the position — as trades keep it.
 * Every state change of an order releases or consumes its reservation in the same transaction, guarded by the
 * order's open state, so a reservation leaves exactly once whichever of fill, cancel or expiry comes first.
 */
export class OrderService {
  /** Per token, the price changes being worked through (one at a time, so fills of one token keep time priority). */
  private readonly tokenQueues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly prices: PriceService,
    private readonly trading: TradingService,
    private readonly hooks: TradeHooks,
    private readonly log: Logger,
    /** A price older than this (PRICE_MAX_AGE_S) fills nothing, as a trade never fills at a stale price. */
    private readonly maxAgeS: number,
  ) {}

  async place(userId: string, input: PlaceOrder, now: Date, complete?: CompleteIdempotent): Promise<OrderView> {
    const limit = toMicro(input.limitPrice);
    const size = toMicro(input.size);
    let expiresAt: Date | null = null;
    if (input.timeInForce === 'GTD') {
      if (input.expiresAt === undefined) throw new AppError('VALIDATION_ERROR', 'expiresAt is required for a GTD order.');
      expiresAt = new Date(input.expiresAt);
      if (!(expiresAt.getTime() > now.getTime())) throw new AppError('VALIDATION_ERROR', 'expiresAt must be in the future.');
    } else if (input.expiresAt !== undefined) {
      throw new AppError('VALIDATION_ERROR', 'expiresAt is only for GTD orders.', { hint: 'Use timeInForce GTD, or omit expiresAt.' });
    }
    if (input.clientOrderId !== undefined) {
      const first = await this.byClientId(this.db, userId, input.clientOrderId);
      if (first) return toView(first);
    }
    const tokens = await this.db.query<{ market_id: string; outcome: 'YES' | 'NO'; status: string }>(
      'SELECT t.market_id, t.outcome, m.status FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1',
      [input.tokenId],
    );
    const token = tokens[0];
    if (!token) throw new AppError('NOT_FOUND', `Token ${input.tokenId} not found.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets.' });
    if (token.status !== 'active') throw marketClosed(token.status);

    // IOC and FOK need a price now; a GTC/GTD order placed while no fresh price exists simply rests.
    let quote: Quote | null = null;
    try {
      const live = await this.prices.live(input.tokenId);
      quote = {
        bidMicro: live.bidMicro,
        askMicro: live.askMicro,
        asOf: live.asOf,
        ...(live.depth ? { depth: copyDepth(live.depth), bookHash: bookHash(live.depth) } : {}),
      };
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'PRICE_UNAVAILABLE') || input.timeInForce === 'IOC' || input.timeInForce === 'FOK') throw err;
    }
    const decide = (q: Quote | null) => {
      let taken = q ? take(input.side, limit, size, q) : null;
      if (taken && input.side === 'BUY' && buyFill(taken.sizeMicro, taken.priceMicro).quantityMicro <= 0n) {
        if (taken.sizeMicro >= size) throw new AppError('VALIDATION_ERROR', 'size is too small to buy any share at the current price.');
        taken = null; // the book shows too little to buy one micro-share: nothing fills now
      }
      return { taken, action: onPlacement(input.timeInForce, taken?.sizeMicro ?? 0n, size) };
    };
    // Without depth this is the decision; with it, it is taken again in the transaction against what the book still
    // shows once earlier fills (in any process) are counted (claimBook).
    let { taken, action } = decide(quote && { ...quote, depth: copyDepth(quote.depth) });

    const id = randomUUID();
    let traded = false;
    const order = await this.db.transaction(async (tx) => {
      const market = await tx.query<{ status: string }>('SELECT status FROM markets WHERE id = $1 FOR SHARE', [token.market_id]);
      if (market[0]!.status !== 'active') throw marketClosed(market[0]!.status);
      // The book record is locked after the market and before the account, as in the resting fills.
      const claimed = quote?.depth ? await this.claimBook(tx, input.tokenId, quote) : null;
      if (quote?.depth) ({ taken, action } = decide(claimed));
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const inserted = await tx.query<OrderRow>(
        `INSERT INTO orders (id, user_id, client_order_id, market_id, token_id, outcome, side, limit_price_micro, size_micro, time_in_force,
           expires_at, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'open', $12, $12)
         ON CONFLICT (user_id, client_order_id) WHERE client_order_id IS NOT NULL DO NOTHING RETURNING *`,
        [id, userId, input.clientOrderId ?? null, token.market_id, input.tokenId, token.outcome, input.side, limit, size, input.timeInForce, expiresAt, now],
      );
      // A concurrent first order with the same clientOrderId committed meanwhile: that one is the answer.
      if (!inserted[0]) return (await this.byClientId(tx, userId, input.clientOrderId!))!;
      await appendEvent(tx, userId, 'order.accepted', toView(inserted[0]), now);
      if (action === 'fill' || action === 'fill-rest' || action === 'fill-cancel') {
        await this.fillIn(tx, inserted[0], taken!, now, 0n);
        if (claimed) await this.recordTaken(tx, input.tokenId, quote!, claimed);
        traded = true;
      }
      if (action === 'rest' || action === 'fill-rest') {
        await this.reserve(tx, userId, id, input.side, input.tokenId, size - (action === 'fill-rest' ? taken!.sizeMicro : 0n), now);
      } else if (action === 'cancel' || action === 'fill-cancel' || action === 'reject') {
        const reason =
          action === 'reject'
            ? 'FOK: the order could not fill whole at the limit'
            : action === 'cancel'
              ? 'IOC: nothing could fill at the limit'
              : 'IOC: the rest could not fill at the limit';
        const state = action === 'reject' ? 'rejected' : 'cancelled';
        await tx.query(`UPDATE orders SET state = $2, reason = $3, updated_at = $4 WHERE id = $1`, [id, state, reason, now]);
        await this.event(tx, id, action === 'reject' ? 'order.rejected' : 'order.cancelled', now);
      }
      const view = toView((await this.byId(tx, id))!);
      if (complete) await complete(tx, { order: view });
      return view;
    });
    if (traded) this.hooks.committed();
    return 'user_id' in order ? toView(order) : order;
  }

  async get(userId: string, id: string): Promise<OrderView> {
    const row = UUID.test(id) ? await this.byId(this.db, id) : undefined;
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
      `SELECT *, created_at::text AS created_key FROM orders WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $2`,
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
  async cancel(userId: string, id: string, now: Date): Promise<OrderView> {
    const row = UUID.test(id) ? await this.byId(this.db, id) : undefined;
    if (!row || row.user_id !== userId) throw notFound(id);
    const closed = await this.close(id, 'cancelled', 'cancelled by the owner', now);
    if (!closed) {
      const now2 = (await this.byId(this.db, id))!;
      throw new AppError('CONFLICT', `Order ${id} is ${now2.state}; only an open order can be cancelled.`, { hint: 'Read it with get_order.' });
    }
    return toView(closed);
  }

  /**
   * Price changes the service saw (a sync's changed tokens, a live quote that moved): per token, the resting orders
   * the new price crosses — one probe of orders_open_by_price per side, so a change that crosses nothing costs one
   * index lookup — each filled in its own transaction, oldest first. Where the venue publishes depth and the change
   * came without it (a mirrored listing), the token's book is fetched once for the orders it crosses.
   * Returns the number of orders that filled (wholly or partly).
   */
  async onPriceChanges(changes: PriceChange[], now: Date): Promise<number> {
    let filled = 0;
    for (const change of changes) {
      const prior = this.tokenQueues.get(change.tokenId) ?? Promise.resolve();
      const run = prior.then(() => this.onPriceChange(change, now));
      const tail = run.catch(() => undefined);
      this.tokenQueues.set(change.tokenId, tail);
      void tail.then(() => {
        if (this.tokenQueues.get(change.tokenId) === tail) this.tokenQueues.delete(change.tokenId);
      });
      try {
        filled += await run;
      } catch (err) {
        this.log.error('resting orders check failed', { tokenId: change.tokenId, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return filled;
  }

  /** The crossing check of one token at one price (see onPriceChanges). */
  async crossedBy(tokenId: string, bidMicro: Micro, askMicro: Micro): Promise<string[]> {
    const ask = askMicro > 0n && askMicro <= MICRO ? askMicro : null;
    const bid = bidMicro > 0n && bidMicro <= MICRO ? bidMicro : null;
    if (ask === null && bid === null) return [];
    // Each half walks orders_open_by_price (token, side, limit) from the crossing limit on; a missing side is skipped.
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM (
         (SELECT id, created_at FROM orders WHERE token_id = $1 AND side = 'BUY' AND state IN ${OPEN} AND limit_price_micro >= $2::bigint)
         UNION ALL
         (SELECT id, created_at FROM orders WHERE token_id = $1 AND side = 'SELL' AND state IN ${OPEN} AND limit_price_micro <= $3::bigint)
       ) o ORDER BY created_at, id`,
      [tokenId, ask, bid],
      'orders_crossed_by',
    );
    return rows.map((r) => r.id);
  }

  private async onPriceChange(change: PriceChange, now: Date): Promise<number> {
    const ids = await this.crossedBy(change.tokenId, change.bidMicro, change.askMicro);
    if (ids.length === 0) return 0;
    let quote: Quote = change;
    if (!change.depth && change.source === 'polymarket') {
      // The listing carries best prices only; the CLOB book says how much is there. Without one, fills are whole.
      try {
        const live = await this.prices.live(change.tokenId);
        if (live.depth) quote = live;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
      }
    }
    // What earlier fills took from this book (in any process) is read and added to under the token's row lock, in
    // each fill transaction (claimBook), so the one-by-one fallback below sees exactly what committed.
    if (quote.depth) quote = { ...quote, depth: copyDepth(quote.depth), bookHash: bookHash(quote.depth) };
    if (ids.length === 1) return (await this.fillResting(ids[0]!, now, quote)) ? 1 : 0;
    try {
      let filled = 0;
      for (let i = 0; i < ids.length; i += FILL_BATCH) filled += await this.fillTogether(change.tokenId, ids.slice(i, i + FILL_BATCH), now, quote);
      return filled;
    } catch (err) {
      // One refusal in the batch (a market closing under it): each order on its own, so the others still fill.
      this.log.warn('batch fill failed; filling one by one', { tokenId: change.tokenId, error: err instanceof Error ? err.message : String(err) });
    }
    let filled = 0;
    for (const id of ids) {
      try {
        if (await this.fillResting(id, now, quote)) filled += 1;
      } catch (err) {
        this.log.error('resting order fill failed', { orderId: id, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return filled;
  }

  /**
   * The orders one price change crossed (`ids`, oldest first), filled in one transaction: what each takes is decided
   * in time priority (sharing the book's depth), then every fill's statements go out together. One commit for all,
   * so fills keep pace with the trades. Locks: the orders (by id), their markets (shared), then their owners'
   * accounts in id order, before any account is written — the order-then-account order every order path keeps. With
   * depth, the token's book record is locked between the orders and the accounts (claimBook). Throws (changing
   * nothing) if any fill is refused; the caller then fills them one by one.
   */
  private async fillTogether(tokenId: string, ids: string[], now: Date, given: Quote): Promise<number> {
    const n = await this.db.transaction(async (tx) => {
      const locked = tx.query<OrderRow & { market_status: string }>(
        `SELECT o.*, m.status AS market_status FROM orders o JOIN markets m ON m.id = o.market_id
         WHERE o.id = ANY($1::uuid[]) AND o.state IN ${OPEN} ORDER BY o.id FOR UPDATE OF o FOR SHARE OF m`,
        [ids],
        'orders_fill_lock',
      );
      const claimed = given.depth ? this.claimBook(tx, tokenId, given) : Promise.resolve(given);
      // Sent right behind (one round trip): the owners' accounts, in id order, once the orders are held. An order's
      // owner never changes, so reading it here needs no lock; an account locked for an order that turns out not
      // to fill is only held until this transaction ends.
      const accounts = tx.query(
        'SELECT 1 FROM users WHERE id IN (SELECT user_id FROM orders WHERE id = ANY($1::uuid[])) ORDER BY id FOR UPDATE',
        [ids],
        'orders_fill_accounts',
      );
      const [rowsDone, claimDone, accountsDone] = await Promise.allSettled([locked, claimed, accounts]);
      if (rowsDone.status === 'rejected') throw rowsDone.reason;
      if (claimDone.status === 'rejected') throw claimDone.reason;
      if (accountsDone.status === 'rejected') throw accountsDone.reason;
      const rows = rowsDone.value;
      const byId = new Map(rows.map((r) => [r.id, r]));
      const quote = claimDone.value;
      if (quote === null || quote.asOf.getTime() < this.freshSince(now).getTime()) return 0;
      const fills: Array<{ o: OrderRow; t: Take; release: Micro }> = [];
      for (const id of ids) {
        const o = byId.get(id);
        if (!o || o.market_status !== 'active') continue;
        if (o.expires_at !== null && new Date(o.expires_at).getTime() <= now.getTime()) continue;
        const t = take(o.side, o.limit_price_micro, o.size_micro - o.filled_size_micro, quote);
        if (t === null) continue;
        if (o.side === 'BUY' && buyFill(t.sizeMicro, t.priceMicro).quantityMicro <= 0n) continue;
        const held = o.side === 'BUY' ? o.reserved_cash_micro : o.reserved_shares_micro;
        fills.push({ o, t, release: t.sizeMicro < held ? t.sizeMicro : held });
      }
      if (fills.length === 0) return 0;
      await this.recordTaken(tx, tokenId, given, quote);
      // An account with two fills here takes them one after the other (each fill reads its position and event seq).
      const perUser = new Map<string, typeof fills>();
      for (const f of fills) perUser.set(f.o.user_id, [...(perUser.get(f.o.user_id) ?? []), f]);
      const settled = await Promise.allSettled(
        [...perUser.values()].map(async (mine) => {
          for (const f of mine) await this.fillIn(tx, f.o, f.t, now, f.release);
        }),
      );
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return fills.length;
    });
    if (n > 0) this.hooks.committed();
    return n;
  }

  /**
   * Locks the token's record of its book (migrations 21, 24) inside `tx` and returns `quote` with the book as it stands
   * after what earlier fills took from it, or null when a newer, different book is recorded (this one is stale:
   * nothing fills). The same book (same hash) keeps what was taken from it; a newer one replaces it, nothing taken.
   * Taken with fills' row lock, so processes filling against one book take no more in total than it showed.
   */
  private async claimBook(tx: Queryable, tokenId: string, quote: Quote): Promise<Quote | null> {
    const depth = quote.depth!;
    const rows = await tx.query<{ bid_taken: bigint; ask_taken: bigint }>(
      `UPDATE market_tokens SET
         book_bid_taken_micro = CASE WHEN book_hash = $2 THEN book_bid_taken_micro ELSE 0 END,
         book_ask_taken_micro = CASE WHEN book_hash = $2 THEN book_ask_taken_micro ELSE 0 END,
         best_bid_size_micro = $3, best_ask_size_micro = $4,
         book_at = CASE WHEN book_at IS NULL OR book_at < $5 THEN $5 ELSE book_at END,
         book_hash = $2
       WHERE token_id = $1 AND (book_hash = $2 OR book_at IS NULL OR book_at < $5)
       RETURNING book_bid_taken_micro AS bid_taken, book_ask_taken_micro AS ask_taken`,
      [tokenId, quote.bookHash ?? bookHash(depth), depth.bids[0]?.sizeMicro ?? 0n, depth.asks[0]?.sizeMicro ?? 0n, quote.asOf],
      'claim_book',
    );
    const row = rows[0];
    if (!row) return null;
    return { ...quote, depth: afterTaken(depth, BigInt(row.bid_taken), BigInt(row.ask_taken)) };
  }

  /** Records what this transaction's takes left of the claimed book (`book`, consumed in place) as taken from `shown`. */
  private async recordTaken(tx: Queryable, tokenId: string, shown: Quote, book: Quote): Promise<void> {
    if (!shown.depth || !book.depth) return;
    await tx.query(
      'UPDATE market_tokens SET book_bid_taken_micro = $2, book_ask_taken_micro = $3 WHERE token_id = $1',
      [tokenId, sharesShown(shown.depth.bids) - sharesShown(book.depth.bids), sharesShown(shown.depth.asks) - sharesShown(book.depth.asks)],
      'record_book_taken',
    );
  }

  /**
   * After a price sync, a sweep over every synced token (the per-change path normally got there first): catches a
   * mirrored price that was written without passing through a price change, e.g. by hand. Per token, one probe of
   * orders_open_by_price per side — never a scan of the resting orders.
   */
  async fillCrossed(now: Date): Promise<number> {
    // OFFSET 0 keeps each probe a lateral index walk (flattened, the planner prefers a hash join over every open order).
    const crossed = await this.db.query<{ id: string }>(
      `SELECT o.id FROM market_tokens t JOIN markets m ON m.id = t.market_id AND m.status = 'active'
         CROSS JOIN LATERAL (
           (SELECT b.id, b.created_at FROM orders b WHERE b.token_id = t.token_id AND b.side = 'BUY' AND b.state IN ${OPEN}
              AND b.limit_price_micro >= coalesce(t.ask_micro, t.price_micro) OFFSET 0)
           UNION ALL
           (SELECT s.id, s.created_at FROM orders s WHERE s.token_id = t.token_id AND s.side = 'SELL' AND s.state IN ${OPEN}
              AND s.limit_price_micro <= coalesce(t.bid_micro, t.price_micro) OFFSET 0)
         ) o
       WHERE t.price_micro IS NOT NULL AND t.price_at >= $1
       ORDER BY o.created_at, o.id`,
      [this.freshSince(now)],
    );
    let filled = 0;
    for (const { id } of crossed) {
      try {
        if (await this.fillResting(id, now)) filled += 1;
      } catch (err) {
        this.log.error('resting order fill failed', { orderId: id, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return filled;
  }

  /**
   * Fills one resting order, wholly or partly, if it is still open and `quote` (default: the mirrored book) crosses
   * it; false when nothing filled. The quote's depth, if any, is consumed by what this order takes.
   */
  async fillResting(id: string, now: Date, quote?: Quote): Promise<boolean> {
    const done = await this.db.transaction(async (tx) => {
      // The order (locked: fill, cancel and expiry are decided under this lock) with its market (shared: it cannot close meanwhile).
      const rows = await tx.query<OrderRow & { market_status: string; bid: bigint | null; ask: bigint | null; price_at: Date | null }>(
        `SELECT o.*, m.status AS market_status, coalesce(t.bid_micro, t.price_micro) AS bid, coalesce(t.ask_micro, t.price_micro) AS ask, t.price_at
         FROM orders o JOIN market_tokens t ON t.token_id = o.token_id JOIN markets m ON m.id = o.market_id
         WHERE o.id = $1 AND o.state IN ${OPEN} FOR UPDATE OF o FOR SHARE OF m`,
        [id],
        'order_fill_lock',
      );
      const o = rows[0];
      if (!o) return false; // cancelled, expired or filled first
      if (o.expires_at !== null && new Date(o.expires_at).getTime() <= now.getTime()) return false; // expiry takes it
      if (o.market_status !== 'active') return false;
      const given: Quote | null =
        quote ?? (o.bid !== null && o.ask !== null && o.price_at !== null ? { bidMicro: o.bid, askMicro: o.ask, asOf: new Date(o.price_at) } : null);
      if (given === null || given.asOf.getTime() < this.freshSince(now).getTime()) return false;
      const q = given.depth ? await this.claimBook(tx, o.token_id, given) : given;
      if (q === null) return false;
      const t = take(o.side, o.limit_price_micro, o.size_micro - o.filled_size_micro, q);
      if (t === null) return false;
      if (o.side === 'BUY' && buyFill(t.sizeMicro, t.priceMicro).quantityMicro <= 0n) return false;
      await this.recordTaken(tx, o.token_id, given, q);
      const held = o.side === 'BUY' ? o.reserved_cash_micro : o.reserved_shares_micro;
      await this.fillIn(tx, o, t, now, t.sizeMicro < held ? t.sizeMicro : held);
      return true;
    });
    if (done) this.hooks.committed();
    return done;
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

  /** Every open order of an account, cancelled (after the account is deleted: its books stay, its orders stop). */
  async cancelAllOf(userId: string, reason: string, now: Date): Promise<number> {
    const open = await this.db.query<{ id: string }>(`SELECT id FROM orders WHERE user_id = $1 AND state IN ${OPEN}`, [userId]);
    let n = 0;
    for (const { id } of open) if (await this.close(id, 'cancelled', reason, now)) n += 1;
    return n;
  }

  /** The after-sync work: close what must close first (so no fill runs on a closed market), then fill what crossed. */
  async afterSync(now: Date): Promise<{ cancelled: number; expired: number; filled: number }> {
    const cancelled = await this.cancelClosedMarkets(now);
    const expired = await this.expireDue(now);
    const filled = await this.fillCrossed(now);
    return { cancelled, expired, filled };
  }

  /** Ends an open order with `state`, releasing its reservation; undefined when it was no longer open. */
  private async close(id: string, state: 'cancelled' | 'expired', reason: string, now: Date): Promise<OrderRow | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<OrderRow>(`SELECT * FROM orders WHERE id = $1 AND state IN ${OPEN} FOR UPDATE`, [id]);
      const o = rows[0];
      if (!o) return undefined;
      if (o.reserved_cash_micro > 0n) await tx.query('UPDATE users SET reserved_micro = reserved_micro - $2 WHERE id = $1', [o.user_id, o.reserved_cash_micro]);
      if (o.reserved_shares_micro > 0n)
        await tx.query('UPDATE positions SET reserved_micro = reserved_micro - $2 WHERE id = $1', [o.position_id, o.reserved_shares_micro]);
      await tx.query(`UPDATE orders SET state = $2, reason = $3, reserved_cash_micro = 0, reserved_shares_micro = 0, updated_at = $4 WHERE id = $1`, [
        id,
        state,
        reason,
        now,
      ]);
      const after = (await this.byId(tx, id))!;
      await appendEvent(tx, o.user_id, state === 'expired' ? 'order.expired' : 'order.cancelled', toView(after), now);
      if (o.reserved_cash_micro > 0n) await appendBalanceEvent(tx, o.user_id, now);
      return after;
    });
  }

  private async reserve(tx: Queryable, userId: string, id: string, side: OrderSide, tokenId: string, size: Micro, now: Date): Promise<void> {
    if (side === 'BUY') {
      const ok = await tx.query('UPDATE users SET reserved_micro = reserved_micro + $2 WHERE id = $1 AND balance_micro - reserved_micro >= $2 RETURNING id', [
        userId,
        size,
      ]);
      if (!ok[0]) throw new AppError('INSUFFICIENT_BALANCE', `Insufficient available balance to reserve ${fromMicro(size)} dollars.`, insufficientHint);
      await tx.query('UPDATE orders SET reserved_cash_micro = $2 WHERE id = $1', [id, size]);
      await appendBalanceEvent(tx, userId, now);
      return;
    }
    const pos = await tx.query<{ id: string }>(
      `UPDATE positions SET reserved_micro = reserved_micro + $3
       WHERE user_id = $1 AND token_id = $2 AND NOT is_closed AND quantity_micro - reserved_micro >= $3 RETURNING id`,
      [userId, tokenId, size],
    );
    if (!pos[0]) throw sharesShort(size);
    await tx.query('UPDATE orders SET reserved_shares_micro = $2, position_id = $3 WHERE id = $1', [id, size, pos[0].id]);
  }

  /**
   * Fills `t` of order `o` (its row as locked) inside `tx` (t.sizeMicro in the order's unit at t.priceMicro), first
   * releasing `release` of its reservation (a resting order consumes what it held for the part that fills). Buys run
   * paper_trade's statement and hooks; sells run sell_position's path. Appends order.filled or order.partially_filled.
   * A buy's statements are all known up front, so they go out together (one round trip on a pipelined connection);
   * a refused buy throws and the transaction takes them all back.
   */
  private async fillIn(tx: Queryable, o: OrderRow, t: Take, now: Date, release: Micro): Promise<void> {
    const sent: Array<Promise<unknown>> = [];
    let shares: Micro;
    let cash: Micro;
    let bought: Promise<Array<{ market_ok: boolean; balance_micro: bigint | null }>> | undefined;
    if (o.side === 'BUY') {
      if (release > 0n) sent.push(tx.query('UPDATE users SET reserved_micro = reserved_micro - $2 WHERE id = $1', [o.user_id, release], 'order_release_cash'));
      const fill = buyFill(t.sizeMicro, t.priceMicro);
      bought = tx.query<{ market_ok: boolean; balance_micro: bigint | null }>(
        BUY_STATEMENT,
        buyParams({
          userId: o.user_id,
          marketId: o.market_id,
          tokenId: o.token_id,
          amountMicro: t.sizeMicro,
          quantityMicro: fill.quantityMicro,
          priceMicro: fill.priceMicro,
          outcome: o.outcome,
          at: now,
        }),
        'buy',
      );
      sent.push(bought);
      sent.push(
        this.hooks.afterTrade(tx, {
          userId: o.user_id,
          side: 'BUY',
          marketId: o.market_id,
          tokenId: o.token_id,
          quantityMicro: fill.quantityMicro,
          cashMicro: t.sizeMicro,
          realizedPnlMicro: 0n,
          at: now,
        }),
      );
      shares = fill.quantityMicro;
      cash = t.sizeMicro;
    } else {
      let pos = o.position_id;
      if (pos === null) {
        const held = await tx.query<{ id: string }>('SELECT id FROM positions WHERE user_id = $1 AND token_id = $2 AND NOT is_closed', [o.user_id, o.token_id]);
        if (!held[0]) throw sharesShort(t.sizeMicro);
        pos = held[0].id;
      }
      const { fill } = await this.trading.sellIn(tx, o.user_id, pos, t.sizeMicro, t.priceMicro, now, release);
      shares = fill.quantityMicro;
      cash = fill.proceedsMicro;
    }
    const filledSize = o.filled_size_micro + t.sizeMicro;
    const after: OrderRow = {
      ...o,
      state: filledSize >= o.size_micro ? 'filled' : 'partially_filled',
      filled_size_micro: filledSize,
      filled_shares_micro: o.filled_shares_micro + shares,
      filled_cash_micro: o.filled_cash_micro + cash,
      reserved_cash_micro: o.side === 'BUY' ? o.reserved_cash_micro - release : 0n,
      reserved_shares_micro: o.side === 'SELL' ? o.reserved_shares_micro - release : 0n,
      updated_at: now,
    };
    sent.push(
      tx.query(
        `UPDATE orders SET state = $2, filled_size_micro = $3, filled_shares_micro = $4, filled_cash_micro = $5, reserved_cash_micro = $6,
           reserved_shares_micro = $7, updated_at = $8 WHERE id = $1`,
        [
          o.id,
          after.state,
          after.filled_size_micro,
          after.filled_shares_micro,
          after.filled_cash_micro,
          after.reserved_cash_micro,
          after.reserved_shares_micro,
          now,
        ],
        'order_filled',
      ),
    );
    const fill = { shares: fromMicro(shares), price: fromMicro(t.priceMicro), cash: fromMicro(cash) };
    sent.push(appendEvent(tx, o.user_id, after.state === 'filled' ? 'order.filled' : 'order.partially_filled', { ...toView(after), fill }, now));
    // Everything sent is awaited before deciding (none may outlive the transaction); the buy's refusal is read after.
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (bought) {
      const row = (await bought)[0]!;
      if (!row.market_ok) throw marketClosed('closed');
      if (row.balance_micro === null)
        throw new AppError('INSUFFICIENT_BALANCE', `Insufficient available balance for a ${fromMicro(t.sizeMicro)} dollar buy.`, insufficientHint);
    }
  }

  /** Appends an order event: the order as get_order shows it now (its `id` first among them) plus `extra`, e.g. the fill. */
  private async event(tx: Queryable, id: string, type: AccountEventType, now: Date, extra: Record<string, unknown> = {}): Promise<void> {
    const row = (await this.byId(tx, id))!;
    await appendEvent(tx, row.user_id, type, { ...toView(row), ...extra }, now);
  }

  private freshSince(now: Date): Date {
    return new Date(now.getTime() - this.maxAgeS * 1000);
  }

  private async byId(q: Queryable, id: string): Promise<OrderRow | undefined> {
    return (await q.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]))[0];
  }

  private async byClientId(q: Queryable, userId: string, clientOrderId: string): Promise<OrderRow | undefined> {
    return (await q.query<OrderRow>('SELECT * FROM orders WHERE user_id = $1 AND client_order_id = $2', [userId, clientOrderId]))[0];
  }
}

/** A book's identity (its levels), to tell a new book from one already filled against, in any process. */
function bookHash(d: Depth): string {
  const side = (ls: Depth['bids']) => ls.map((l) => `${l.priceMicro}:${l.sizeMicro}`).join(',');
  return createHash('sha256')
    .update(`${side(d.bids)}|${side(d.asks)}`)
    .digest('base64url');
}

const insufficientHint = { hint: 'Read get_balance (available = balance − reserved); cancel resting buy orders or use a smaller size.' };

function sharesShort(size: Micro): AppError {
  return new AppError('VALIDATION_ERROR', `Not enough unreserved shares of this token to sell ${fromMicro(size)}.`, {
    hint: 'Read get_portfolio; shares held by resting sell orders are reserved until those orders fill or are cancelled.',
  });
}

function marketClosed(status: string): AppError {
  return new AppError('MARKET_CLOSED', `This market is ${status}; it no longer trades.`, {
    hint: 'Search for an active market with search_prediction_markets.',
  });
}

function toView(r: OrderRow) {
  return {
    id: r.id,
    clientOrderId: r.client_order_id,
    marketId: r.market_id,
    tokenId: r.token_id,
    outcome: r.outcome,
    side: r.side,
    limitPrice: fromMicro(r.limit_price_micro),
    size: fromMicro(r.size_micro),
    timeInForce: r.time_in_force,
    expiresAt: r.expires_at ? new Date(r.expires_at).toISOString() : null,
    state: r.state,
    filledSize: fromMicro(r.filled_size_micro),
    filledShares: fromMicro(r.filled_shares_micro),
    filledCash: fromMicro(r.filled_cash_micro),
    avgFillPrice: r.filled_shares_micro > 0n ? fromMicro((r.filled_cash_micro * 1_000_000n) / r.filled_shares_micro) : null,
    reservedCash: fromMicro(r.reserved_cash_micro),
    reservedShares: fromMicro(r.reserved_shares_micro),
    reason: r.reason,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}
