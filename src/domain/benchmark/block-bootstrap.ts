import { LEVEL, percentileInterval, RESAMPLES } from './estimate';

/** Block length of the moving-block bootstrap: n^(1/3), the usual order for a variance-type statistic, at least 1. */
export function blockLength(n: number): number {
  return Math.max(1, Math.round(Math.cbrt(n)));
}

/**
 * Percentile interval from a moving-block bootstrap of a time series (daily returns). Days are not independent (a
 * drawdown is a run of bad days), so each resample glues ceil(n/b) randomly started blocks of b consecutive returns,
 * truncated to n, and keeps the order inside a block. Blocks do not wrap around the end. A resample whose statistic is
 * undefined (null or not finite) is skipped; null with fewer than two returns or when fewer than half the resamples
 * gave a value, as the clustered interval in estimate.ts.
 */
export function blockInterval(
  returns: readonly number[],
  statistic: (sample: readonly number[]) => number | null,
  seed: number,
  resamples = RESAMPLES,
  level = LEVEL,
): { low: number; high: number } | null {
  const n = returns.length;
  if (n < 2) return null;
  const b = blockLength(n);
  const starts = n - b + 1;
  const draw = (sample: number[], random: () => number) => {
    for (let filled = 0; filled < n;) {
      const start = Math.floor(random() * starts);
      for (let j = 0; j < b && filled < n; j++) sample[filled++] = returns[start + j]!;
    }
  };
  return percentileInterval(n, draw, statistic, seed, resamples, level);
}
