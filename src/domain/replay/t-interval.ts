import type { Estimate } from '../benchmark/estimate';

/**
 * A mean with its Student-t 95 % interval: mean ± t(0.975, n − 1) · s / √n, s the sample standard deviation. The suite
 * board's interval across scenarios (issue 35 item 3): scenarios are independent draws of the venue, few (20 at most in
 * suite-v1), so t rather than the normal; the bootstrap of the live records would be too narrow at this n.
 */
export function meanWithTInterval(values: readonly number[], level = 0.95): Estimate {
  const n = values.length;
  if (n === 0) return { value: null, n: 0, low: null, high: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { value: mean, n, low: null, high: null };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  const half = tQuantile(n - 1, level) * Math.sqrt(variance / n);
  return { value: mean, n, low: mean - half, high: mean + half };
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
