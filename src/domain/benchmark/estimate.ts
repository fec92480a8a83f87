import { createHash } from 'node:crypto';

/**
 * A benchmark figure with what stands behind it: `n` observations (resolved markets, buys or days, as the figure says)
 * and a 95 % interval. The interval is null when it cannot be told (fewer than two clusters to resample); the value is
 * null when there is nothing to score.
 */
export interface Estimate {
  value: number | null;
  n: number;
  low: number | null;
  high: number | null;
}

export const NO_ESTIMATE: Estimate = { value: null, n: 0, low: null, high: null };

/** How many resamples a bootstrap draws and its confidence level: fixed, so a record recomputed anywhere gives the same interval. */
export const RESAMPLES = 1000;
export const LEVEL = 0.95;

// Bound once: under Jest every Math.* lookup goes through a guarded global and costs some 150 ns, which the
// bootstrap's inner loop would pay millions of times.
const { floor, imul } = Math;

/** mulberry32: a small seeded PRNG, uniform on [0, 1). Deterministic, so an interval is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from a label (say the account, the season and the figure), so each figure's resampling is its own and repeatable. */
export function seedOf(label: string): number {
  return createHash('sha256').update(label).digest().readUInt32BE(0);
}

/** The q-quantile of sorted values, linear between order statistics (type 7, as R's and numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new Error('quantile of nothing');
  const h = (sorted.length - 1) * q;
  const lo = floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Percentile bootstrap clustered by unit: each resample draws as many clusters as there are, with replacement, and
 * computes the statistic over the drawn clusters. Clusters are markets for forecast and timing scores (a market's
 * forecasts are not independent of each other) and days for risk scores. A resample whose statistic is undefined
 * (null or not finite) is skipped. Null when fewer than two clusters or fewer than half the resamples gave a value.
 */
export function clusteredInterval<C>(
  clusters: readonly C[],
  statistic: (sample: readonly C[]) => number | null,
  seed: number,
  resamples = RESAMPLES,
  level = LEVEL,
): { low: number; high: number } | null {
  if (clusters.length < 2) return null;
  const draw = (sample: C[], random: () => number) => {
    for (let i = 0; i < clusters.length; i++) sample[i] = clusters[floor(random() * clusters.length)]!;
  };
  return percentileInterval(clusters.length, draw, statistic, seed, resamples, level);
}

/**
 * The percentile bootstrap every interval here shares: `resamples` samples of `size`, each filled by `draw`; a resample
 * whose statistic is undefined (null or not finite) is skipped; null when fewer than half gave a value.
 */
export function percentileInterval<T>(
  size: number,
  draw: (sample: T[], random: () => number) => void,
  statistic: (sample: readonly T[]) => number | null,
  seed: number,
  resamples = RESAMPLES,
  level = LEVEL,
): { low: number; high: number } | null {
  const random = seededRandom(seed);
  const values: number[] = [];
  const sample: T[] = new Array<T>(size);
  for (let r = 0; r < resamples; r++) {
    draw(sample, random);
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return percentiles(
    values.sort((a, b) => a - b),
    resamples,
    level,
  );
}

/** The interval of the statistics the resamples gave, sorted; null when fewer than half of them gave one. */
function percentiles(sorted: ArrayLike<number>, resamples: number, level: number): { low: number; high: number } | null {
  if (sorted.length < resamples / 2) return null;
  const tail = (1 - level) / 2;
  return { low: quantile(sorted, tail), high: quantile(sorted, 1 - tail) };
}

/**
 * A figure and its bootstrap interval as one Estimate. The interval always holds the figure: the resamples of a
 * biased statistic (reliability and resolution are variance-like and grow when clusters repeat) can all fall on one
 * side of it at small n, and a published [low, high] that excludes its own value reads as an error. Stretching the
 * near end to the value only widens the interval, so its coverage never drops.
 */
export function withInterval(value: number, n: number, interval: { low: number; high: number } | null): Estimate {
  if (interval === null) return { value, n, low: null, high: null };
  return { value, n, low: Math.min(interval.low, value), high: Math.max(interval.high, value) };
}

/** A statistic over clusters with its clustered bootstrap interval; `n` is what the figure counts (given by the caller). */
export function estimate<C>(clusters: readonly C[], statistic: (sample: readonly C[]) => number | null, n: number, seed: number): Estimate {
  const value = clusters.length === 0 ? null : statistic(clusters);
  if (value === null || !Number.isFinite(value)) return { ...NO_ESTIMATE, n };
  return withInterval(value, n, clusteredInterval(clusters, statistic, seed));
}

/**
 * The pooled mean of clusters (Σ sums / Σ counts, each cluster `sums[i]` over `counts[i]` items, or one item each when
 * `counts` is left out) with its clustered bootstrap interval; `n` is what the figure counts. It is `estimate` of
 * `pooledMean` over `{ sum, count }` clusters, computed without those objects: the same draws in the same order and the
 * same sums, so the same figure and interval to the bit. Most of a record's figures are such means, and the objects'
 * draws and their collection were most of what scoring one cost.
 */
export function pooledMeanEstimate(
  sums: readonly number[],
  counts: readonly number[] | undefined,
  n: number,
  seed: number,
  resamples = RESAMPLES,
  level = LEVEL,
): Estimate {
  const k = sums.length;
  let total = 0;
  let items = 0;
  for (let i = 0; i < k; i++) {
    total += sums[i]!;
    items += counts === undefined ? 1 : counts[i]!;
  }
  const value = items === 0 ? null : total / items;
  if (value === null || !Number.isFinite(value)) return { ...NO_ESTIMATE, n };
  if (k < 2) return withInterval(value, n, null);
  const random = seededRandom(seed);
  // A mean here is never -0 (its sum starts at +0), so the typed array's own numeric sort orders it as a - b would.
  const means = new Float64Array(resamples);
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let count = 0;
    if (counts === undefined) {
      for (let i = 0; i < k; i++) sum += sums[floor(random() * k)]!;
      count = k;
    } else {
      for (let i = 0; i < k; i++) {
        const j = floor(random() * k);
        sum += sums[j]!;
        count += counts[j]!;
      }
    }
    if (count === 0) continue;
    const mean = sum / count;
    if (Number.isFinite(mean)) means[kept++] = mean;
  }
  return withInterval(value, n, percentiles(means.subarray(0, kept).sort(), resamples, level));
}

/** The mean of per-cluster sums: Σ sums / Σ counts, the statistic of a score averaged over items but resampled by cluster. */
export function pooledMean(sample: readonly { sum: number; count: number }[]): number | null {
  let s = 0;
  let c = 0;
  for (const x of sample) {
    s += x.sum;
    c += x.count;
  }
  return c === 0 ? null : s / c;
}
