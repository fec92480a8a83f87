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
 * A listener's share of a buy's own update of the account row (alias `s`), for what it keeps on that row: a second
 * row updated in every buy cost far more than the same expressions on the row the buy writes anyway (migration
 * 1700000000026). Its parameters follow the buy's own.
 */
export interface BuyRowPart {
  /** The assignments, `column = expression, ...`, its parameters numbered from `first`. */
  set(first: number): string;
  /** CTEs the assignments read, `name AS (...)`, placed before the account row's update (its parameters from `first` too). */
  ctesBefore?(first: number): string;
  /** CTEs that write from the update's answer, `name AS (... FROM debit ...)`, placed after the buy's own (same numbering). */
  ctesAfter?(first: number): string;
  /** What it reads back, `expression AS name` each; the buy's answer carries them under their names (unless `answered` is false). */
  returning: string[];
  /** False when only its own CTEs read what it reads back (ctesAfter): the buy's answer then leaves those columns out. */
  answered?: boolean;
  /** How many parameters it takes. */
  count: number;
  /** Its parameters for this buy (`count` of them), in the order `set` numbers them. */
  params(event: TradeEvent): unknown[];
  /** In the buy's transaction, once the buy has succeeded: what its columns of the answer call for. */
  after(tx: Queryable, event: TradeEvent, row: Record<string, unknown>): Promise<void>;
  /** Whether this buy is the part's business at all (default yes); a buy one part declines carries none, and its listeners are called. */
  applies?(event: TradeEvent): boolean;
}

/** A buy's own part, not a listener's (a stated forecast): `key` names its kind, so each kind's statement is prepared once. */
export type CarriedPart = BuyRowPart & { key: string };

/**
 * What other areas (leaderboard aggregates, XP, challenges, badges) do inside a trade's own
 * transaction, so a trade and its consequences commit together. A buy's listeners are called as soon as
 * its statement has been sent, not after its result: their statements run behind it in the same
 * transaction (and see it), and a refused buy rolls them back. Sales and settlements call them after.
 */
export class TradeHooks {
  private readonly listeners: Array<{ listener: TradeListener; part?: BuyRowPart }> = [];
  private readonly parts: BuyRowPart[] = [];
  private readonly commitListeners: Array<() => void> = [];

  /**
   * A listener of every trade. With a `part`, every buy of the trade path (TradePath.buy: paper_trade, a resting order's
   * fill, a community buy) carries the part in its own statement and calls the part's `after` instead of the listener;
   * a buy that a part declines (carriesParts) carries none and calls the listener.
   */
  on(listener: TradeListener, part?: BuyRowPart): void {
    this.listeners.push({ listener, part });
    if (part) this.parts.push(part);
  }

  /** The listeners' shares of a buy's account-row update, in registration order (kept, not rebuilt on every buy). */
  get buyRowParts(): readonly BuyRowPart[] {
    return this.parts;
  }

  /**
   * Whether this buy's statement carries the parts: all of them, unless one declines the event (`applies`). Then it carries
   * none and afterTrade calls every listener, as for a buy whose statement carries no part.
   */
  carriesParts(event: TradeEvent): boolean {
    return this.parts.length > 0 && this.parts.every((p) => p.applies?.(event) ?? true);
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
   * is called, so all of them go out together behind the trade's own (one round trip, not one per listener) and run
   * in registration order; what a listener sends after an answer comes after every listener's first statement.
   * Resolves, or throws the first failure, only once every listener has finished: none outlives the transaction.
   * `partsSent`: the buy's statement carried the listeners' parts (buyRowParts); those listeners are left out.
   */
  async afterTrade(tx: Queryable, event: TradeEvent, partsSent = false): Promise<void> {
    const called = partsSent ? this.listeners.filter((l) => !l.part) : this.listeners;
    const done = await Promise.allSettled(called.map((l) => l.listener(tx, event)));
    const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** After a buy whose statement carried the parts succeeded: each part's `after`, one after the other. */
  async afterBuyRow(tx: Queryable, event: TradeEvent, row: Record<string, unknown>): Promise<void> {
    for (const part of this.buyRowParts) await part.after(tx, event, row);
  }
}
