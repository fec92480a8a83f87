import { NO_FEE, type FeeSchedule } from './book-walk';
import type { Depth, LivePrice } from './price-service';

/**
 * What a venue publishes for a fill to walk: its book (the same levels get_order_book shows) and its fee schedule.
 * The market-data layer provides the venues' own (market-data/venue-books.ts); a venue without sizes gives no depth,
 * and a fill there takes everything at its best price.
 */
export interface VenueBooks {
  /** The book of a live quote; `volume` is the market's traded dollars (the simulated venue sizes its book by it). */
  depth(live: LivePrice, volume: number | null): Depth | undefined;
  /** The taker fee of the quote's venue. */
  fee(live: LivePrice): FeeSchedule;
}

/** Only the depth a quote carries, and no fee: for a trading service built without the venues (domain tests, benches). */
export const PUBLISHED_ONLY: VenueBooks = { depth: (live) => live.depth, fee: () => NO_FEE };
