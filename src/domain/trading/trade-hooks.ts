import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';

export interface TradeEvent {
  userId: string;
  side: 'BUY' | 'SELL' | 'SETTLE';
  marketId: string;
  tokenId: string;
  quantityMicro: Micro;
  /** Dollars moved: spent on a buy, received on a sell or settlement. */
  cashMicro: Micro;
  realizedPnlMicro: Micro;
  /** The fill's price per share (a settlement's payout per share); absent, readers take cashMicro / quantityMicro. */
  priceMicro?: Micro;
  /** The position bought into, sold from or settled, when the caller knows it. */
  positionId?: string;
  /** On settlement: whether the position was on the winning side (null for a void market). */
  won?: boolean | null;
  /** On settlement: the entry price of the settled shares (micro-dollars), for calibration. */
  entryPriceMicro?: Micro;
  /**
   * The trader created this market (a community market's creator trading or holding in it). The money moves as for any
   * trade; the track record leaves the event out (track-record/record-rule.ts).
   */
  ownMarket?: boolean;
  /**
   * A community market that has not yet had COMMUNITY_MIN_TRADERS distinct traders besides its creator: the money moves
   * as for any trade; the track record leaves the event out (track-record/record-rule.ts).
   */
  thinMarket?: boolean;
  at: Date;
}

export type TradeListener = (tx: Queryable, event: TradeEvent) => Promise<void>;

/**
 * What other areas (track record: figures, XP, challenges, badges; events; notifications) do inside a trade's own
 * transaction, as consumers of the written trade, so a trade and its consequences commit together.
 */
export class TradeHooks {
  private readonly listeners: TradeListener[] = [];
  private readonly commitListeners: Array<() => void> = [];

  /** A listener of every trade: called in the trade's transaction once the trade itself is written. */
  on(listener: TradeListener): void {
    this.listeners.push(listener);
  }

  /** Called after a trade, sale or settlement has committed (caches of derived data start over). */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  committed(): void {
    for (const l of this.commitListeners) l();
  }

  /**
   * Starts every listener at once, in the order they were registered. Each sends its first statement as soon as it
   * is called, so all of them go out together (one round trip, not one per listener) and run in registration order;
   * what a listener sends after an answer comes after every listener's first statement. Resolves, or throws the first
   * failure, only once every listener has finished: none outlives the transaction.
   */
  async afterTrade(tx: Queryable, event: TradeEvent): Promise<void> {
    const done = await Promise.allSettled(this.listeners.map((l) => l(tx, event)));
    const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
