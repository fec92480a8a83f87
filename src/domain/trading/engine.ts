import { together, type Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { insufficientBalance } from '../ledger/cash';
import { sharesShort } from '../ledger/shares';
import { randomUUID } from 'node:crypto';
import { poolAccount, VENUE } from '../ledger/accounts';
import { buyMoves, buyTransfers, sellMoves, type BuyMoves } from '../ledger/trade-moves';
import { fromMicro, type Micro } from '../money/micro';
import { sellFill, type SellFill } from './fills';
import type { TradeHooks } from './trade-hooks';
import { recordTrade } from './trade-records';

/** Where a trade executes: a mirrored (or simulated) market's book, or a community market's pool. */
export type Venue = 'mirrored' | 'pool';

/** A stated forecast that comes with a trade's intent: recorded in the trade's transaction once the trade is written. */
export interface IntentForecast {
  record(tx: Queryable): Promise<void>;
}

/** A buy once priced: what it spends and the shares it gets at what price (a live quote, a pool, or a limit against the book). */
export interface PricedBuy {
  venue: Venue;
  userId: string;
  marketId: string;
  tokenId: string;
  /** YES or NO of a mirrored market; a community outcome is held as YES of "this label wins". */
  outcome: 'YES' | 'NO';
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  /** Of the account's reserved cash, what this buy consumes (a resting buy order's fill). */
  releaseMicro?: Micro;
  /** The resting order whose reservation that is (the ledger posts its pending transfer by releaseMicro). */
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

/** How a sale is priced: the proceeds of `shares` of the position, after the venue's own checks. */
export interface SellPricer {
  /** Refuses a sale this venue does not take now (a closed market), before any share is counted. */
  check(pos: HeldPosition): void;
  /** The sale's fill: the shares, their proceeds and price, the cost basis they carried. Throws to refuse (a price limit). */
  fill(pos: HeldPosition, sharesMicro: Micro): SellFill;
  /** After the books moved, in the same transaction: the venue's own bookkeeping (a pool's shares and cash). */
  booked?(tx: Queryable, fill: SellFill): Promise<void>;
  /** The venue's ledger account, the other side of the sale's transfers (ledger/accounts.ts): the venue's unless a pool's. */
  account?: string;
}

/** The proceeds at a bid price per share (a mirrored market's live bid, or a resting sell order's limit against the book). */
export const atBid = (bidMicro: Micro, check: (pos: HeldPosition) => void): SellPricer => ({
  check,
  fill: (pos, shares) => sellFill({ quantityMicro: pos.quantityMicro, costMicro: pos.costMicro }, shares, bidMicro),
});

/** A mirrored market's sale needs it open (its status as read with the locked position). */
export const mirroredOpen = (pos: HeldPosition): void => {
  if (pos.marketStatus !== 'active') throw marketClosed(pos.marketStatus ?? 'closed');
};

export interface SellRequest {
  userId: string;
  positionId: string;
  /** Shares to sell; undefined sells the whole position. */
  wantedMicro: Micro | undefined;
  /** Of the position's reserved shares, what this sale consumes (a resting sell order's fill). */
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
 * The trade engine: every buy and every sale of every venue — paper_trade, sell_position, a community market's pool,
 * a limit order's fill — is written here, in the caller's transaction, once a pricer has priced it. A buy, in order:
 *   1. the market gate: the market is open (a mirrored market's row is locked shared, so it cannot close meanwhile;
 *      a community market's pool row is already locked by its service);
 *   2. the ledger's moves (ledger/trade-moves.ts): cash out of the account (refused beyond available cash), the shares
 *      into the position, and the transfers — the price to the venue's account, the fee to the venue, the shares back;
 *   3. the trade record (trade-records.ts);
 *   4. the intent's stated forecast, if any (forecasts/, its own chain on its own row);
 *   5. the consumers of the written trade (TradeHooks: events, the track record, notifications).
 * Each step is a plain statement (or a few) of the module that owns its table; a refusal throws, and the caller's
 * transaction rolls every step back. Lock order, always: (a pool,) the market, the account row, the position.
 */
export class TradeEngine {
  constructor(private readonly hooks: TradeHooks) {}

  /**
   * A priced buy in `tx`. Refused — and the transaction is to be rolled back — with INSUFFICIENT_BALANCE beyond
   * available cash, MARKET_CLOSED when the market is not open, NOT_FOUND for no account. The caller runs
   * hooks.committed() after its commit.
   */
  async buy(tx: Queryable, b: PricedBuy): Promise<{ balanceMicro: Micro; positionId: string }> {
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
    // The gate and the ledger's moves go out together; on a refusal the caller's transaction rolls them back.
    const [open, moved] = await together(this.marketOpen(tx, b.venue, b.marketId), buyMoves(tx, moves));
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
   * own shares). The caller runs hooks.committed() after its commit.
   */
  async sell(tx: Queryable, s: SellRequest, pricer: SellPricer): Promise<SaleDone> {
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
    const out = await sellMoves(tx, {
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
    });
    // The position is locked and checked above, so the ledger's own guard can only fail on a broken invariant.
    if (!out) throw new Error(`sale of position ${s.positionId} was refused by the ledger after its checks passed`);
    // The record, the venue's own bookkeeping, the forecast and the consumers' first statements go out together, in this order.
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
      pricer.booked ? pricer.booked(tx, fill) : Promise.resolve(),
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

export function positionClosed(): AppError {
  return new AppError('POSITION_CLOSED', 'This position is already closed.', { hint: 'List open positions with get_portfolio.' });
}
