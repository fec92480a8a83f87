import { createHash } from 'node:crypto';

/**
 * The benchmark's statistics written again from docs/benchmark.md, for scripts/recompute-benchmark.ts: it imports none
 * of the service's scoring modules, so a board it reproduces is evidence that the service scores as documented. To
 * match the service to the bit, each sum runs in the documented order (questions by market id, days oldest first).
 */

export interface Figure {
  n: number;
  low: number | null;
  high: number | null;
  value: number | null;
}

/** The bootstrap's fixed parameters (docs/benchmark.md): 1,000 resamples, a 95 % percentile interval. */
const RESAMPLES = 1000;
const TAIL = (1 - 0.95) / 2;
/** A zero-probability forecast on what happened scores ln 0.001, not −∞. */
const LOG_FLOOR = 0.001;

/** The first 32 bits (big-endian) of SHA-256 of the label: each figure's resampling seed. */
export function seedFor(label: string): number {
  return createHash('sha256').update(label).digest().readUInt32BE(0);
}

/** mulberry32, uniform on [0, 1). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Type-7 quantile of sorted values. */
function quantileOf(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The interval of the resampled statistics (sorted); none when fewer than half the resamples gave one. */
function interval(sorted: ArrayLike<number>): { low: number; high: number } | null {
  if (sorted.length < RESAMPLES / 2) return null;
  return { low: quantileOf(sorted, TAIL), high: quantileOf(sorted, 1 - TAIL) };
}

/** The value with its interval, the interval stretched to hold the value. */
function figure(value: number, n: number, iv: { low: number; high: number } | null): Figure {
  return iv === null ? { n, low: null, high: null, value } : { n, low: Math.min(iv.low, value), high: Math.max(iv.high, value), value };
}

const none = (n: number): Figure => ({ n, low: null, high: null, value: null });

/**
 * Σ sums / Σ counts over clusters (each cluster one item when counts is omitted), with a bootstrap that draws as many
 * clusters as there are, with replacement, RESAMPLES times.
 */
export function clusterMean(sums: readonly number[], counts: readonly number[] | undefined, n: number, seed: number): Figure {
  const k = sums.length;
  let total = 0;
  let items = 0;
  for (let i = 0; i < k; i++) {
    total += sums[i]!;
    items += counts ? counts[i]! : 1;
  }
  if (items === 0) return none(n);
  const value = total / items;
  if (!Number.isFinite(value)) return none(n);
  if (k < 2) return figure(value, n, null);
  const next = generator(seed);
  const means: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < k; i++) {
      const j = Math.floor(next() * k);
      sum += sums[j]!;
      count += counts ? counts[j]! : 1;
    }
    if (count === 0) continue;
    const m = sum / count;
    if (Number.isFinite(m)) means.push(m);
  }
  return figure(value, n, interval(means.sort((a, b) => a - b)));
}

/** A statistic of daily returns with a moving-block bootstrap: blocks of round(∛n) consecutive days, not wrapping. */
export function blockFigure(returns: readonly number[], statistic: (r: readonly number[]) => number | null, seed: number): Figure {
  const n = returns.length;
  if (n === 0) return none(0);
  const value = statistic(returns);
  if (value === null || !Number.isFinite(value)) return none(n);
  if (n < 2) return figure(value, n, null);
  const b = Math.max(1, Math.round(Math.cbrt(n)));
  const starts = n - b + 1;
  const next = generator(seed);
  const values: number[] = [];
  const sample = new Array<number>(n);
  for (let r = 0; r < RESAMPLES; r++) {
    let filled = 0;
    while (filled < n) {
      const start = Math.floor(next() * starts);
      for (let j = 0; j < b && filled < n; j++) sample[filled++] = returns[start + j]!;
    }
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return figure(value, n, interval(values.sort((a, c) => a - c)));
}

/** Daily returns net of flows: (E_d − F_d) / E_{d−1} − 1, none after a non-positive equity. */
export function returnsOf(start: number, days: ReadonlyArray<{ equity: number; flow: number }>): number[] {
  const out: number[] = [];
  let before = start;
  for (const d of days) {
    if (before > 0) out.push((d.equity - d.flow) / before - 1);
    before = d.equity;
  }
  return out;
}

function average(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Daily Sharpe: mean over the sample standard deviation; none below two returns or when they do not vary. */
export function dailySharpe(r: readonly number[]): number | null {
  if (r.length < 2) return null;
  const m = average(r);
  let s = 0;
  for (const x of r) s += (x - m) ** 2;
  const sd = Math.sqrt(s / (r.length - 1));
  return sd === 0 ? null : average(r) / sd;
}

/** Compounded return: Π(1 + r) − 1. */
export function compounded(r: readonly number[]): number | null {
  if (r.length === 0) return null;
  let g = 1;
  for (const x of r) g *= 1 + x;
  return g - 1;
}

/** Largest fall of the index Π(1 + r) from its running peak (the start, 1, is the first peak). */
export function deepestDrawdown(r: readonly number[]): number | null {
  if (r.length === 0) return null;
  let level = 1;
  let peak = 1;
  let worst = 0;
  for (const x of r) {
    level *= 1 + x;
    if (level > peak) peak = level;
    worst = Math.max(worst, 1 - level / peak);
  }
  return worst;
}

/** One stated point: when, the probabilities and the market's mids stamped with it. */
export interface Point {
  t: number;
  probabilities: number[];
  mids: Array<number | null>;
}

/** A resolved question's final Brier and log score, and the market's Brier from its mids when every point has usable ones. */
export function questionScores(
  binary: boolean,
  winner: number,
  closedAt: number,
  points: readonly Point[],
): { brier: number; log: number; marketBrier: number | null } | null {
  // Points up to the close, in time order; of two at one instant the later given wins (a stable sort).
  const used = points
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.t <= closedAt)
    .sort((a, b) => a.p.t - b.p.t || a.i - b.i)
    .map(({ p }) => p);
  if (used.length === 0) return null;
  const outcomes = binary ? 2 : used[0]!.probabilities.length;
  const vector = (ps: readonly number[]) => (binary ? [1 - ps[0]!, ps[0]!] : [...ps]);
  const market = (ms: ReadonlyArray<number | null>): number[] | null => {
    if (ms.length !== (binary ? 1 : outcomes) || ms.some((m) => m === null || !(m >= 0 && m <= 1))) return null;
    if (binary) return [1 - ms[0]!, ms[0]!];
    let sum = 0;
    for (const m of ms) sum += m!;
    return sum <= 0 ? null : ms.map((m) => m! / sum);
  };
  const brierOf = (v: readonly number[]) => {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += (v[i]! - (i === winner ? 1 : 0)) ** 2;
    return s / 2;
  };
  const last = vector(used[used.length - 1]!.probabilities);
  const mids = used.map((p) => market(p.mids));
  const lastMids = mids[mids.length - 1]!;
  return {
    brier: brierOf(last),
    log: Math.log(Math.max(last[winner]!, LOG_FLOOR)),
    marketBrier: mids.every((m) => m !== null) ? brierOf(lastMids) : null,
  };
}
