import { MICRO, type Micro } from '../../domain/money/micro';
import type { BookLevel, Depth } from '../../domain/trading/price-service';

/** Levels shown per side of a synthetic book. */
export const SYNTHETIC_LEVELS = 5;
/** One cent between levels. */
const STEP = 10_000n;
/** Prices stay inside (0, 1) on the venue's 0.001 tick. */
const MIN_PRICE = 1_000n;
const MAX_PRICE = MICRO - 1_000n;
/** Shares at the best level: one per $1,000 the market traded, between these bounds. */
const MIN_BEST_SHARES = 10;
const MAX_BEST_SHARES = 100_000;

/**
 * A small book around a best bid and ask for a venue that publishes none (the simulated venue): SYNTHETIC_LEVELS levels a
 * cent apart on each side, the best one holding a share per $1,000 of the market's volume (10 to 100,000) and each level
 * further out one more such lot. Pure and deterministic: the same prices and volume always give the same book. It is
 * for reading only: the simulated venue fills an order at its best price without limiting it by these sizes.
 */
export function syntheticDepth(bidMicro: Micro, askMicro: Micro, volume: number | null): Depth {
  const best = BigInt(Math.min(MAX_BEST_SHARES, Math.max(MIN_BEST_SHARES, Math.round((volume ?? 0) / 1000)))) * MICRO;
  const side = (from: Micro, dir: 1n | -1n): BookLevel[] => {
    const levels: BookLevel[] = [];
    for (let i = 0n; i < BigInt(SYNTHETIC_LEVELS); i++) {
      const priceMicro = from + dir * i * STEP;
      if (priceMicro < MIN_PRICE || priceMicro > MAX_PRICE) break;
      levels.push({ priceMicro, sizeMicro: best * (i + 1n) });
    }
    return levels;
  };
  return { bids: side(bidMicro, -1n), asks: side(askMicro, 1n) };
}
