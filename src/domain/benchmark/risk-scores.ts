import { blockInterval, mean, normalCdf, sampleSd } from './statistics';
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

/** Sample standard deviation (n − 1) of the daily returns. */
export function volatility(r: readonly number[]): number | null {
  return sampleSd(r);
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
