import { blockInterval } from './block-bootstrap';
import { NO_ESTIMATE, pooledMeanEstimate, seedOf, withInterval, type Estimate } from './estimate';

export interface EquityDay {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** Dollars at the day's end. */
  equity: number;
  /** External cash that came in during the day (rewards, bonuses): not a return. */
  flow: number;
}

export interface KellyBuy {
  cost: number;
  equityBefore: number;
  /** Price paid per share of the token bought, 0..1. */
  price: number;
  /** The stated probability of that token's outcome. */
  forecast: number;
}

export interface RiskInput {
  /** Equity at the start of the first day. */
  startEquity: number;
  /** Consecutive days, oldest first. */
  days: EquityDay[];
  /** Current open positions' values. */
  positions: number[];
  kellyBuys: KellyBuy[];
}

/**
 * Risk figures of an account. Return-based figures count n = daily returns and carry a moving-block bootstrap interval;
 * Kelly figures count n = buys with a positive edge and carry an interval clustered by buy. Ratios and fractions are
 * plain fractions (0.25 is 25 %); volatility, Sharpe and Sortino are daily, risk-free rate 0.
 */
export interface RiskScores {
  /** Daily returns scored: days after a positive equity. */
  days: number;
  timeWeightedReturn: Estimate;
  maxDrawdown: Estimate;
  currentDrawdown: Estimate;
  volatility: Estimate;
  sharpe: Estimate;
  sharpeAnnualised: Estimate;
  sortino: Estimate;
  /** Probability that the true daily Sharpe is above 0; no interval, being itself a probability. */
  probabilisticSharpe: Estimate;
  /** Σ open positions / last equity (the start equity before any day); 0 with no positions, null when equity ≤ 0. */
  exposure: number | null;
  /** Largest open position / last equity; null with no positions or equity ≤ 0. */
  concentration: number | null;
  /** Mean of stake fraction / Kelly fraction over buys with a positive edge (1 is full Kelly). */
  kellyRatio: Estimate;
  /** Share of those buys staked above full Kelly. */
  overKellyShare: Estimate;
  /** Buys with no edge by the buyer's own forecast (Kelly fraction ≤ 0). */
  negativeEdgeBuys: number;
}

/**
 * Daily returns net of flows: r_d = (E_d − F_d) / E_{d−1} − 1 with E_0 the start equity. Flows are booked at the day's
 * end, so they neither earn nor count as the day's return. A day after a non-positive equity has no return and is skipped.
 */
export function dailyReturns(startEquity: number, days: readonly EquityDay[]): number[] {
  const returns: number[] = [];
  let previous = startEquity;
  for (const d of days) {
    if (previous > 0) returns.push((d.equity - d.flow) / previous - 1);
    previous = d.equity;
  }
  return returns;
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export function timeWeightedReturn(r: readonly number[]): number | null {
  if (r.length === 0) return null;
  let g = 1;
  for (const x of r) g *= 1 + x;
  return g - 1;
}

/** Drawdowns of the flow-free index I_d = Π(1 + r), I_0 = 1 counting as the first peak. */
function drawdowns(r: readonly number[]): { max: number; current: number } | null {
  if (r.length === 0) return null;
  let index = 1;
  let peak = 1;
  let max = 0;
  for (const x of r) {
    index *= 1 + x;
    if (index > peak) peak = index;
    max = Math.max(max, 1 - index / peak);
  }
  return { max, current: 1 - index / peak };
}

export function maxDrawdown(r: readonly number[]): number | null {
  return drawdowns(r)?.max ?? null;
}

export function currentDrawdown(r: readonly number[]): number | null {
  return drawdowns(r)?.current ?? null;
}

/** Sample standard deviation (n − 1). */
export function volatility(r: readonly number[]): number | null {
  if (r.length < 2) return null;
  const m = mean(r);
  let s = 0;
  for (const x of r) s += (x - m) ** 2;
  return Math.sqrt(s / (r.length - 1));
}

/** Null, not Infinity, when the returns do not vary. */
export function sharpe(r: readonly number[]): number | null {
  const sd = volatility(r);
  return sd === null || sd === 0 ? null : mean(r) / sd;
}

export function sortino(r: readonly number[]): number | null {
  if (r.length === 0) return null;
  let down = 0;
  for (const x of r) if (x < 0) down += x * x;
  return down === 0 ? null : mean(r) / Math.sqrt(down / r.length);
}

/** Population central moment ratios: skewness γ3 = m3 / m2^1.5 and (non-excess) kurtosis γ4 = m4 / m2², as in PSR. */
function standardisedMoments(r: readonly number[]): { skewness: number; kurtosis: number } | null {
  if (r.length === 0) return null;
  const m = mean(r);
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (const x of r) {
    const d = x - m;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= r.length;
  m3 /= r.length;
  m4 /= r.length;
  if (m2 === 0) return null;
  return { skewness: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2) };
}

export function skewness(r: readonly number[]): number | null {
  return standardisedMoments(r)?.skewness ?? null;
}

export function kurtosis(r: readonly number[]): number | null {
  return standardisedMoments(r)?.kurtosis ?? null;
}

/**
 * Probabilistic Sharpe ratio against 0 (Bailey & López de Prado 2012):
 * Φ(SR·√(n−1) / √(1 − γ3·SR + (γ4 − 1)/4·SR²)), SR the daily Sharpe above (sample sd). Null below 3 returns, without a
 * Sharpe, or when the radicand is not positive. Since γ4 ≥ 1 + γ3² the radicand is a square at worst, zero only for a
 * two-valued series at SR = 2/γ3, so the guard is against that and rounding.
 */
export function probabilisticSharpe(r: readonly number[]): number | null {
  if (r.length < 3) return null;
  const sr = sharpe(r);
  const moments = standardisedMoments(r);
  if (sr === null || moments === null) return null;
  const radicand = 1 - moments.skewness * sr + ((moments.kurtosis - 1) / 4) * sr * sr;
  if (!(radicand > 0)) return null;
  return normalCdf((sr * Math.sqrt(r.length - 1)) / Math.sqrt(radicand));
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

/** Kelly fraction of a binary contract bought at price c with belief q: (q − c)/(1 − c); a price of 1 has no edge. */
export function kellyFraction(forecast: number, price: number): number {
  return price >= 1 ? 0 : (forecast - price) / (1 - price);
}

const SQRT_365 = Math.sqrt(365);

/** Daily Sharpe to yearly (365 trading days: markets never close), value and interval alike. */
function annualise(e: Estimate): Estimate {
  const scale = (x: number | null): number | null => (x === null ? null : x * SQRT_365);
  return { value: scale(e.value), n: e.n, low: scale(e.low), high: scale(e.high) };
}

export function scoreRisk(input: RiskInput, seedLabel: string): RiskScores {
  const r = dailyReturns(input.startEquity, input.days);
  const n = r.length;
  const byBlocks = (statistic: (sample: readonly number[]) => number | null, figure: string): Estimate => {
    if (n === 0) return NO_ESTIMATE;
    const value = statistic(r);
    if (value === null || !Number.isFinite(value)) return { ...NO_ESTIMATE, n };
    return withInterval(value, n, blockInterval(r, statistic, seedOf(`${seedLabel}|${figure}`)));
  };
  const psr = probabilisticSharpe(r);
  const sharpeDaily = byBlocks(sharpe, 'sharpe');

  const equity = input.days.length > 0 ? input.days[input.days.length - 1]!.equity : input.startEquity;
  const hasEquity = equity > 0;
  const exposure = hasEquity ? input.positions.reduce((s, p) => s + p, 0) / equity : null;
  const concentration = hasEquity && input.positions.length > 0 ? Math.max(...input.positions) / equity : null;

  // Only a positive-edge buy has a Kelly stake to compare with; a buy with no equity behind it has no stake fraction.
  let negativeEdgeBuys = 0;
  const ratios: number[] = [];
  const over: number[] = [];
  for (const buy of input.kellyBuys) {
    const f = kellyFraction(buy.forecast, buy.price);
    if (f <= 0) {
      negativeEdgeBuys++;
      continue;
    }
    if (!(buy.equityBefore > 0)) continue;
    const stake = buy.cost / buy.equityBefore;
    ratios.push(stake / f);
    over.push(stake > f ? 1 : 0);
  }

  return {
    days: n,
    timeWeightedReturn: byBlocks(timeWeightedReturn, 'twr'),
    maxDrawdown: byBlocks(maxDrawdown, 'max-drawdown'),
    currentDrawdown: byBlocks(currentDrawdown, 'current-drawdown'),
    volatility: byBlocks(volatility, 'volatility'),
    sharpe: sharpeDaily,
    sharpeAnnualised: annualise(sharpeDaily),
    sortino: byBlocks(sortino, 'sortino'),
    probabilisticSharpe: { value: psr, n, low: null, high: null },
    exposure,
    concentration,
    kellyRatio: pooledMeanEstimate(ratios, undefined, ratios.length, seedOf(`${seedLabel}|kelly-ratio`)),
    overKellyShare: pooledMeanEstimate(over, undefined, over.length, seedOf(`${seedLabel}|over-kelly`)),
    negativeEdgeBuys,
  };
}
