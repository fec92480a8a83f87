import { together, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { markActive } from '../accounts/activity';
import { insufficientBalance } from '../ledger/cash';
import { sharesShort } from '../ledger/shares';
import { randomUUID } from 'node:crypto';
import { poolAccount, VENUE } from '../ledger/accounts';
import { buyMoves, buyTransfers, sellMoves, type BuyMoves } from '../ledger/trade-moves';
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
 * How one venue prices an intent, read (and locked) in the trade's transaction before the engine runs: a mirrored or
 * simulated market's book (less what the account took of this snapshot), a community market's pool curve, and a limit
 * order's fill (orders/resting-order-pricer.ts: the order's take at its price, `holds` naming the order whose
 * reservation the trade consumes).
 */
export interface Pricer {
  venue: Venue;
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

/** What execute() did: a buy's position and balance, or a sale. */
export type Executed =
  | { side: 'BUY'; fill: Fill; positionId: string; balanceMicro: Micro }
  | { side: 'SELL'; fill: SellFill; positionId: string; balanceMicro: Micro; position: HeldPosition };

/** A buy once priced: what it spends and the shares it gets at what price (a pricer's fill of the intent). */
interface PricedBuy {
  venue: Venue;
  userId: string;
  marketId: string;
  tokenId: string;
  /** YES or NO of a mirrored market; a community outcome is held as YES of "this label wins". */
  outcome: 'YES' | 'NO';
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  /** Of the account's reserved cash, what this buy consumes (a limit order's fill: Pricer.holds). */
  releaseMicro?: Micro;
  /** The order whose reservation that is (the ledger posts its pending transfer by releaseMicro). */
  orderId?: string;
  /** The venue's fee, included in amountMicro (book-walk.ts) and recorded on the trade; 0 when absent. */
  feeMicro?: Micro;
  /** The buyer created this market (TradeEvent.ownMarket). */
  ownMarket?: boolean;
  /** A community market still too thin for the record (TradeEvent.thinMarket). */
  thinMarket?: boolean;
  at: Date;
  /** The intent's stated forecast (paper_trade's `forecast`): a refused buy records none. */
  forecast?: IntentForecast;
}

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

/** How a sale is priced (execute()'s wrapping of the Pricer): the proceeds of `shares` of the position, after the venue's own checks. */
interface SellPricer {
  /** Refuses a sale this venue does not take now (a closed market), before any share is counted. */
  check(pos: HeldPosition): void;
  /** The sale's fill: the shares, their proceeds and price, the cost basis they carried. Throws to refuse (a price limit). */
  fill(pos: HeldPosition, sharesMicro: Micro): SellFill;
  /** The venue's own bookkeeping (the book's consumption, a pool's curve), sent with the ledger's moves (one round trip). */
  booked?(tx: Queryable, fill: SellFill): Promise<void>;
  /** The venue's ledger account, the other side of the sale's transfers (ledger/accounts.ts): the venue's unless a pool's. */
  account?: string;
}

/** A mirrored market's sale needs it open (its status as read with the locked position). */
export const mirroredOpen = (pos: HeldPosition): void => {
  if (pos.marketStatus !== 'active') throw marketClosed(pos.marketStatus ?? 'closed');
};

/** A sale as execute() hands it on: the intent's account, position and shares, with the reservation it consumes. */
interface SellRequest {
  userId: string;
  positionId: string;
  /** Shares to sell; undefined sells the whole position. */
  wantedMicro: Micro | undefined;
  /** Of the position's reserved shares, what this sale consumes (a limit sell order's fill: Pricer.holds). */
  releaseMicro?: Micro;
  /** The resting order whose reservation that is. */
  orderId?: string;
  /** The seller created this market (TradeEvent.ownMarket). */
  ownMarket?: boolean;
  /** A community market still too thin for the record (TradeEvent.thinMarket). */
  thinMarket?: boolean;
  at: Date;
  /** The intent's stated forecast (a sell order's `probability`): recorded once the sale is written; a refused sale records none. */
  forecast?: IntentForecast;
}

export interface SaleDone {
  fill: SellFill;
  balanceMicro: Micro;
  position: HeldPosition;
}

/**
 * The trade engine, one file to read to learn what a trade does. It has one way in, execute(intent, pricer): every buy
 * and every sale of every venue — paper_trade, sell_position, a community market's pool, a limit order's fill (new or
 * resting) — is one Intent, priced by its venue's Pricer and written here, in the caller's transaction. A buy, in order:
 *   1. the market gate: the market is open (a mirrored market's row is locked shared, so it cannot close meanwhile;
 *      a community market's pool row is already locked by its service);
 *   2. the ledger's moves (ledger/trade-moves.ts): cash out of the account (refused beyond available cash), the shares
 *      into the position, and the transfers — the price to the venue's account, the fee to the venue, the shares back;
 *   3. the trade record (trade-records.ts);
 *   4. the intent's stated forecast, if any (forecasts/, its own chain on its own row);
 *   5. the consumers of the written trade (TradeHooks: events, the track record, notifications).
 * Each step is a plain statement (or a few) of the module that owns its table; a refusal throws, and the caller's
 * transaction rolls every step back. Lock order, always: (a pool,) the market, the account row, its cash, the position.
 */
export class TradeEngine {
  constructor(private readonly hooks: TradeHooks) {}

  /**
   * Executes `intent` against `pricer` in `tx`: the pricer's fill, the intent's limit, then the buy or the sale below
   * (the ledger's moves, the venue's bookkeeping, the trade record, the forecast and the consumers). A refusal throws and
   * the caller's transaction rolls every step back. The caller runs hooks.committed() after its commit.
   */
  async execute(tx: Queryable, intent: Intent, pricer: Pricer): Promise<Executed> {
    // What either side carries from the intent and the pricer: the order whose reservation it consumes, the forecast, the flags.
    const carried = {
      ...(pricer.holds ? { releaseMicro: pricer.holds.releaseMicro, orderId: pricer.holds.orderId } : {}),
      ...(intent.forecast ? { forecast: intent.forecast } : {}),
      ...(pricer.ownMarket ? { ownMarket: true } : {}),
      ...(pricer.thinMarket ? { thinMarket: true } : {}),
      at: intent.at,
    };
    if (intent.side === 'BUY') {
      const fill = pricer.buy(intent);
      if (intent.limitMicro !== undefined && fill.amountMicro * MICRO > intent.limitMicro * fill.quantityMicro)
        throw priceLimit('buy', fill.priceMicro, 'above', intent.limitMicro);
      const priced: PricedBuy = {
        venue: pricer.venue,
        userId: intent.userId,
        marketId: intent.marketId,
        tokenId: intent.tokenId,
        outcome: intent.outcome,
        amountMicro: fill.amountMicro,
        quantityMicro: fill.quantityMicro,
        priceMicro: fill.priceMicro,
        ...(fill.feeMicro !== undefined ? { feeMicro: fill.feeMicro } : {}),
        ...carried,
      };
      const booked = pricer.booked;
      const done = await this.buyWith(
        tx,
        priced,
        booked ? () => booked(tx, 'BUY', { sharesMicro: fill.quantityMicro, cashMicro: fill.amountMicro }) : undefined,
      );
      return { side: 'BUY', fill, ...done };
    }
    if (!intent.positionId) throw new Error('a sale intent names its position');
    if (intent.size.by !== 'shares') throw new AppError('VALIDATION_ERROR', 'A sale is sized in shares.');
    const limit = intent.limitMicro;
    const booked = pricer.booked;
    const sale = await this.sell(
      tx,
      {
        userId: intent.userId,
        positionId: intent.positionId,
        wantedMicro: intent.size.micro,
        ...carried,
      },
      {
        account: pricer.account,
        check: (pos) => pricer.check(pos),
        fill: (pos, shares) => {
          const fill = pricer.sell(pos, shares);
          if (limit !== undefined && fill.proceedsMicro * MICRO < limit * fill.quantityMicro) throw priceLimit('sale', fill.priceMicro, 'below', limit);
          return fill;
        },
        ...(booked ? { booked: (q: Queryable, fill: SellFill) => booked(q, 'SELL', { sharesMicro: fill.quantityMicro, cashMicro: fill.proceedsMicro }) } : {}),
      },
    );
    return { side: 'SELL', fill: sale.fill, positionId: intent.positionId, balanceMicro: sale.balanceMicro, position: sale.position };
  }

  /**
   * A priced buy in `tx`, with the venue's bookkeeping (`booked`) sent alongside the ledger's first statements. Refused
   * — and the transaction is to be rolled back — with INSUFFICIENT_BALANCE beyond available cash, MARKET_CLOSED when
   * the market is not open, NOT_FOUND for no account.
   */
  private async buyWith(tx: Queryable, b: PricedBuy, booked: (() => Promise<void>) | undefined): Promise<{ balanceMicro: Micro; positionId: string }> {
    const tradeId = randomUUID();
    const moves: BuyMoves = {
      userId: b.userId,
      marketId: b.marketId,
      tokenId: b.tokenId,
      outcome: b.outcome,
      amountMicro: b.amountMicro,
      feeMicro: b.feeMicro ?? 0n,
      quantityMicro: b.quantityMicro,
      counter: b.venue === 'pool' ? poolAccount(b.marketId) : VENUE,
      releaseMicro: b.releaseMicro ?? 0n,
      orderId: b.orderId ?? null,
      tradeId,
      newPositionId: randomUUID(),
      at: b.at,
    };
    // The gate, the account row's mark (its lock, the market's then the account's as in every trade; accounts/activity.ts),
    // the ledger's moves and the venue's bookkeeping go out together (one round trip: the venue's row — the account's book
    // consumption, a pool — is locked from its read to the commit); a refusal rolls them all back.
    const [open, , moved] = await together(
      this.marketOpen(tx, b.venue, b.marketId),
      markActive(tx, b.userId, b.at),
      buyMoves(tx, moves),
      booked ? booked() : Promise.resolve(),
    );
    if (!open) throw await this.closed(tx, b.venue, b.marketId);
    if (!moved) {
      const exists = await tx.query('SELECT 1 FROM users WHERE id = $1', [b.userId]);
      if (!exists[0]) throw new AppError('NOT_FOUND', 'Account not found.');
      throw insufficientBalance(`Insufficient available balance for a ${fromMicro(b.amountMicro)} dollar buy.`);
    }
    // The transfers, the record, the forecast and the consumers' first statements go out together, in this order, and
    // each sees those before it.
    await together(
      buyTransfers(tx, moves, moved.positionId),
      recordTrade(tx, {
        id: tradeId,
        userId: b.userId,
        positionId: moved.positionId,
        marketId: b.marketId,
        tokenId: b.tokenId,
        side: 'BUY',
        quantityMicro: b.quantityMicro,
        priceMicro: b.priceMicro,
        cashMicro: -b.amountMicro,
        realizedPnlMicro: 0n,
        feeMicro: b.feeMicro ?? 0n,
        at: b.at,
      }),
      b.forecast ? b.forecast.record(tx) : Promise.resolve(),
      this.hooks.afterTrade(tx, {
        userId: b.userId,
        side: 'BUY',
        marketId: b.marketId,
        tokenId: b.tokenId,
        quantityMicro: b.quantityMicro,
        cashMicro: b.amountMicro,
        realizedPnlMicro: 0n,
        priceMicro: b.priceMicro,
        ...(b.ownMarket ? { ownMarket: true } : {}),
        ...(b.thinMarket ? { thinMarket: true } : {}),
        at: b.at,
      }),
    );
    return moved;
  }

  /**
   * A sale in `tx`, priced by `pricer`: locks the account row, then the position; sells only shares not reserved by
   * resting sell orders, after freeing `releaseMicro` of the position's reservation (a resting sell order consuming its
   * own shares).
   */
  private async sell(tx: Queryable, s: SellRequest, pricer: SellPricer): Promise<SaleDone> {
    await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [s.userId], 'trade_lock_account');
    const rows = await tx.query<{
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
      [s.positionId, s.userId],
      'trade_lock_position',
    );
    const r = rows[0];
    if (!r) throw new AppError('NOT_FOUND', `Position ${s.positionId} not found.`, { hint: 'List your positions with get_portfolio.' });
    if (r.is_closed) throw positionClosed();
    const pos: HeldPosition = {
      id: s.positionId,
      quantityMicro: BigInt(r.quantity_micro),
      costMicro: BigInt(r.cost_micro),
      reservedMicro: BigInt(r.reserved_micro),
      marketId: r.market_id,
      tokenId: r.token_id,
      marketStatus: r.status,
    };
    pricer.check(pos);
    const release = s.releaseMicro ?? 0n;
    const reserved = pos.reservedMicro - release;
    if (reserved < 0n) throw new Error(`position ${s.positionId} reserves ${pos.reservedMicro}, cannot release ${release}`);
    const want = s.wantedMicro ?? pos.quantityMicro;
    if (want <= 0n) throw new AppError('VALIDATION_ERROR', 'quantity must be greater than 0.');
    if (want > pos.quantityMicro) {
      throw new AppError('VALIDATION_ERROR', `quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantityMicro)} shares held.`, {
        hint: 'Omit quantity to sell the whole position.',
      });
    }
    if (want > pos.quantityMicro - reserved) {
      throw sharesShort(`quantity ${fromMicro(want)} exceeds the ${fromMicro(pos.quantityMicro - reserved)} shares available.`, reserved);
    }
    const fill = pricer.fill(pos, want);
    const tradeId = randomUUID();
    // The ledger's moves, the account's mark and the venue's bookkeeping (the book's consumption, a pool's curve) go out together, one round trip.
    const [out] = await together(
      sellMoves(tx, {
        userId: s.userId,
        positionId: s.positionId,
        tokenId: pos.tokenId,
        quantityMicro: fill.quantityMicro,
        costRemovedMicro: fill.costRemovedMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        closes: fill.closes,
        proceedsMicro: fill.proceedsMicro,
        feeMicro: fill.feeMicro ?? 0n,
        counter: pricer.account ?? VENUE,
        releaseMicro: release,
        orderId: s.orderId ?? null,
        tradeId,
        at: s.at,
      }),
      markActive(tx, s.userId, s.at),
      pricer.booked ? pricer.booked(tx, fill) : Promise.resolve(),
    );
    // The position is locked and checked above, so the ledger's own guard can only fail on a broken invariant.
    if (!out) throw new Error(`sale of position ${s.positionId} was refused by the ledger after its checks passed`);
    // The record, the forecast and the consumers' first statements go out together, in this order.
    await together(
      recordTrade(tx, {
        id: tradeId,
        userId: s.userId,
        positionId: s.positionId,
        marketId: pos.marketId,
        tokenId: pos.tokenId,
        side: 'SELL',
        quantityMicro: fill.quantityMicro,
        priceMicro: fill.priceMicro,
        cashMicro: fill.proceedsMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        feeMicro: fill.feeMicro ?? 0n,
        at: s.at,
      }),
      s.forecast ? s.forecast.record(tx) : Promise.resolve(),
      this.hooks.afterTrade(tx, {
        userId: s.userId,
        side: 'SELL',
        marketId: pos.marketId,
        tokenId: pos.tokenId,
        quantityMicro: fill.quantityMicro,
        cashMicro: fill.proceedsMicro,
        realizedPnlMicro: fill.realizedPnlMicro,
        priceMicro: fill.priceMicro,
        positionId: s.positionId,
        ...(s.ownMarket ? { ownMarket: true } : {}),
        ...(s.thinMarket ? { thinMarket: true } : {}),
        at: s.at,
      }),
    );
    return { fill, balanceMicro: out.balanceMicro, position: pos };
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
