import { together, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { markActive } from '../accounts/activity';
import { coversMicro, insufficientBalance } from '../ledger/cash';
import { sharesShort } from '../ledger/shares';
import { randomUUID } from 'node:crypto';
import { buyerOf, buyMoves, sellMoves } from '../ledger/trade-moves';
import { fromMicro, MICRO, type Micro } from '../money/micro';
import type { SellFill } from './fills';
import type { TradeHooks } from './trade-hooks';
import { recordTrade } from './trade-records';

/** Where a trade executes: a mirrored (or simulated) market's book, or a community market's pool. */
export type Venue = 'mirrored' | 'pool';

/** A stated forecast that comes with a trade's intent: recorded in the trade's transaction once the trade is written. */
export interface IntentForecast {
  record(tx: Queryable): Promise<void>;
}

/**
 * What an account wants to trade — the one intent every venue executes (paper_trade, sell_position, a community market's
 * buy and sale, a limit order's fill): the account, the market and outcome, the side, the
 * size by `amount` (dollars to spend, a buy) or `shares`, an optional limit on the average price, an optional stated
 * forecast (its one way in) and the idempotent call's completion. TradeEngine.execute() runs it against a venue's Pricer.
 */
export interface Intent {
  userId: string;
  marketId: string;
  tokenId: string;
  /** YES or NO of a mirrored market; a community outcome is held as YES of "this label wins". */
  outcome: 'YES' | 'NO';
  side: 'BUY' | 'SELL';
  /** A buy: dollars to spend or shares to buy. A sale: shares (undefined sells the whole position). */
  size: { by: 'amount'; micro: Micro } | { by: 'shares'; micro: Micro | undefined };
  /** A sale's position. */
  positionId?: string;
  /** The worst average price accepted: a buy's most, a sale's least (PRICE_LIMIT_EXCEEDED beyond it, nothing changed). */
  limitMicro?: Micro;
  /** The intent's stated forecast, recorded with the buy (a refused buy records none). */
  forecast?: IntentForecast;
  /** The idempotent call's completion: its services run it in the trade's transaction, with the answer, before commit. */
  complete?: (tx: Queryable, result: unknown) => Promise<void>;
  at: Date;
}

/** What a venue's pricer gives a buy: the cash it spends (fee included), the shares and their average price. */
export interface Fill {
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  feeMicro?: Micro;
}

/**
 * How one venue prices an intent, read (and locked) in the trade's transaction with the engine's reads (VenueRead): a mirrored or
 * simulated market's book (less what the account took of this snapshot), a community market's pool curve, and a limit
 * order's fill (orders/resting-order-pricer.ts: the order's take at its price, `holds` naming the order whose
 * reservation the trade consumes).
 */
export interface Pricer {
  /** The venue's ledger account, the other side of the transfers (ledger/accounts.ts): the venue, or a pool. */
  account: string;
  /** A buy's fill of the intent's size; throws to refuse (INSUFFICIENT_DEPTH, a size too small, above the trade limit). */
  buy(intent: Intent): Fill;
  /** Refuses a sale this venue does not take now (a closed market), before any share is counted. */
  check(pos: HeldPosition): void;
  /** A sale's fill of `shares` of the position; throws to refuse. */
  sell(pos: HeldPosition, shares: Micro): SellFill;
  /**
   * A limit order's fill: the order, and how much of its reservation the trade consumes (its pending transfer is posted
   * by that much): the account's reserved cash of a buy, the position's reserved shares of a sale.
   */
  holds?: { orderId: string; releaseMicro: Micro };
  /** The venue's own bookkeeping of the fill (the book's consumption, the pool's curve), sent with the ledger's moves. */
  booked?(tx: Queryable, side: 'BUY' | 'SELL', fill: { sharesMicro: Micro; cashMicro: Micro }): Promise<void>;
  /** The trader created this market (TradeEvent.ownMarket). */
  ownMarket?: boolean;
  /** A community market still too thin for the record (TradeEvent.thinMarket). */
  thinMarket?: boolean;
}

/**
 * How the engine gets a venue's Pricer in the trade's transaction: the venue's own reads and locks (a pool's row, the
 * account's claim on a book's snapshot), or the pricer itself when it needs none (a resting order's fill). The engine
 * sends its own reads beside them, in the same round trip and after them, so the lock order stays the venue's first:
 * a venue issues its locking statement before its first await.
 */
export interface VenueRead {
  /** Where the trade executes: which market gate it passes and whose ledger account is the other side. */
  venue: Venue;
  /** The venue's pricer, read (and locked) in the trade's transaction; issues its locking statement before its first await. */
  pricer(tx: Queryable): Promise<Pricer>;
}

/** A venue whose pricer is already in hand (read earlier in the transaction, or pure: a resting order's fill). */
export const venueOf = (venue: Venue, pricer: Pricer): VenueRead => ({ venue, pricer: async () => pricer });

/** What execute() did: a buy's position and balance, or a sale. */
export type Executed =
  | { side: 'BUY'; fill: Fill; positionId: string; balanceMicro: Micro }
  | { side: 'SELL'; fill: SellFill; positionId: string; balanceMicro: Micro; position: HeldPosition };

/** A position as a sale sees it, locked in the sale's transaction. */
export interface HeldPosition {
  id: string;
  quantityMicro: Micro;
  costMicro: Micro;
  reservedMicro: Micro;
  marketId: string;
  tokenId: string;
  /** The mirrored market's status (null for a community market, whose pool the pricer checks). */
  marketStatus: string | null;
}

/** A mirrored market's sale needs it open (its status as read with the locked position). */
export const mirroredOpen = (pos: HeldPosition): void => {
  if (pos.marketStatus !== 'active') throw marketClosed(pos.marketStatus ?? 'closed');
};

export interface SaleDone {
  fill: SellFill;
  balanceMicro: Micro;
  position: HeldPosition;
}

/**
 * The trade engine, one file to read to learn what a trade does. It has one way in, execute(intent, venue): every buy
 * and every sale of every venue — paper_trade, sell_position, a community market's pool, a limit order's fill (new or
 * resting) — is one Intent, priced by its venue's Pricer and written here, in the caller's transaction, in two round
 * trips. A buy, in order:
 *   1. the reads, sent together: the venue's (a pool's row, locked; the account's claim on a book's snapshot), the market
 *      gate (open; a mirrored market's row is locked shared, so it cannot close meanwhile), the account row's mark (its
 *      lock: accounts/activity.ts), its cash and its open position in the token (ledger/);
 *   2. the price: the venue's fill of the intent, held to the intent's limit and to the account's available cash;
 *   3. the writes, sent together: the ledger's moves (cash out of the account, refused beyond available cash; the shares
 *      into the position; the transfers — the price to the venue's account, the fee to the venue, the shares back), the
 *      venue's bookkeeping (the book's consumption, a pool's curve), the trade record (trade-records.ts), the intent's
 *      stated forecast (forecasts/, its own chain on its own row) and the consumers of the written trade (TradeHooks:
 *      events, the track record, notifications).
 * A sale is the same with the position locked in step 1 and its shares out in step 3. Each step is a plain statement (or
 * a few) of the module that owns its table; a refusal throws, and the caller's transaction rolls every step back. Lock
 * order, always: the venue's (a pool, a book claim), the market, the account row, its cash, the position.
 */
export class TradeEngine {
  constructor(private readonly hooks: TradeHooks) {}

  /**
   * Executes `intent` in `tx` at `venue`: the buy or the sale below. A refusal throws and the caller's transaction rolls
   * every step back. The caller runs hooks.committed() after its commit.
   */
  async execute(tx: Queryable, intent: Intent, venue: VenueRead): Promise<Executed> {
    return intent.side === 'BUY' ? this.buy(tx, intent, venue) : this.sell(tx, intent, venue);
  }

  /**
   * A buy: the reads (the venue's, the gate, the account's mark, its open position), the fill held to the intent's limit,
   * then the writes. Refused with NOT_FOUND for no account, MARKET_CLOSED when the market is not open,
   * PRICE_LIMIT_EXCEEDED, the venue's own refusals, and INSUFFICIENT_BALANCE beyond available cash.
   */
  private async buy(tx: Queryable, intent: Intent, venue: VenueRead): Promise<Executed> {
    const [pricer, open, , buyer] = await together(
      venue.pricer(tx),
      this.marketOpen(tx, venue.venue, intent.marketId),
      markActive(tx, intent.userId, intent.at),
      buyerOf(tx, intent.userId, intent.tokenId),
    );
    if (!buyer) throw new AppError('NOT_FOUND', 'Account not found.');
    if (!open) throw await this.closed(tx, venue.venue, intent.marketId);
    const fill = pricer.buy(intent);
    if (intent.limitMicro !== undefined && fill.amountMicro * MICRO > intent.limitMicro * fill.quantityMicro)
      throw priceLimit('buy', fill.priceMicro, 'above', intent.limitMicro);
    const c = carried(intent, pricer);
    const refused = () => insufficientBalance(`Insufficient available balance for a ${fromMicro(fill.amountMicro)} dollar buy.`);
    if (!coversMicro(buyer, fill.amountMicro, c.releaseMicro)) throw refused();
    const tradeId = randomUUID();
    const positionId = buyer.positionId ?? randomUUID();
    const fee = fill.feeMicro ?? 0n;
    // The writes go out together, in this order, each seeing those before it; a refusal rolls them all back.
    const [moved] = await together(
      buyMoves(tx, {
        userId: intent.userId,
        marketId: intent.marketId,
        tokenId: intent.tokenId,
        outcome: intent.outcome,
        amountMicro: fill.amountMicro,
        feeMicro: fee,
        quantityMicro: fill.quantityMicro,
        counter: pricer.account,
        releaseMicro: c.releaseMicro ?? 0n,
        orderId: c.orderId ?? null,
        tradeId,
        positionId,
        at: intent.at,
      }),
      pricer.booked ? pricer.booked(tx, 'BUY', { sharesMicro: fill.quantityMicro, cashMicro: fill.amountMicro }) : Promise.resolve(),
      recordTrade(tx, {
        id: tradeId,
        userId: intent.userId,
        positionId,
        marketId: intent.marketId,
        tokenId: intent.tokenId,
        side: 'BUY',
        quantityMicro: fill.quantityMicro,
        priceMicro: fill.priceMicro,
        cashMicro: -fill.amountMicro,
        realizedPnlMicro: 0n,
        feeMicro: fee,
        at: intent.at,
      }),
      c.forecast ? c.forecast.record(tx) : Promise.resolve(),
      this.hooks.afterTrade(tx, {
        userId: intent.userId,
        side: 'BUY',
        marketId: intent.marketId,
        tokenId: intent.tokenId,
        quantityMicro: fill.quantityMicro,
        cashMicro: fill.amountMicro,
        realizedPnlMicro: 0n,
        priceMicro: fill.priceMicro,
        ...(c.ownMarket ? { ownMarket: true } : {}),
        ...(c.thinMarket ? { thinMarket: true } : {}),
        at: intent.at,
      }),
    );
    // Refused here only when a writer of the account's cash that does not hold its row's lock came between (the debit's guard).
    if (!moved) throw refused();
    return { side: 'BUY', fill, positionId, balanceMicro: moved.balanceMicro };
  }

  /**
   * A sale: the reads (the venue's, the account's mark — its lock —, the position, locked), the venue's check, the fill
   * held to the intent's limit, then the writes. Sells only shares not reserved by resting sell orders, after freeing
   * what the intent's order consumes of the position's reservation (a resting sell order selling its own shares).
   */
  private async sell(tx: Queryable, intent: Intent, venue: VenueRead): Promise<Executed> {
    if (!intent.positionId) throw new Error('a sale intent names its position');
    if (intent.size.by !== 'shares') throw new AppError('VALIDATION_ERROR', 'A sale is sized in shares.');
    const [pricer, , rows] = await together(
      venue.pricer(tx),
      markActive(tx, intent.userId, intent.at),
      tx.query<{
        quantity_micro: bigint;
        cost_micro: bigint;
        reserved_micro: bigint;
        is_closed: boolean;
        market_id: string;
        token_id: string;
        status: string | null;
      }>(
        `SELECT p.quantity_micro, p.cost_micro, p.reserved_micro, p.is_closed, p.market_id, p.token_id, m.status
         FROM positions p LEFT JOIN markets m ON m.id = p.market_id WHERE p.id = $1 AND p.user_id = $2 FOR UPDATE OF p`,
        [intent.positionId, intent.userId],
        'trade_lock_position',
      ),
    );
    const r = rows[0];
    if (!r) throw new AppError('NOT_FOUND', `Position ${intent.positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    if (r.is_closed) throw positionClosed();
    const pos: HeldPosition = {
      id: intent.positionId,
      quantityMicro: BigInt(r.quantity_micro),
      costMicro: BigInt(r.cost_micro),
      reservedMicro: BigInt(r.reserved_micro),
      marketId: r.market_id,
      tokenId: r.token_id,
      marketStatus: r.status,
    };
    pricer.check(pos);
    const c = carried(intent, pricer);
    const release = c.releaseMicro ?? 0n;
    const reserved = pos.reservedMicro - release;
    if (reserved < 0n) throw new Error(`position ${pos.id} reserves ${pos.reservedMicro}, cannot release ${release}`);
    const want = intent.size.micro ?? pos.quantityMicro;
    if (want <= 0n) throw new AppError('VALIDATION_ERROR', 'quantity must be greater than 0.');
    if (want > pos.quantityMicro) {
      throw new AppError('VALIDATION_ERROR', `quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantityMicro)} shares held.`, {
        hint: 'Omit quantity to sell the whole position.',
      });
    }
    if (want > pos.quantityMicro - reserved) {
      throw sharesShort(`quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantityMicro - reserved)} shares available.`, reserved);
    }
    const fill = pricer.sell(pos, want);
    if (intent.limitMicro !== undefined && fill.proceedsMicro * MICRO < intent.limitMicro * fill.quantityMicro)
      throw priceLimit('sale', fill.priceMicro, 'below', intent.limitMicro);
    const tradeId = randomUUID();
    // The writes go out together, in this order, each seeing those before it; a refusal rolls them all back.
    const [out] = await together(
      sellMoves(tx, {
        userId: intent.userId,
        positionId: pos.id,
        tokenId: pos.tokenId,
        quantityMicro: fill.quantityMicro,
        costRemovedMicro: fill.costRemovedMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        closes: fill.closes,
        proceedsMicro: fill.proceedsMicro,
        feeMicro: fill.feeMicro ?? 0n,
        counter: pricer.account,
        releaseMicro: release,
        orderId: c.orderId ?? null,
        tradeId,
        at: intent.at,
      }),
      pricer.booked ? pricer.booked(tx, 'SELL', { sharesMicro: fill.quantityMicro, cashMicro: fill.proceedsMicro }) : Promise.resolve(),
      recordTrade(tx, {
        id: tradeId,
        userId: intent.userId,
        positionId: pos.id,
        marketId: pos.marketId,
        tokenId: pos.tokenId,
        side: 'SELL',
        quantityMicro: fill.quantityMicro,
        priceMicro: fill.priceMicro,
        cashMicro: fill.proceedsMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        feeMicro: fill.feeMicro ?? 0n,
        at: intent.at,
      }),
      c.forecast ? c.forecast.record(tx) : Promise.resolve(),
      this.hooks.afterTrade(tx, {
        userId: intent.userId,
        side: 'SELL',
        marketId: pos.marketId,
        tokenId: pos.tokenId,
        quantityMicro: fill.quantityMicro,
        cashMicro: fill.proceedsMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        priceMicro: fill.priceMicro,
        positionId: pos.id,
        ...(c.ownMarket ? { ownMarket: true } : {}),
        ...(c.thinMarket ? { thinMarket: true } : {}),
        at: intent.at,
      }),
    );
    // The position is locked and checked above, so the ledger's own guard can only fail on a broken invariant.
    if (!out) throw new Error(`sale of position ${pos.id} was refused by the ledger after its checks passed`);
    return { side: 'SELL', fill, positionId: pos.id, balanceMicro: out.balanceMicro, position: pos };
  }

  /** The market gate: open, and (a mirrored market) locked shared until the trade commits, so it cannot close under it. */
  private async marketOpen(tx: Queryable, venue: Venue, marketId: string): Promise<boolean> {
    const rows =
      venue === 'mirrored'
        ? await tx.query(`SELECT 1 FROM markets WHERE id = $1 AND status = 'active' FOR SHARE`, [marketId], 'trade_gate_mirrored')
        : await tx.query(`SELECT 1 FROM community_markets WHERE id = $1::uuid AND status = 'active'`, [marketId], 'trade_gate_pool');
    return rows.length > 0;
  }

  private async closed(tx: Queryable, venue: Venue, marketId: string): Promise<AppError> {
    const rows =
      venue === 'mirrored'
        ? await tx.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [marketId])
        : await tx.query<{ status: string }>('SELECT status FROM community_markets WHERE id = $1::uuid', [marketId]);
    return marketClosed(rows[0]?.status ?? 'closed', venue);
  }
}

/** What a trade carries from its intent and its pricer: the order whose reservation it consumes, the forecast, the flags. */
function carried(
  intent: Intent,
  pricer: Pricer,
): { releaseMicro?: Micro; orderId?: string; forecast?: IntentForecast; ownMarket?: boolean; thinMarket?: boolean } {
  return {
    ...(pricer.holds ? { releaseMicro: pricer.holds.releaseMicro, orderId: pricer.holds.orderId } : {}),
    ...(intent.forecast ? { forecast: intent.forecast } : {}),
    ...(pricer.ownMarket ? { ownMarket: true } : {}),
    ...(pricer.thinMarket ? { thinMarket: true } : {}),
  };
}

export function marketClosed(status: string, venue: Venue = 'mirrored'): AppError {
  return venue === 'mirrored'
    ? new AppError('MARKET_CLOSED', `This market is ${status}; it no longer trades.`, { hint: 'Search for an active market with search_prediction_markets.' })
    : new AppError('MARKET_CLOSED', `This community market is ${status}; it no longer trades.`, { hint: 'Find an active one with list_community_markets.' });
}

/** A fill whose average price is beyond the intent's limit: refused, nothing changed. */
function priceLimit(what: 'buy' | 'sale', avgMicro: Micro, beyond: 'above' | 'below', limitMicro: Micro): AppError {
  return new AppError('PRICE_LIMIT_EXCEEDED', `This ${what} would fill at an average ${fromMicro(avgMicro)}, ${beyond} your limit ${fromMicro(limitMicro)}.`, {
    hint: `${what === 'buy' ? 'Buy a smaller amount' : 'Sell fewer shares'} or move the limit; quote_trade shows the fill first.`,
  });
}

export function positionClosed(): AppError {
  return new AppError('POSITION_CLOSED', 'This position is already closed.', { hint: 'List open positions with get_portfolio.' });
}
