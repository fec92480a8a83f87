import { MICRO, type Micro } from '../../domain/money/micro';
import type { BookLevel, Depth } from '../../domain/trading/price-service';

/** Levels shown per side of a synthetic book. */
export const SYNTHETIC_LEVELS = 5;
/** One cent between levels. */
const STEP = 10_000n;
/** Prices stay inside (0, 1) on the venue's 0.001 tick. */
const MIN_PRICE = 1_000n;
const MAX_PRICE = MICRO - 1_000n;
/** Dollars at the best level: a twentieth of what the market traded, between these bounds. */
const MIN_BEST_DOLLARS = 2_500;
const MAX_BEST_DOLLARS = 250_000;

/** Whole shares worth `dollars` at `priceMicro`. */
const sharesWorth = (dollars: number, priceMicro: Micro): Micro => ((BigInt(dollars) * MICRO * MICRO) / priceMicro / MICRO) * MICRO;

/**
 * The simulated venue's book (it publishes no other): SYNTHETIC_LEVELS levels a cent apart on each side of the best bid
 * and ask. The best level holds whole shares worth a twentieth of the market's traded volume in dollars ($2,500 to
 * $250,000, so a $1,000 account's trade fills at the best price, as on a liquid venue), and each level further out
 * one more such lot. Pure and deterministic: the same prices and volume always give the same book. Fills walk it
 * (domain/trading/book-walk.ts), as get_order_book shows it.
 */
export function syntheticDepth(bidMicro: Micro, askMicro: Micro, volume: number | null): Depth {
  const dollars = Math.min(MAX_BEST_DOLLARS, Math.max(MIN_BEST_DOLLARS, Math.round((volume ?? 0) / 20)));
  const side = (from: Micro, dir: 1n | -1n): BookLevel[] => {
    const levels: BookLevel[] = [];
    if (from < MIN_PRICE || from > MAX_PRICE) return levels;
    const lot = sharesWorth(dollars, from);
    for (let i = 0n; i < BigInt(SYNTHETIC_LEVELS); i++) {
      const priceMicro = from + dir * i * STEP;
      if (priceMicro < MIN_PRICE || priceMicro > MAX_PRICE) break;
      levels.push({ priceMicro, sizeMicro: lot * (i + 1n) });
    }
    return levels;
  };
  return { bids: side(bidMicro, -1n), asks: side(askMicro, 1n) };
}
