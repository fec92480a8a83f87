import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { insufficientBalance } from '../ledger/cash';
import { sharesShort } from '../ledger/shares';
import { fromMicro, type Micro } from '../money/micro';
import { sellFill, type SellFill } from './fills';
import type { BuyRowPart, CarriedPart, TradeEvent, TradeHooks } from './trade-hooks';
import { buyParams, buyStatementWith, SELL_STATEMENT, sellParams, type Venue } from './trade-sql';

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
  /**
   * What the buy carries in its own statement (a stated forecast): a refused buy carries nothing out. One statement where
   * a second one, even pipelined behind the buy's, cost a third of a trade's throughput (bench:trade).
   */
  carry?: CarriedPart;
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
}

export interface SaleDone {
  fill: SellFill;
  balanceMicro: Micro;
  position: HeldPosition;
}

/**
 * The one trade path: every buy and every sale of every venue — paper_trade, sell_position, a community market's pool,
 * a limit order's fill — writes the books here, in the caller's transaction, through the ledger's statements. Positions,
 * cash, journal entries, the trade journal, and the trade hooks (events, track record, XP, badges, challenges,
 * notifications) are written once, whatever priced the trade. Lock order, always: (a pool,) the account row, the position.
 */
export class TradePath {
  /**
   * Per venue and carried part's kind, the buy statement with the listeners' account-row parts, built on the first buy
   * (every listener is attached by then).
   */
  private readonly buys = new Map<string, { parts: number; sql: string; name: string }>();
  /** Per venue and carried part's kind, the buy statement without them, for a buy a part declines (TradeHooks.carriesParts). */
  private readonly bareBuys = new Map<string, { sql: string; name: string }>();

  constructor(private readonly hooks: TradeHooks) {}

  /**
   * A priced buy in `tx`. The hooks' statements are sent right behind the buy's own (one round trip for both on a
   * pipelined connection; PostgreSQL runs them after it, so they see it), and both are awaited before anything is
   * decided, so none outlives the transaction. Refused — and the transaction is to be rolled back — with
   * INSUFFICIENT_BALANCE beyond available cash, MARKET_CLOSED when the market is not open, NOT_FOUND for no account.
   * The caller runs hooks.committed() after its commit.
   */
  async buy(tx: Queryable, b: PricedBuy): Promise<{ balanceMicro: Micro; positionId: string }> {
    const event: TradeEvent = {
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
    };
    const carried = this.hooks.carriesParts(event);
    const statement = this.buyStatement(b.venue, carried, b.carry);
    const parts: readonly BuyRowPart[] = [...(carried ? this.hooks.buyRowParts : []), ...(b.carry ? [b.carry] : [])];
    type Answer = { market_ok: boolean; balance_micro: bigint | null; position_id: string | null } & Record<string, unknown>;
    const bought = tx.query<Answer>(statement.sql, [...buyParams(b), ...parts.flatMap((p) => p.params(event))], statement.name);
    const hooked = this.hooks.afterTrade(tx, event, carried);
    hooked.catch(() => {}); // awaited below; a failure arriving first must not count as unhandled meanwhile
    let row: Answer;
    try {
      row = (await bought)[0]!;
    } catch (err) {
      await Promise.allSettled([hooked]);
      throw err;
    }
    await hooked;
    if (!row.market_ok) throw await this.closed(tx, b.venue, b.marketId);
    if (row.balance_micro === null || row.position_id === null) {
      const exists = await tx.query('SELECT 1 FROM users WHERE id = $1', [b.userId]);
      if (!exists[0]) throw new AppError('NOT_FOUND', 'Account not found.');
      throw insufficientBalance(`Insufficient available balance for a ${fromMicro(b.amountMicro)} dollar buy.`);
    }
    if (carried) await this.hooks.afterBuyRow(tx, event, row);
    if (b.carry) await b.carry.after(tx, event, row);
    return { balanceMicro: BigInt(row.balance_micro), positionId: row.position_id };
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
    const out = await tx.query<{ balance_micro: bigint }>(
      SELL_STATEMENT,
      sellParams({
        userId: s.userId,
        positionId: s.positionId,
        fill,
        at: s.at,
        marketId: pos.marketId,
        tokenId: pos.tokenId,
        releaseMicro: release,
        ...(s.orderId ? { orderId: s.orderId } : {}),
        ...(pricer.account ? { counter: pricer.account } : {}),
      }),
      'sell',
    );
    // The position is locked and checked above, so the statement's own guard can only fail on a broken invariant.
    if (!out[0]) throw new Error(`sale of position ${s.positionId} was refused by the ledger after its checks passed`);
    if (pricer.booked) await pricer.booked(tx, fill);
    await this.hooks.afterTrade(tx, {
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
    });
    return { fill, balanceMicro: BigInt(out[0].balance_micro), position: pos };
  }

  private buyStatement(venue: Venue, withParts: boolean, carry: CarriedPart | undefined): { sql: string; name: string } {
    const own = carry ? [carry] : [];
    if (!withParts) {
      const key = `${venue}_0${carry ? `_${carry.key}` : ''}`;
      let bare = this.bareBuys.get(key);
      if (!bare) {
        bare = { sql: buyStatementWith(own, venue), name: `buy_${key}` };
        this.bareBuys.set(key, bare);
      }
      return bare;
    }
    const parts = this.hooks.buyRowParts;
    const key = `${venue}_${parts.length}${carry ? `_${carry.key}` : ''}`;
    let built = this.buys.get(key);
    if (!built) {
      // Named by venue and parts, so paths with other listeners (a benchmark's, a test's) can share a connection.
      built = { parts: parts.length, sql: buyStatementWith([...parts, ...own], venue), name: `buy_${key}` };
      this.buys.set(key, built);
    }
    // Its text is prepared under one name on every connection: it cannot change once a buy has used it.
    if (built.parts !== parts.length) throw new Error('a trade listener with a buy-row part was attached after the first buy');
    return built;
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
