import type { Database, Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import { MICRO, type Micro } from '../money/micro';
import { buyFill } from '../trading/fills';
import type { PriceChange, PriceService } from '../trading/price-service';
import type { TradeHooks } from '../trading/trade-hooks';
import type { TradeEngine } from '../trading/engine';
import { claimBookRecord, recordBookTaken } from './book-claims';
import { fillOrder } from './order-fill';
import { bookHash, lockedWithHeld, OPEN, ORDER_COLUMNS, type OrderRow, type Quote } from './order-rows';
import { afterTaken, buyRelease, copyDepth, sharesShown, take, type Take } from './order-rules';

/** Orders crossed by one price change filled per transaction at most. */
const FILL_BATCH = 100;

/** A resting order's fill: what it takes now, and how much of its reservation that consumes. */
export interface RestingFill {
  o: OrderRow;
  t: Take;
  release: Micro;
}

/** Whether a resting order (its row as locked, with its market's status) can still fill: not once expired (expiry takes it), nor once its market is no longer active. */
export function mayFill(o: OrderRow & { market_status: string }, now: Date): boolean {
  return (o.expires_at === null || new Date(o.expires_at).getTime() > now.getTime()) && o.market_status === 'active';
}

/**
 * The one rule of whether a resting order fills against `quote` now, and how much: if it mayFill(), what take() gives its
 * unfilled size (consuming the quote's book), unless a buy by amount would get no micro-share for it. A sell's fill
 * consumes as many of its reserved shares as it sells; a buy's frees what buyRelease() says, so what stays reserved is
 * exactly the reservation of what stays unfilled. null: nothing fills.
 */
export function restingFill(o: OrderRow & { market_status: string }, quote: Quote, now: Date): RestingFill | null {
  if (!mayFill(o, now)) return null;
  const unfilled = o.size_micro - o.filled_size_micro;
  const t = take(o.side, o.limit_price_micro, unfilled, quote, o.sized_by);
  if (t === null) return null;
  if (o.side === 'SELL') return { o, t, release: t.sizeMicro < o.held_micro ? t.sizeMicro : o.held_micro };
  if (o.sized_by === 'amount' && buyFill(t.sizeMicro, t.priceMicro).quantityMicro <= 0n) return null;
  return { o, t, release: buyRelease(o.sized_by, o.held_micro, unfilled, t.sizeMicro, o.limit_price_micro) };
}

/**
 * Resting orders filling: at each price change the service sees (onPriceChanges: only the orders the new price crosses,
 * through the index orders_open_by_price), and after each sync (fillCrossed). Every fill goes through fillOrder, in its
 * own transaction or in one with the other orders the same change crossed. What orders take from a published book is
 * recorded on its token under the token row's lock in the fill's own transaction (claimBook / recordTaken), so every
 * process filling against one book takes no more than it showed. Lock order: the order row, then the market (shared),
 * then the token's book record (when the venue publishes depth), then the account, then the position — as trades keep it.
 */
export class RestingFills {
  /** Per token, the price changes being worked through (one at a time, so fills of one token keep time priority). */
  private readonly tokenQueues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly prices: PriceService,
    private readonly path: TradeEngine,
    private readonly hooks: TradeHooks,
    private readonly log: Logger,
    /** A price older than this (PRICE_MAX_AGE_S) fills nothing, as a trade never fills at a stale price. */
    private readonly maxAgeS: number,
  ) {}

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
      // What each holds is read right behind the lock (lockedWithHeld): an order another process filled or amended
      // meanwhile holds what that left it.
      const locked = lockedWithHeld(
        tx,
        tx.query<OrderRow & { market_status: string }>(
          `SELECT ${ORDER_COLUMNS}, m.status AS market_status FROM orders o JOIN markets m ON m.id = o.market_id
           WHERE o.id = ANY($1::uuid[]) AND o.state IN ${OPEN} ORDER BY o.id FOR UPDATE OF o FOR SHARE OF m`,
          [ids],
          'orders_fill_lock',
        ),
        ids,
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
      const fills: RestingFill[] = [];
      for (const id of ids) {
        const o = byId.get(id);
        const fill = o ? restingFill(o, quote, now) : null;
        if (fill) fills.push(fill);
      }
      if (fills.length === 0) return 0;
      await this.recordTaken(tx, tokenId, given, quote);
      // An account with two fills here takes them one after the other (each fill reads its position and event seq).
      const perUser = new Map<string, RestingFill[]>();
      for (const f of fills) perUser.set(f.o.user_id, [...(perUser.get(f.o.user_id) ?? []), f]);
      const settled = await Promise.allSettled(
        [...perUser.values()].map(async (mine) => {
          for (const f of mine) await fillOrder(tx, this.path, f.o, f.t, now, f.release);
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
  async claimBook(tx: Queryable, tokenId: string, quote: Quote): Promise<Quote | null> {
    const depth = quote.depth!;
    const taken = await claimBookRecord(tx, {
      tokenId,
      hash: quote.bookHash ?? bookHash(depth),
      asOf: quote.asOf,
      bestBidSizeMicro: depth.bids[0]?.sizeMicro ?? 0n,
      bestAskSizeMicro: depth.asks[0]?.sizeMicro ?? 0n,
    });
    if (!taken) return null;
    return { ...quote, depth: afterTaken(depth, taken.bidTakenMicro, taken.askTakenMicro) };
  }

  /** Records what this transaction's takes left of the claimed book (`book`, consumed in place) as taken from `shown`. */
  async recordTaken(tx: Queryable, tokenId: string, shown: Quote, book: Quote): Promise<void> {
    if (!shown.depth || !book.depth) return;
    await recordBookTaken(
      tx,
      tokenId,
      sharesShown(shown.depth.bids) - sharesShown(book.depth.bids),
      sharesShown(shown.depth.asks) - sharesShown(book.depth.asks),
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
      // The order (locked: fill, amend, cancel and expiry are decided under this lock, and what it holds is read once
      // the lock is held: lockedWithHeld) with its market (shared: it cannot close meanwhile).
      const rows = await lockedWithHeld(
        tx,
        tx.query<OrderRow & { market_status: string; bid: bigint | null; ask: bigint | null; price_at: Date | null }>(
          `SELECT ${ORDER_COLUMNS}, m.status AS market_status, coalesce(t.bid_micro, t.price_micro) AS bid, coalesce(t.ask_micro, t.price_micro) AS ask, t.price_at
           FROM orders o JOIN market_tokens t ON t.token_id = o.token_id JOIN markets m ON m.id = o.market_id
           WHERE o.id = $1 AND o.state IN ${OPEN} FOR UPDATE OF o FOR SHARE OF m`,
          [id],
          'order_fill_lock',
        ),
        [id],
      );
      const o = rows[0];
      if (!o) return false; // cancelled, expired or filled first
      const given: Quote | null =
        quote ?? (o.bid !== null && o.ask !== null && o.price_at !== null ? { bidMicro: o.bid, askMicro: o.ask, asOf: new Date(o.price_at) } : null);
      if (given === null || given.asOf.getTime() < this.freshSince(now).getTime()) return false;
      // Read before the book is claimed, so an order that cannot fill takes no lock of the book record.
      if (!mayFill(o, now)) return false;
      const q = given.depth ? await this.claimBook(tx, o.token_id, given) : given;
      if (q === null) return false;
      const fill = restingFill(o, q, now);
      if (fill === null) return false;
      await this.recordTaken(tx, o.token_id, given, q);
      await fillOrder(tx, this.path, fill.o, fill.t, now, fill.release);
      return true;
    });
    if (done) this.hooks.committed();
    return done;
  }

  private freshSince(now: Date): Date {
    return new Date(now.getTime() - this.maxAgeS * 1000);
  }
}
