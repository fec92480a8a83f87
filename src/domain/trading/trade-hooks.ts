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
  at: Date;
}

export type TradeListener = (tx: Queryable, event: TradeEvent) => Promise<void>;

/**
 * What other areas (leaderboard aggregates, XP, challenges, badges) do inside a trade's own
 * transaction, so a trade and its consequences commit together. A buy's listeners are called as soon as
 * its statement has been sent, not after its result: their statements run behind it in the same
 * transaction (and see it), and a refused buy rolls them back. Sales and settlements call them after.
 */
export class TradeHooks {
  private readonly listeners: TradeListener[] = [];
  private readonly commitListeners: Array<() => void> = [];

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

  async afterTrade(tx: Queryable, event: TradeEvent): Promise<void> {
    for (const l of this.listeners) await l(tx, event);
  }
}
