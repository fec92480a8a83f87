import { LEVEL, percentileInterval, RESAMPLES, seededRandom, type Estimate } from './estimate';

/**
 * The service's statistics, in one module (issue 50 item 4): means and the sample standard deviation, the normal
 * distribution, Student's t and its interval of a mean, the Wilson interval of a proportion, the moving-block and the
 * paired bootstrap, and the ranking statistics of the benchmark boards (issue 52 item 3; docs/scoring.md): Holm's
 * correction across a board, the smallest edge a sample can detect and rank intervals. Estimates of single figures
 * (estimate.ts) resample with these; every caller imports them from here.
 */

/** Replicates of the paired bootstrap behind a p-value: odd, as ForecastBench's 1,999, so (k + 1)/(R + 1) is exact in tenths of a per mille. */
export const RANKING_REPLICATES = 1999;
/** z of the two-sided 5 % test and of 80 % power: the minimum detectable edge is (Z_ALPHA + Z_POWER) σ / √n. */
export const Z_ALPHA = 1.959963984540054;
export const Z_POWER = 0.8416212335729143;

const { floor } = Math;

/** The arithmetic mean; NaN for no values (callers guard the empty sample). */
export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** The sample standard deviation (n − 1 in the denominator); null below two values. */
export function sampleSd(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

// W. J. Cody (1969; CALERF, 1993) rational Chebyshev approximations of erf/erfc: relative error near 1e-16 in double
// precision, far inside the 1e-7 we need (Abramowitz–Stegun 7.1.26 is only 1.5e-7). Cody's 18-digit constants are
// written as the shortest literal of the same double.
const A = [3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315];
const B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171];
const C = [
  0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769, 1712.0476126340707, 2051.0783778260716, 1230.3393547979972,
  2.1531153547440383e-8,
];
const D = [
  15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597, 4362.619090143247, 3439.3676741437216, 1230.3393548037495,
];
const P = [0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275, 0.0006587491615298378, 0.016315387137302097];
const Q = [2.568520192289822, 1.8729528499234673, 0.5279051029514285, 0.06051834131244132, 0.0023352049762686918];
const ONE_OVER_SQRT_PI = 0.5641895835477563;

/** erfc(y) for y ≥ 0.46875. The exp(−y²) split keeps the rounding of y² out of the result. */
function erfcTail(y: number): number {
  if (y >= 26.543) return 0;
  let result: number;
  if (y <= 4) {
    let num = C[8]! * y;
    let den = y;
    for (let i = 0; i < 7; i++) {
      num = (num + C[i]!) * y;
      den = (den + D[i]!) * y;
    }
    result = (num + C[7]!) / (den + D[7]!);
  } else {
    const z = 1 / (y * y);
    let num = P[5]! * z;
    let den = z;
    for (let i = 0; i < 4; i++) {
      num = (num + P[i]!) * z;
      den = (den + Q[i]!) * z;
    }
    result = (ONE_OVER_SQRT_PI - (z * (num + P[4]!)) / (den + Q[4]!)) / y;
  }
  const ysq = Math.trunc(y * 16) / 16;
  const del = (y - ysq) * (y + ysq);
  return Math.exp(-ysq * ysq) * Math.exp(-del) * result;
}

function erfc(x: number): number {
  const y = Math.abs(x);
  if (y <= 0.46875) {
    const z = y * y;
    let num = A[4]! * z;
    let den = z;
    for (let i = 0; i < 3; i++) {
      num = (num + A[i]!) * z;
      den = (den + B[i]!) * z;
    }
    return 1 - (x * (num + A[3]!)) / (den + B[3]!);
  }
  const tail = erfcTail(y);
  return x < 0 ? 2 - tail : tail;
}

/** Standard normal distribution function Φ(z) = erfc(−z/√2) / 2. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** z of the Wilson interval's default 95 %: the two-sided 5 % point of the normal. */
export const WILSON_Z = Z_ALPHA;

/** The Wilson score interval of a proportion `successes / n` (95 % with the default z); null when n is 0. */
export function wilsonInterval(successes: number, n: number, z = WILSON_Z): { low: number; high: number } | null {
  if (n <= 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * A mean with its Student-t 95 % interval: mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation. The suite
 * board's interval across scenarios (issue 35 item 3): scenarios are independent draws of the venue, few (20 at most in
 * suite-v1), so t rather than the normal; the bootstrap of the live records would be too narrow at this n.
 */
export function meanWithTInterval(values: readonly number[], level = 0.95): Estimate {
  const n = values.length;
  if (n === 0) return { value: null, n: 0, low: null, high: null };
  const m = mean(values);
  const sd = sampleSd(values);
  if (sd === null) return { value: m, n, low: null, high: null };
  const half = (tQuantile(n - 1, level) * sd) / Math.sqrt(n);
  return { value: m, n, low: m - half, high: m + half };
}

/** The two-sided quantile t with P(|T| < t) = level, T Student's t with `df` (a whole number) degrees of freedom. */
export function tQuantile(df: number, level: number): number {
  let lo = 0;
  let hi = 1e6;
  // Bisection: the central probability rises with t. 200 halvings of 1e6 are far below a double's precision.
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (tCentral(df, mid) < level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * P(|T| < t) for whole-number degrees of freedom, by the finite series of Abramowitz and Stegun 26.7.3 (odd df) and
 * 26.7.4 (even df) in θ = atan(t / √df).
 */
export function tCentral(df: number, t: number): number {
  if (!Number.isInteger(df) || df < 1) throw new Error(`degrees of freedom must be a whole number >= 1: ${df}`);
  const theta = Math.atan(t / Math.sqrt(df));
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  if (df % 2 === 1) {
    let sum = 0;
    if (df > 1) {
      // cos θ + (2/3) cos³θ + (2·4)/(3·5) cos⁵θ + … up to cos^(df−2) θ
      let term = c;
      sum = term;
      for (let k = 3; k <= df - 2; k += 2) {
        term *= (c * c * (k - 1)) / k;
        sum += term;
      }
    }
    return (2 / Math.PI) * (theta + s * sum);
  }
  // 1 + (1/2) cos²θ + (1·3)/(2·4) cos⁴θ + … up to cos^(df−2) θ
  let term = 1;
  let sum = 1;
  for (let k = 2; k <= df - 2; k += 2) {
    term *= (c * c * (k - 1)) / k;
    sum += term;
  }
  return s * sum;
}

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
  const m = mean(differences);
  if (n < 2) return { mean: m, low: null, high: null, pValue: null };
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
    mean: m,
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
  const sd = sampleSd(differences);
  return sd === null ? null : ((Z_ALPHA + Z_POWER) * sd) / Math.sqrt(differences.length);
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
