import fc from 'fast-check';
import {
  clusteredInterval,
  estimate,
  pooledMean,
  pooledMeanEstimate,
  quantile,
  seededRandom,
  seedOf,
  withInterval,
} from '../../../src/domain/benchmark/estimate';

describe('quantile (type 7)', () => {
  it('interpolates between order statistics as numpy does', () => {
    // numpy.quantile([1, 2, 3, 4], 0.25) = 1.75; 0.5 -> 2.5; 0.975 -> 3.925
    expect(quantile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 12);
    expect(quantile([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5, 12);
    expect(quantile([1, 2, 3, 4], 0.975)).toBeCloseTo(3.925, 12);
    expect(quantile([7], 0.3)).toBe(7);
  });
});

describe('seeded random', () => {
  it('is repeatable and uniform enough', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 20000 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs.slice(0, 5));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
  it('gives different seeds to different labels', () => {
    expect(seedOf('a|2026-11|brier')).not.toBe(seedOf('a|2026-11|log'));
  });
});

describe('clustered bootstrap', () => {
  it('when there is one cluster, there is no interval', () => {
    expect(clusteredInterval([{ sum: 1, count: 2 }], pooledMean, 1)).toBeNull();
    expect(estimate([{ sum: 1, count: 2 }], pooledMean, 2, 1)).toEqual({ value: 0.5, n: 2, low: null, high: null });
  });
  it('when every cluster is the same, the interval is that value', () => {
    const clusters = Array.from({ length: 10 }, () => ({ sum: 0.3, count: 1 }));
    const e = estimate(clusters, pooledMean, 10, 7);
    expect(e.value).toBeCloseTo(0.3, 12);
    expect(e.low).toBeCloseTo(0.3, 12);
    expect(e.high).toBeCloseTo(0.3, 12);
  });
  it('covers the normal-theory interval of a mean on a large sample (independent check)', () => {
    // 400 clusters of one value each, values 0..1 uniform from a fixed generator: the percentile bootstrap of the mean
    // should agree with mean ± 1.96 s/√n within a few hundredths of the width.
    const g = seededRandom(99);
    const xs = Array.from({ length: 400 }, () => g());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
    const half = (1.96 * sd) / Math.sqrt(xs.length);
    const e = estimate(
      xs.map((x) => ({ sum: x, count: 1 })),
      pooledMean,
      400,
      5,
    );
    expect(e.value).toBeCloseTo(mean, 12);
    expect(Math.abs(e.low! - (mean - half))).toBeLessThan(half * 0.15);
    expect(Math.abs(e.high! - (mean + half))).toBeLessThan(half * 0.15);
  });
  it('resamples whole clusters: a cluster of many equal items moves the interval as one unit', () => {
    // Two clusters: 99 items scoring 0 and 1 item scoring 1. Resampled by cluster, a draw is {A,A}, {A,B}, {B,B}:
    // the pooled mean is 0, 0.01 or 1, so the 97.5 % quantile is 1 (a quarter of the draws are {B,B}).
    const e = estimate(
      [
        { sum: 0, count: 99 },
        { sum: 1, count: 1 },
      ],
      pooledMean,
      100,
      3,
    );
    expect(e.value).toBeCloseTo(0.01, 12);
    expect(e.low).toBe(0);
    expect(e.high).toBe(1);
  });
  it('an interval holds its figure even when every resample of a biased statistic lies on one side of it', () => {
    // The statistic counts repeated clusters in a sample: the sample itself has none (0), while a resample of ten
    // clusters drawn with replacement repeats one with probability 1 − 10!/10¹⁰ ≈ 0.9996, so the plain 2.5 %
    // quantile is at least 1. The published interval is stretched down to the figure and keeps the bootstrap's high end.
    const clusters = Array.from({ length: 10 }, (_, i) => ({ id: i }));
    const repeats = (sample: readonly { id: number }[]) => sample.length - new Set(sample.map((c) => c.id)).size;
    const plain = clusteredInterval(clusters, repeats, 13)!;
    expect(plain.low).toBeGreaterThanOrEqual(1);
    const e = estimate(clusters, repeats, 10, 13);
    expect(e).toEqual({ value: 0, n: 10, low: 0, high: plain.high });
    expect(withInterval(0.5, 3, { low: 0.1, high: 0.4 })).toEqual({ value: 0.5, n: 3, low: 0.1, high: 0.5 });
    expect(withInterval(0.5, 3, null)).toEqual({ value: 0.5, n: 3, low: null, high: null });
  });
  it('is the same for the same seed', () => {
    const clusters = [0.1, 0.5, 0.9, 0.3].map((x) => ({ sum: x, count: 1 }));
    expect(estimate(clusters, pooledMean, 4, 11)).toEqual(estimate(clusters, pooledMean, 4, 11));
  });
});

describe('pooled mean estimate (the bootstrap of a mean without cluster objects)', () => {
  const cluster = fc.record({
    sum: fc.oneof(fc.double({ min: -5, max: 5, noNaN: true }), fc.integer({ min: -3, max: 3 })),
    count: fc.integer({ min: 0, max: 4 }),
  });

  it('when clusters of sums and counts are resampled, then the figure and interval are the generic estimate of pooledMean, to the bit', () => {
    fc.assert(
      fc.property(fc.array(cluster, { maxLength: 12 }), fc.integer({ min: 0, max: 40 }), fc.integer(), (clusters, n, seed) => {
        const fast = pooledMeanEstimate(
          clusters.map((c) => c.sum),
          clusters.map((c) => c.count),
          n,
          seed >>> 0,
          200,
        );
        const generic = clusters.length === 0 ? estimate(clusters, pooledMean, n, seed >>> 0) : slowEstimate(clusters, n, seed >>> 0, 200);
        expect(fast).toEqual(generic);
      }),
      { numRuns: 300 },
    );
  });

  it('when each value is its own cluster (no counts), then it is the estimate of pooledMean over { sum: v, count: 1 }', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { maxLength: 20 }), fc.integer(), (values, seed) => {
        expect(pooledMeanEstimate(values, undefined, values.length, seed >>> 0)).toEqual(
          estimate(
            values.map((sum) => ({ sum, count: 1 })),
            pooledMean,
            values.length,
            seed >>> 0,
          ),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('when the values are known, then the figure is their mean, and an interval needs two clusters', () => {
    expect(pooledMeanEstimate([], undefined, 0, 1)).toEqual({ value: null, n: 0, low: null, high: null });
    expect(pooledMeanEstimate([0.2], undefined, 1, 1)).toEqual({ value: 0.2, n: 1, low: null, high: null });
    // Σ sums / Σ counts = (3 + 1) / (2 + 2) = 1; every cluster's own mean is 1.5 or 0.5, so the interval lies within them.
    const e = pooledMeanEstimate([3, 1], [2, 2], 4, 7);
    expect(e.value).toBe(1);
    expect(e.low).toBeGreaterThanOrEqual(0.5);
    expect(e.high).toBeLessThanOrEqual(1.5);
    // No items at all: nothing to score.
    expect(pooledMeanEstimate([0, 0], [0, 0], 0, 7)).toEqual({ value: null, n: 0, low: null, high: null });
  });
});

/** The generic estimate with a given number of resamples (estimate() always draws RESAMPLES). */
function slowEstimate(clusters: { sum: number; count: number }[], n: number, seed: number, resamples: number) {
  const value = pooledMean(clusters);
  if (value === null || !Number.isFinite(value)) return { value: null, n, low: null, high: null };
  return withInterval(value, n, clusteredInterval(clusters, pooledMean, seed, resamples));
}
