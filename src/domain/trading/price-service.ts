import type { Micro } from '../money/micro';

export type Side = 'YES' | 'NO';

/** A token's tradable price right now: buys fill at the ask, sells at the bid (both = mid when no book). */
export interface LivePrice {
  tokenId: string;
  bidMicro: Micro;
  askMicro: Micro;
  midMicro: Micro;
  /** When the venue quoted it; older than PRICE_MAX_AGE_S means unavailable. */
  asOf: Date;
  source: 'simulated' | 'polymarket';
  /** The venue's published book (the CLOB's), when it publishes one: what a limit order may take (order-rules take()). */
  depth?: Depth;
}

/** One price level of a book: shares offered at a price (micro-units). */
export interface BookLevel {
  priceMicro: Micro;
  sizeMicro: Micro;
}

/** A published book, best level first on each side (bids high to low, asks low to high). */
export interface Depth {
  bids: BookLevel[];
  asks: BookLevel[];
}

/** A price the service saw change: from the mirror's sync or a live quote. What resting orders are checked against. */
export interface PriceChange {
  tokenId: string;
  bidMicro: Micro;
  askMicro: Micro;
  asOf: Date;
  source: 'simulated' | 'polymarket';
  depth?: Depth;
}

/**
 * Fan-out of the price changes the service sees to whoever acts on them (resting orders). emit() waits for the
 * listeners (the sync, which already runs in the background); background() does not (a live quote fetched for a
 * request must not wait for other accounts' fills) and idle() waits for those before shutdown.
 */
export class PriceChanges {
  private readonly listeners: Array<(changes: PriceChange[]) => Promise<unknown>> = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  on(listener: (changes: PriceChange[]) => Promise<unknown>): void {
    this.listeners.push(listener);
  }

  async emit(changes: PriceChange[]): Promise<void> {
    if (changes.length === 0) return;
    for (const l of this.listeners) await l(changes);
  }

  background(changes: PriceChange[], onError: (err: unknown) => void): void {
    if (changes.length === 0 || this.listeners.length === 0) return;
    const p = this.emit(changes)
      .catch(onError)
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }
}

/** The one door trading uses for prices. Throws AppError PRICE_UNAVAILABLE (503) when none is fresh. */
export interface PriceService {
  live(tokenId: string): Promise<LivePrice>;
}
