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
}

/** The one door trading uses for prices. Throws AppError PRICE_UNAVAILABLE (503) when none is fresh. */
export interface PriceService {
  live(tokenId: string): Promise<LivePrice>;
}
