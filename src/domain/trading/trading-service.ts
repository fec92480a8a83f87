import { together, type Database, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import type { LivePrice, PriceService } from './price-service';
import { fromMicro, toMicro, MICRO, type Micro } from '../money/micro';
import { avgPriceMicro, fillAt } from './fills';
import type { BookFill, WalkIntent } from './book-walk';
import { addTaken, claimTaken, NONE, peekTaken, snapshotKey, takenOf, type Taken } from './book-consumption';
import { VENUE } from '../ledger/accounts';
import { priceMarketOrder } from './market-order';
import { PUBLISHED_ONLY, type VenueBooks } from './venue-books';
import type { TradeHooks } from './trade-hooks';
import type { IntentForecast } from './engine';
import { marketIdOf } from './market-ref';
import { marketClosed, mirroredOpen, positionClosed, TradeEngine, venueOf, type Intent, type Pricer, type SaleDone, type VenueRead } from './engine';
import { POOL_STAKES } from '../portfolio/holdings-value';

export interface BuyOrder {
  marketId: string;
  marketSlug: string;
  tokenId: string;
  outcome: 'YES' | 'NO';
  /** Dollars to spend; or `shares`, an exact number of shares to buy (exactly one of the two). */
  amount?: number;
  shares?: number;
}

/** The most dollars one buy may spend (the SPEC's trade amount limit), whether sized by amount or by shares. */
const MAX_BUY_MICRO = toMicro(1_000_000);

export interface BuyResult {
  success: true;
  quantity: number;
  price: number;
  totalCost: number;
  positionId: string;
  balance: number;
}

/** What a quote adds to its price: how the order walks the book (book-walk.ts) and the venue's fee. */
export interface FillFigures {
  bestPrice: number;
  worstPrice: number;
  slippage: number;
  fee: number;
  feeRateBps: number;
  levels: Array<{ price: number; shares: number }>;
}

export interface SellResult {
  success: true;
  quantitySold: number;
  price: number;
  proceeds: number;
  realizedPnl: number;
  positionId: string;
  isClosed: boolean;
  balance: number;
}

/**
 * Something holding a position's shares besides the position (its resting sell orders): locked in the close's
 * transaction before the account; the step it returns releases them once the position is locked, answering what it ended.
 */
export type CloseHolds = (tx: Queryable, positionId: string) => Promise<(now: Date) => Promise<string[]>>;

/** Runs inside the trade's transaction just before it commits (idempotency record, aggregates, challenges). */
export type BeforeCommit = (tx: Queryable, result: unknown) => Promise<void>;

interface TokenRow {
  market_id: string;
  slug: string;
  status: string;
  outcome: 'YES' | 'NO';
}

/** A token's unchanging facts; `status` only when just read, `cached` when remembered. */
interface TokenFacts {
  market_id: string;
  slug: string;
  outcome: 'YES' | 'NO';
  status?: string;
  cached?: boolean;
}

const TOKEN_CACHE_SIZE = 50_000;
const VOLUME_TTL_MS = 5_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Buys and sells against the ledger. Lock order, always: the account row, then the position row.
 * A buy is one data-modifying statement (debit + ledger + position upsert + journal) inside a
 * transaction that also runs the hooks, so it commits whole or not at all.
 */
export class TradingService {
  constructor(
    private readonly db: Database,
    private readonly prices: PriceService,
    private readonly hooks: TradeHooks,
    /** The one trade path (services.ts shares one); its own over `hooks` when not given (tests, benches). */
    private readonly path: TradeEngine = new TradeEngine(hooks),
    /** The venues' books and fees a market order walks (services.ts: market-data/venue-books.ts). */
    private readonly books: VenueBooks = PUBLISHED_ONLY,
  ) {}

  private readonly holds: CloseHolds[] = [];
  private readonly tokens = new Map<string, Omit<TokenFacts, 'status' | 'cached'>>();
  private readonly volumes = new Map<string, { volume: number | null; at: number }>();

  async buy(userId: string, order: BuyOrder, now: Date, beforeCommit?: BeforeCommit, forecast?: IntentForecast): Promise<BuyResult> {
    if ((order.amount === undefined) === (order.shares === undefined))
      throw new AppError('VALIDATION_ERROR', 'send exactly one of amount (dollars to spend) or shares (shares to buy).');
    let token = await this.tokenOf(order.tokenId);
    // A remembered token that disagrees with the order is read again before refusing (a slug may change upstream).
    if (token?.cached && !this.matches(token, order)) token = await this.tokenOf(order.tokenId, true);
    if (!token || token.market_id !== order.marketId) {
      const market = await this.db.query('SELECT 1 FROM markets WHERE id = $1', [order.marketId]);
      if (!market[0]) throw new AppError('NOT_FOUND', `Market ${order.marketId} not found.`, { hint: 'Use the id from search_prediction_markets.' });
      throw new AppError('VALIDATION_ERROR', `tokenId ${order.tokenId} is not a token of market ${order.marketId}.`, {
        hint: 'Use outcomeTokens[].tokenId of that market.',
      });
    }
    if (token.slug !== order.marketSlug)
      throw new AppError('VALIDATION_ERROR', `marketSlug does not match market ${order.marketId} (its slug is ${token.slug}).`);
    if (token.outcome !== order.outcome)
      throw new AppError('VALIDATION_ERROR', `tokenId ${order.tokenId} is the ${token.outcome} token, not ${order.outcome}.`);
    if (token.status !== undefined && token.status !== 'active') throw marketClosed(token.status);

    let quote;
    try {
      quote = await this.prices.live(order.tokenId);
    } catch (err) {
      // With the token remembered, the market's status was not read: a market that has since closed says so.
      if (token.cached) await this.refuseIfClosed(order.marketId);
      throw err;
    }
    if (quote.askMicro <= 0n || quote.askMicro > MICRO) throw new AppError('PRICE_UNAVAILABLE', 'No valid ask for this token right now; nothing was bought.');
    const walk: WalkIntent =
      order.shares !== undefined
        ? { side: 'BUY', sizedBy: 'shares', sizeMicro: toMicro(order.shares) }
        : { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(order.amount!) };
    // The cheapest those shares can be is all at the best ask: over the limit there, refused before any book is read.
    if (walk.sizedBy === 'shares') this.refuseAboveMax(order.shares!, (walk.sizeMicro * quote.askMicro + MICRO - 1n) / MICRO);

    const intent: Intent = {
      userId,
      marketId: order.marketId,
      tokenId: order.tokenId,
      outcome: order.outcome,
      side: 'BUY',
      size: { by: walk.sizedBy, micro: walk.sizeMicro },
      ...(forecast ? { forecast } : {}),
      ...(beforeCommit ? { complete: beforeCommit } : {}),
      at: now,
    };
    const done = await this.db.transaction(async (tx) => {
      const ex = await this.path.execute(tx, intent, this.bookVenue(userId, { marketId: order.marketId, outcome: order.outcome, quote }, now, order.shares));
      if (ex.side !== 'BUY') throw new Error('a buy executed as a sale');
      const result: BuyResult = {
        success: true,
        quantity: fromMicro(ex.fill.quantityMicro),
        price: fromMicro(ex.fill.priceMicro),
        totalCost: fromMicro(ex.fill.amountMicro),
        positionId: ex.positionId,
        balance: fromMicro(ex.balanceMicro),
      };
      if (intent.complete) await intent.complete(tx, result);
      return result;
    });
    this.hooks.committed();
    return done;
  }

  async sell(userId: string, positionId: string, quantity: number | undefined, now: Date, beforeCommit?: BeforeCommit): Promise<SellResult> {
    return this.onPositionBook(userId, positionId, async (tx, quoted) => {
      const sale = await this.sellOn(tx, quoted, this.bookVenue(userId, quoted, now), {
        userId,
        positionId,
        wantedMicro: quantity === undefined ? undefined : toMicro(quantity),
        at: now,
      });
      const result = saleResult(sale, positionId);
      if (beforeCommit) await beforeCommit(tx, result);
      return result;
    });
  }

  /**
   * Runs `step` in one transaction on the live quote of an open position's token (bookVenue reads its book and claims it
   * for this account in the trade), then lets the trade's consumers know it committed. Refused before any quote when the
   * position cannot sell.
   */
  private async onPositionBook<T>(userId: string, positionId: string, step: (tx: Queryable, quoted: QuotedToken) => Promise<T>): Promise<T> {
    const token = await this.openTokenOf(userId, positionId);
    const quote = await this.prices.live(token.tokenId);
    const done = await this.db.transaction(async (tx) => step(tx, { marketId: token.marketId, outcome: token.outcome, quote }));
    this.hooks.committed();
    return done;
  }

  /** What else holds a position's shares (its resting sell orders): locked first in every close, released once the position is locked. */
  onHolds(holds: CloseHolds): void {
    this.holds.push(holds);
  }

  /**
   * Closes an open position of a mirrored market: every share sold at the live bid, its resting sell orders cancelled
   * (their shares released) in the same transaction first, so the whole holding sells or nothing changes. Lock order:
   * the orders, the account, the position (as settlement keeps it). Answers the sale and the orders it cancelled.
   */
  async close(userId: string, positionId: string, now: Date): Promise<SellResult & { cancelledOrders: string[] }> {
    return this.onPositionBook(userId, positionId, async (tx, quoted) => {
      // The book is claimed first (lock order: the venue's, the orders, the account, the position).
      const pricer = await this.bookVenue(userId, quoted, now).pricer(tx);
      const releases: Array<(now: Date) => Promise<string[]>> = [];
      for (const hold of this.holds) releases.push(await hold(tx, positionId));
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      await tx.query('SELECT 1 FROM positions WHERE id = $1 FOR UPDATE', [positionId]);
      const cancelledOrders: string[] = [];
      for (const release of releases) cancelledOrders.push(...(await release(now)));
      const sale = await this.sellOn(tx, quoted, venueOf('mirrored', pricer), { userId, positionId, wantedMicro: undefined, at: now });
      return { ...saleResult(sale, positionId), cancelledOrders };
    });
  }

  /**
   * The account's open positions, oldest first, of every market or of one (`marketId`: a mirrored or community market's
   * id or slug; NOT_FOUND when none has it). `community`: held in a community market (sold back to its market maker).
   */
  async openPositions(
    userId: string,
    marketId?: string,
  ): Promise<Array<{ id: string; marketId: string; tokenId: string; outcome: 'YES' | 'NO'; community: boolean }>> {
    const market = marketId === undefined ? null : await marketIdOf(this.db, marketId, { community: true, hint: 'Use Position.marketId from get_portfolio.' });
    const rows = await this.db.query<{ id: string; market_id: string; token_id: string; outcome: 'YES' | 'NO'; mirrored: boolean }>(
      `SELECT p.id, p.market_id, p.token_id, p.outcome, EXISTS (SELECT 1 FROM markets m WHERE m.id = p.market_id) AS mirrored
       FROM positions p WHERE p.user_id = $1 AND NOT p.is_closed AND ($2::text IS NULL OR p.market_id = $2) ORDER BY p.created_at, p.id`,
      [userId, market],
    );
    return rows.map((r) => ({ id: r.id, marketId: r.market_id, tokenId: r.token_id, outcome: r.outcome, community: !r.mirrored }));
  }

  /** The token of an open position of this account in an active market; refuses (NOT_FOUND, POSITION_CLOSED, MARKET_CLOSED) before any quote. */
  private async openTokenOf(userId: string, positionId: string): Promise<{ tokenId: string; marketId: string; outcome: 'YES' | 'NO' }> {
    const found = UUID.test(positionId)
      ? await this.db.query<{ token_id: string; market_id: string; outcome: 'YES' | 'NO'; is_closed: boolean; status: string }>(
          `SELECT p.token_id, p.market_id, p.outcome, p.is_closed, m.status FROM positions p JOIN markets m ON m.id = p.market_id WHERE p.id = $1 AND p.user_id = $2`,
          [positionId, userId],
        )
      : [];
    // Another account's position answers exactly like a missing one: nothing is revealed.
    if (!found[0]) throw new AppError('NOT_FOUND', `Position ${positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    if (found[0].is_closed) throw positionClosed();
    if (found[0].status !== 'active') throw marketClosed(found[0].status);
    return { tokenId: found[0].token_id, marketId: found[0].market_id, outcome: found[0].outcome };
  }

  /** Refuses a buy of `shares` shares costing `costMicro`, above what one trade may spend. */
  private refuseAboveMax(shares: number, costMicro: Micro): void {
    if (costMicro > MAX_BUY_MICRO)
      throw new AppError(
        'VALIDATION_ERROR',
        `${shares} shares cost ${fromMicro(costMicro)} dollars at the current price, above the 1,000,000 a trade may spend.`,
      );
  }

  /**
   * The venue's book of a quote, read with `q`: its published levels (or the simulated venue's, sized by the market's
   * traded dollars), the snapshot's key and the fee. What an account took of the snapshot is claimed in its trade (bookVenue).
   */
  private async bookOf(q: Queryable, quoted: QuotedToken): Promise<MarketBook> {
    const { quote } = quoted;
    const depth = this.books.depth(quote, quote.depth || quote.source !== 'simulated' ? null : await this.volumeOf(q, quoted.marketId));
    return { ...quoted, depth, key: depth ? snapshotKey(depth) : null, fee: this.books.fee(quote) };
  }

  /**
   * A mirrored (or simulated) market's book as the engine's venue, read in the trade's transaction in its first round
   * trip: the account's record of the token's book is claimed (locked, before the account row) while the book is read
   * (the market's traded dollars, when the simulated venue sizes it and they are not remembered), and the book's pricer
   * takes what the account has not taken of this snapshot. A book without sizes has no snapshot: its record is claimed all
   * the same (the claim goes out before the book is known), but nothing is taken of it and nothing booked.
   */
  private bookVenue(userId: string, quoted: QuotedToken, now: Date, shares?: number): VenueRead {
    return {
      venue: 'mirrored',
      pricer: async (tx) => {
        const [claim, book] = await together(claimTaken(tx, userId, quoted.quote.tokenId, now), this.bookOf(tx, quoted));
        return this.bookPricer(userId, book, book.key ? takenOf(claim, book.key) : NONE, shares, now);
      },
    };
  }

  /**
   * The pricer of a mirrored (or simulated) market's book as this account may take it (`book`, claimed in the trade's
   * transaction): a buy walks its asks, a sale its bids, each less what the account took of this snapshot, and the fill's
   * shares are added to that consumption with the ledger's moves. `shares`: a buy sized in shares, held to the trade limit.
   */
  private bookPricer(userId: string, book: MarketBook, taken: Taken, shares: number | undefined, now: Date): Pricer {
    const walk = (intent: WalkIntent) => priceMarketOrder(book.quote, book.depth, taken, intent, book.fee);
    const key = book.key;
    return {
      account: VENUE,
      buy: (intent) => {
        const fill = walk({ side: 'BUY', sizedBy: intent.size.by, sizeMicro: intent.size.micro ?? 0n });
        if (shares !== undefined) this.refuseAboveMax(shares, fill.cashMicro);
        return { amountMicro: fill.cashMicro, quantityMicro: fill.sharesMicro, priceMicro: fill.priceMicro, feeMicro: fill.feeMicro };
      },
      check: mirroredOpen,
      sell: (pos, sold) => {
        const fill = walk({ side: 'SELL', sizedBy: 'shares', sizeMicro: sold });
        return { ...fillAt(pos, sold, fill.cashMicro, fill.priceMicro), feeMicro: fill.feeMicro };
      },
      ...(key
        ? {
            booked: (tx: Queryable, side: 'BUY' | 'SELL', fill: { sharesMicro: Micro }) =>
              addTaken(tx, userId, book.quote.tokenId, key, side, fill.sharesMicro, now),
          }
        : {}),
    };
  }

  /** A sale of a mirrored position walking the bids of `book` at `venue` (its claim in `tx`), its consumption recorded with it. */
  private async sellOn(
    tx: Queryable,
    quoted: QuotedToken,
    venue: VenueRead,
    s: { userId: string; positionId: string; wantedMicro: Micro | undefined; at: Date },
  ): Promise<SaleDone> {
    const ex = await this.path.execute(
      tx,
      {
        userId: s.userId,
        marketId: quoted.marketId,
        tokenId: quoted.quote.tokenId,
        outcome: quoted.outcome,
        side: 'SELL',
        size: { by: 'shares', micro: s.wantedMicro },
        positionId: s.positionId,
        at: s.at,
      },
      venue,
    );
    if (ex.side !== 'SELL') throw new Error('a sale executed as a buy');
    return { fill: ex.fill, balanceMicro: ex.balanceMicro, position: ex.position };
  }

  /**
   * The market's traded dollars, which size the simulated venue's book: they change only when the mirror syncs, so they
   * are remembered for VOLUME_TTL_MS (a trade saves a statement; the book may lag a sync by that long).
   */
  private async volumeOf(q: Queryable, marketId: string): Promise<number | null> {
    const known = this.volumes.get(marketId);
    if (known && Date.now() - known.at < VOLUME_TTL_MS) return known.volume;
    const rows = await q.query<{ volume: number | string | null }>('SELECT volume FROM markets WHERE id = $1', [marketId], 'market_volume');
    const v = rows[0]?.volume;
    const volume = v === null || v === undefined ? null : Number(v);
    if (this.volumes.size >= TOKEN_CACHE_SIZE) this.volumes.clear();
    this.volumes.set(marketId, { volume, at: Date.now() });
    return volume;
  }

  /**
   * What a buy of `amount` dollars or a sell of `quantity` shares would fill at now, walking the venue's book as the
   * trade would (less what `userId`, when given, already took of this snapshot): the average price, the best and worst
   * levels reached, the slippage and the fee. Changes nothing; INSUFFICIENT_DEPTH when the book cannot fill it.
   */
  async quote(input: { side: 'BUY' | 'SELL'; tokenId: string; amount?: number; quantity?: number }, userId?: string) {
    const token = await this.tokenOf(input.tokenId, true); // fresh: the quote reports the market's status
    if (!token) throw new AppError('NOT_FOUND', `Token ${input.tokenId} not found.`, { hint: 'Use outcomeTokens[].tokenId from search_prediction_markets.' });
    const price = await this.prices.live(input.tokenId);
    const base = {
      side: input.side,
      tokenId: input.tokenId,
      marketId: token.market_id,
      outcome: token.outcome,
      marketStatus: token.status ?? 'active',
      priceAsOf: price.asOf.toISOString(),
      source: price.source,
    };
    let intent: WalkIntent;
    if (input.side === 'BUY') {
      if (input.amount === undefined) throw new AppError('VALIDATION_ERROR', 'amount is required for a BUY quote.');
      intent = { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(input.amount) };
    } else {
      if (input.quantity === undefined) throw new AppError('VALIDATION_ERROR', 'quantity is required for a SELL quote.');
      intent = { side: 'SELL', sizedBy: 'shares', sizeMicro: toMicro(input.quantity) };
    }
    const book = await this.bookOf(this.db, { marketId: token.market_id, outcome: token.outcome, quote: price });
    const taken: Taken = book.key && userId && UUID.test(userId) ? await peekTaken(this.db, userId, input.tokenId, book.key) : NONE;
    const fill = priceMarketOrder(price, book.depth, taken, intent, book.fee);
    return {
      ...base,
      price: fromMicro(fill.priceMicro),
      quantity: fromMicro(fill.sharesMicro),
      amount: fromMicro(fill.cashMicro),
      ...fillFigures(fill, book.fee.rateBps),
    };
  }

  async portfolio(userId: string) {
    const [rows, bal, stakes] = await Promise.all([
      this.db.query<{
        id: string;
        market_id: string;
        token_id: string;
        outcome: 'YES' | 'NO';
        quantity_micro: bigint;
        cost_micro: bigint;
        bought_micro: bigint;
        realized_pnl_micro: bigint;
        is_closed: boolean;
        created_at: Date;
        closed_at: Date | null;
        question: string;
        slug: string;
        price_micro: bigint | null;
        label: string | null;
      }>(
        // A position is in a mirrored market or in a community market (marked at its market maker's price).
        `SELECT p.id, p.market_id, p.token_id, p.outcome, p.quantity_micro, p.cost_micro, p.bought_micro, p.realized_pnl_micro, p.is_closed,
                p.created_at, p.closed_at, coalesce(m.question, c.question) AS question, coalesce(m.slug, c.slug) AS slug,
                coalesce(t.price_micro, o.price_micro) AS price_micro, o.label
         FROM positions p LEFT JOIN markets m ON m.id = p.market_id LEFT JOIN market_tokens t ON t.token_id = p.token_id
           LEFT JOIN community_outcomes o ON o.token_id = p.token_id AND t.token_id IS NULL
           LEFT JOIN community_markets c ON c.id = o.market_id
         WHERE p.user_id = $1 ORDER BY p.created_at DESC, p.id DESC`,
        [userId],
      ),
      this.db.query<{ balance_micro: bigint }>('SELECT balance_micro FROM cash_balances WHERE user_id = $1', [userId]),
      this.db.query<{ value_micro: bigint }>(`SELECT s.value_micro FROM (${POOL_STAKES}) s WHERE s.user_id = $1`, [userId]),
    ]);
    let marketValue = 0n;
    let unrealized = 0n;
    let realized = 0n;
    const positions = rows.map((r) => {
      realized += r.realized_pnl_micro;
      const open = !r.is_closed;
      const mark = r.price_micro;
      const value = open && mark !== null ? (r.quantity_micro * mark) / MICRO : null;
      const upnl = value !== null ? value - r.cost_micro : null;
      if (value !== null) marketValue += value;
      if (upnl !== null) unrealized += upnl;
      return {
        id: r.id,
        marketId: r.market_id,
        marketSlug: r.slug,
        question: r.question,
        tokenId: r.token_id,
        outcome: r.outcome,
        ...(r.label !== null ? { outcomeLabel: r.label } : {}),
        quantity: fromMicro(r.quantity_micro),
        avgPrice: fromMicro(open ? avgPriceMicro({ quantityMicro: r.quantity_micro, costMicro: r.cost_micro }) : 0n),
        isClosed: r.is_closed,
        realizedPnl: fromMicro(r.realized_pnl_micro),
        createdAt: new Date(r.created_at).toISOString(),
        closedAt: r.closed_at ? new Date(r.closed_at).toISOString() : null,
        currentPrice: open && mark !== null ? fromMicro(mark) : null,
        marketValue: value !== null ? fromMicro(value) : null,
        unrealizedPnl: upnl !== null ? fromMicro(upnl) : null,
      };
    });
    const cash = bal[0]?.balance_micro ?? 0n;
    const poolFunding = BigInt(stakes[0]?.value_micro ?? 0n);
    return {
      positions,
      balance: fromMicro(cash),
      totals: {
        cash: fromMicro(cash),
        marketValue: fromMicro(marketValue),
        poolFunding: fromMicro(poolFunding),
        equity: fromMicro(cash + marketValue + poolFunding),
        realizedPnl: fromMicro(realized),
        unrealizedPnl: fromMicro(unrealized),
      },
    };
  }

  /**
   * A token's market, that market's slug and the token's outcome: facts that do not change, so they are
   * remembered (bounded) and a buy skips a round trip. The market's status does change: on a remembered
   * token it is left to the buy statement, which trades only an active market.
   */
  private async tokenOf(tokenId: string, fresh = false): Promise<TokenFacts | undefined> {
    const known = fresh ? undefined : this.tokens.get(tokenId);
    if (known) return { ...known, cached: true };
    const rows = await this.db.query<TokenRow>(
      'SELECT t.market_id, m.slug, m.status, t.outcome FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE t.token_id = $1',
      [tokenId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (this.tokens.size >= TOKEN_CACHE_SIZE) this.tokens.clear();
    this.tokens.set(tokenId, { market_id: row.market_id, slug: row.slug, outcome: row.outcome });
    return { ...row, cached: false };
  }

  private matches(token: TokenFacts, order: BuyOrder): boolean {
    return token.market_id === order.marketId && token.slug === order.marketSlug && token.outcome === order.outcome;
  }

  private async refuseIfClosed(marketId: string, q: Queryable = this.db): Promise<void> {
    const rows = await q.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [marketId]);
    if (rows[0] && rows[0].status !== 'active') throw marketClosed(rows[0].status);
  }
}

/** A token's live quote with its market and outcome: what a trade knows of the venue before its transaction. */
interface QuotedToken {
  marketId: string;
  outcome: 'YES' | 'NO';
  quote: LivePrice;
}

/** A venue's book of a quote (TradingService.bookOf); what one account took of it is claimed in its trade (bookVenue). */
interface MarketBook extends QuotedToken {
  depth: ReturnType<VenueBooks['depth']>;
  /** The snapshot's key, or null when the venue shows no sizes (nothing to remember). */
  key: string | null;
  fee: ReturnType<VenueBooks['fee']>;
}

/** A quote's figures of a walk of the book. */
export function fillFigures(fill: BookFill, feeRateBps: number): FillFigures {
  return {
    bestPrice: fromMicro(fill.bestMicro),
    worstPrice: fromMicro(fill.worstMicro),
    slippage: fromMicro(fill.slippageMicro),
    fee: fromMicro(fill.feeMicro),
    feeRateBps,
    levels: fill.levels.map((l) => ({ price: fromMicro(l.priceMicro), shares: fromMicro(l.sharesMicro) })),
  };
}

/** sell_position's answer from a sale. */
function saleResult(sale: SaleDone, positionId: string): SellResult {
  return {
    success: true,
    quantitySold: fromMicro(sale.fill.quantityMicro),
    price: fromMicro(sale.fill.priceMicro),
    proceeds: fromMicro(sale.fill.proceedsMicro),
    realizedPnl: fromMicro(sale.fill.realizedPnlMicro),
    positionId,
    isClosed: sale.fill.closes,
    balance: fromMicro(sale.balanceMicro),
  };
}

export type { Micro };
