import { seededRandom } from './estimate';

/**
 * The ranking statistics of the benchmark boards (issue 52 item 3; docs/scoring.md): a paired bootstrap with its
 * p-value, Holm's correction across a board, the smallest edge a sample can detect and rank intervals. The intervals of
 * single figures live beside their estimates (estimate.ts, block-bootstrap.ts, forecast-scores' Wilson interval,
 * replay's Student-t interval); what ranks accounts against each other lives here.
 */

/** Replicates of the paired bootstrap behind a p-value: odd, as ForecastBench's 1,999, so (k + 1)/(R + 1) is exact in tenths of a per mille. */
export const RANKING_REPLICATES = 1999;
/** z of the two-sided 5 % test and of 80 % power: the minimum detectable edge is (Z_ALPHA + Z_POWER) σ / √n. */
export const Z_ALPHA = 1.959963984540054;
export const Z_POWER = 0.8416212335729143;

const { floor } = Math;

/**
 * A paired bootstrap of per-question differences d_i = reference score − own score (positive: better than the
 * reference): the mean, its 95 % percentile interval and the one-sided p-value of "no better than the reference",
 * (1 + #{replicate means ≤ 0}) / (R + 1). Null figures below two questions.
 */
export function pairedBootstrap(
  differences: readonly number[],
  seed: number,
  replicates = RANKING_REPLICATES,
): { mean: number | null; low: number | null; high: number | null; pValue: number | null } {
  const n = differences.length;
  if (n === 0) return { mean: null, low: null, high: null, pValue: null };
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  if (n < 2) return { mean, low: null, high: null, pValue: null };
  const random = seededRandom(seed);
  const means = new Float64Array(replicates);
  let notAbove = 0;
  for (let r = 0; r < replicates; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += differences[floor(random() * n)]!;
    means[r] = s / n;
    if (means[r]! <= 0) notAbove++;
  }
  means.sort();
  // With R = 1,999 the 2.5 % and 97.5 % points are the 50th and the 1,950th order statistics exactly.
  return {
    mean,
    low: means[Math.round(0.025 * (replicates + 1)) - 1]!,
    high: means[Math.round(0.975 * (replicates + 1)) - 1]!,
    pValue: (1 + notAbove) / (replicates + 1),
  };
}

/** Holm's step-down adjustment of p-values (nulls left null, not counted): controls the family-wise error at any level. */
export function holm(pValues: ReadonlyArray<number | null>): Array<number | null> {
  const order = pValues
    .map((p, i) => ({ p, i }))
    .filter((x): x is { p: number; i: number } => x.p !== null)
    .sort((a, b) => a.p - b.p || a.i - b.i);
  const m = order.length;
  const adjusted: Array<number | null> = pValues.map(() => null);
  let running = 0;
  order.forEach(({ p, i }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** The smallest mean edge n paired questions of standard deviation sd can tell from none (two-sided α 0.05, power 0.8). */
export function minimumDetectableEdge(differences: readonly number[]): number | null {
  const n = differences.length;
  if (n < 2) return null;
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  const sd = Math.sqrt(differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1));
  return ((Z_ALPHA + Z_POWER) * sd) / Math.sqrt(n);
}

/** Metaculus's shrinkage of a small sample: the total over max(floor, n), so a handful of lucky questions cannot top a board. */
export const SHRINK_FLOOR = 30;
export function shrunkMean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((s, v) => s + v, 0) / Math.max(SHRINK_FLOOR, values.length);
}

/**
 * Rank intervals from 95 % intervals, in a board's order (best first): a row's best rank is 1 + the rows whose whole
 * interval is better than its own (they rank above it whatever the resampling), its worst `total` − the rows whose whole
 * interval is worse. `total` counts every ranked row, also those not listed: an unlisted row is never counted as
 * surely worse, so the worst rank is conservative. A row without an interval can be anywhere: 1 to total.
 */
export function rankIntervals(
  rows: ReadonlyArray<{ low: number | null; high: number | null }>,
  total: number,
  higherIsBetter: boolean,
): Array<{ low: number; high: number }> {
  const better = (a: { low: number | null; high: number | null }, b: { low: number | null; high: number | null }) =>
    a.low !== null && a.high !== null && b.low !== null && b.high !== null && (higherIsBetter ? a.low > b.high : a.high < b.low);
  return rows.map((r) => {
    let above = 0;
    let below = 0;
    for (const o of rows) {
      if (o === r) continue;
      if (better(o, r)) above++;
      else if (better(r, o)) below++;
    }
    return { low: 1 + above, high: Math.max(1 + above, total - below) };
  });
}
