import type { FeeSchedule } from '../domain/trading/book-walk';
import type { Depth, LivePrice } from '../domain/trading/price-service';
import type { VenueBooks } from '../domain/trading/venue-books';
import { syntheticDepth } from './simulated/synthetic-book';

/**
 * The book a fill walks and get_order_book shows, one rule for both: the venue's published levels (the CLOB's /book),
 * else, on the simulated venue, its synthetic book around the live best prices (simulated/synthetic-book.ts). A mirrored
 * quote without levels (the venue unreachable, its last synced best prices served) has none.
 */
export function venueDepth(live: LivePrice, volume: number | null): Depth | undefined {
  return live.depth ?? (live.source === 'simulated' ? syntheticDepth(live.bidMicro, live.askMicro, volume) : undefined);
}

/**
 * The venues' books and taker fees (docs/market-data.md "Fills and fees"): the simulated venue charges its configured
 * SIM_FEE_BPS; the mirror charges none (the service does not read a per-market Polymarket fee rate yet).
 */
export function venueBooks(opts: { simFeeBps: number }): VenueBooks {
  const simulated: FeeSchedule = { rateBps: opts.simFeeBps };
  const mirrored: FeeSchedule = { rateBps: 0 };
  return { depth: venueDepth, fee: (live) => (live.source === 'simulated' ? simulated : mirrored) };
}
