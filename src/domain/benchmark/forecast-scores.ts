import { estimate, pooledMeanEstimate, seedOf, type Estimate } from './estimate';
import { wilsonInterval } from './statistics';

/**
 * Forecast scores of one account over its resolved questions: proper scores (Brier, log) of its stated probabilities and
 * of the market's mids at the same instants, alpha against the market, the Murphy decomposition and calibration.
 *
 * Conventions:
 * - A forecast is a probability vector indexed by outcome, and `winner` is the index of the outcome that happened. A binary
 *   point [p] stands for [1 − p, p]: index 0 is NO and index 1 is YES, so `winner` 1 (YES) picks p, as it does in the input.
 * - Points are taken in time order (stable, so of two points at the same instant the later in the input replaces the
 *   earlier); points after `closedAt` are dropped; a point at `closedAt` counts as the final forecast but is in force for
 *   no time.
 * - A question with no point at or before `closedAt` has no forecast and is not scored (counted in `unforecast`).
 */

export type MarketKind = 'binary' | 'categorical';

export interface StatedPoint {
  /** ms epoch */
  t: number;
  probabilities: number[];
  mids: Array<number | null>;
}

export interface ResolvedQuestion {
  marketId: string;
  /** binary: probabilities = [P(YES)], mids = [YES mid]; categorical: one per outcome, summing to 1 */
  kind: MarketKind;
  /** binary: 1 = YES resolved, 0 = NO; categorical: index of the winning outcome; null = VOID (not scored) */
  winner: number | null;
  /** ms epoch: when the market closed (end of the question's life for the agent) */
  closedAt: number;
  /** the account's forecasts on this market, oldest first (each replaces the previous) */
  points: StatedPoint[];
}

/** A forecast of probability 0 on what happened scores ln(0.001) ≈ −6.91 rather than −∞, so one such point cannot sink every mean. */
export const LOG_SCORE_FLOOR = 0.001;
/** Calibration bins: [0, 0.1), [0.1, 0.2), …, [0.9, 1.0], 1.0 falling in the last. */
export const CALIBRATION_BINS = 10;

/** One calibration bin of the final forecasts' (forecast, outcome) pairs; low/high is the Wilson interval of the observed frequency. */
export interface ReliabilityBin {
  binLow: number;
  binHigh: number;
  n: number;
  meanForecast: number;
  observedFrequency: number;
  low: number;
  high: number;
}

/**
 * Every figure is a mean over questions, with an interval bootstrapped by question. `n` is the number of questions the
 * figure averages: all scored questions for the account's own scores and the Murphy/calibration figures; for market*
 * and alpha figures only the questions where every point used has usable mids (see `marketQuestions`).
 */
export interface ForecastScores {
  /** resolved questions scored */
  questions: number;
  /** VOID questions, skipped */
  voided: number;
  /** resolved questions without any point at or before close, skipped */
  unforecast: number;
  /** points used (at or before close) over the scored questions */
  forecasts: number;
  /** scored questions that also have the market's scores */
  marketQuestions: number;
  brier: Estimate;
  logScore: Estimate;
  brierTimeAveraged: Estimate;
  logScoreTimeAveraged: Estimate;
  marketBrier: Estimate;
  marketLogScore: Estimate;
  marketBrierTimeAveraged: Estimate;
  marketLogScoreTimeAveraged: Estimate;
  /** market Brier − account Brier on the final points: positive = better than the market */
  alpha: Estimate;
  alphaTimeAveraged: Estimate;
  /**
   * Murphy (1973) over the final points' pairs: binary, one (P(YES), YES ? 1 : 0) per question; categorical, one
   * (p_i, winner = i ? 1 : 0) per outcome. With bins k of n_k pairs, mean forecast f̄_k and observed frequency ō_k over
   * N pairs of overall frequency ō: REL = Σ n_k (f̄_k − ō_k)² / N, RES = Σ n_k (ō_k − ō)² / N, UNC = ō (1 − ō).
   * The pairs' mean squared error = REL − RES + UNC + within-bin terms (forecast variance and forecast/outcome
   * covariance inside each bin), exactly REL − RES + UNC when each bin's forecasts are equal. That mean is the Brier
   * figure when every question is binary; a K-outcome question's pairs average 2/K of its Brier.
   */
  murphy: { reliability: Estimate; resolution: Estimate; uncertainty: Estimate; pairs: number };
  /** ECE = Σ (n_k / N) |f̄_k − ō_k| over the same bins and pairs */
  calibrationError: Estimate;
  reliabilityTable: ReliabilityBin[];
}

/** A question's pairs that fall in one calibration bin: the unit the Murphy and calibration statistics resample. */
export interface BinContribution {
  bin: number;
  n: number;
  sumForecast: number;
  sumOutcome: number;
}

export interface ScoreSet {
  brier: number;
  logScore: number;
  brierTimeAveraged: number;
  logScoreTimeAveraged: number;
}

/** One resolved question's scores; `market` is null when some point used lacks usable mids. */
export interface QuestionScores extends ScoreSet {
  marketId: string;
  forecasts: number;
  market: ScoreSet | null;
  bins: BinContribution[];
}

/** Brier = ½ Σ_i (p_i − o_i)²: (p − o)² for a binary forecast; 0 is perfect, 1 the worst. */
export function brierScore(forecast: readonly number[], winner: number): number {
  let s = 0;
  for (let i = 0; i < forecast.length; i++) s += (forecast[i]! - (i === winner ? 1 : 0)) ** 2;
  return s / 2;
}

/** Log score = ln max(p_winner, LOG_SCORE_FLOOR): 0 is perfect, higher is better. */
export function logScore(forecast: readonly number[], winner: number): number {
  return Math.log(Math.max(forecast[winner]!, LOG_SCORE_FLOOR));
}

/**
 * The bin of a probability: the k with k/10 ≤ p < (k+1)/10, 1.0 in the last. Checked against the lower edge because
 * 10 × the double just below 0.9 rounds up to 9.0.
 */
export function calibrationBin(p: number): number {
  const k = Math.min(CALIBRATION_BINS - 1, Math.max(0, Math.floor(p * CALIBRATION_BINS)));
  return k > 0 && p < k / CALIBRATION_BINS ? k - 1 : k;
}

/** The account's forecast as a vector over outcomes; a malformed one is the caller's bug, so it throws. */
export function statedVector(q: ResolvedQuestion, probabilities: readonly number[], outcomes: number): number[] {
  if (probabilities.length !== (q.kind === 'binary' ? 1 : outcomes))
    throw new RangeError(`market ${q.marketId}: a point has ${probabilities.length} probabilities`);
  let sum = 0;
  for (const p of probabilities) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`market ${q.marketId}: probability ${p} is outside [0, 1]`);
    sum += p;
  }
  if (q.kind === 'binary') return [1 - probabilities[0]!, probabilities[0]!];
  if (Math.abs(sum - 1) > 1e-6) throw new RangeError(`market ${q.marketId}: probabilities sum to ${sum}`);
  return [...probabilities];
}

/** The market's forecast from stamped mids, or null when they cannot serve as one (a null, a value outside [0, 1], all zero). */
function marketVector(kind: MarketKind, mids: ReadonlyArray<number | null>, outcomes: number): number[] | null {
  if (mids.length !== (kind === 'binary' ? 1 : outcomes)) return null;
  let sum = 0;
  for (const m of mids) {
    if (m === null || !(m >= 0 && m <= 1)) return null;
    sum += m;
  }
  if (kind === 'binary') return [1 - mids[0]!, mids[0]!];
  if (sum <= 0) return null;
  return mids.map((m) => m! / sum);
}

/** Final and time-averaged scores of a run of forecasts with the times each was in force (a zero total: the final). */
function scoreSet(vectors: readonly number[][], durations: readonly number[], winner: number): ScoreSet {
  let total = 0;
  let brierSum = 0;
  let logSum = 0;
  let brier = 0;
  let log = 0;
  for (let j = 0; j < vectors.length; j++) {
    brier = brierScore(vectors[j]!, winner);
    log = logScore(vectors[j]!, winner);
    total += durations[j]!;
    brierSum += brier * durations[j]!;
    logSum += log * durations[j]!;
  }
  return total > 0
    ? { brier, logScore: log, brierTimeAveraged: brierSum / total, logScoreTimeAveraged: logSum / total }
    : { brier, logScore: log, brierTimeAveraged: brier, logScoreTimeAveraged: log };
}

/** The points a question scores, in time order: those at or before the close, the later of two at one instant last (it replaces). */
export function pointsUsed<P extends { t: number }>(points: readonly P[], closedAt: number): P[] {
  return points
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => p.t <= closedAt)
    .sort((a, b) => a.p.t - b.p.t || a.i - b.i)
    .map(({ p }) => p);
}

/** One question's scores, or null when it is VOID or has no point at or before close. */
export function scoreQuestion(q: ResolvedQuestion): QuestionScores | null {
  if (q.winner === null) return null;
  const points = pointsUsed(q.points, q.closedAt);
  if (points.length === 0) return null;
  const outcomes = q.kind === 'binary' ? 2 : points[0]!.probabilities.length;
  if (!Number.isInteger(q.winner) || q.winner < 0 || q.winner >= outcomes) throw new RangeError(`market ${q.marketId}: winner ${q.winner} is not an outcome`);
  const stated = points.map((p) => statedVector(q, p.probabilities, outcomes));
  const durations = points.map((p, j) => (j + 1 < points.length ? points[j + 1]!.t : q.closedAt) - p.t);
  const mids = points.map((p) => marketVector(q.kind, p.mids, outcomes));
  const market = mids.every((m) => m !== null) ? scoreSet(mids as number[][], durations, q.winner) : null;

  // Calibration pairs of the final forecast: binary only P(YES), so a question is one pair and not two mirrored ones.
  const final = stated[stated.length - 1]!;
  const pairs = q.kind === 'binary' ? [{ f: final[1]!, o: q.winner === 1 ? 1 : 0 }] : final.map((f, i) => ({ f, o: i === q.winner ? 1 : 0 }));
  const byBin = new Map<number, BinContribution>();
  for (const { f, o } of pairs) {
    const bin = calibrationBin(f);
    const c = byBin.get(bin) ?? { bin, n: 0, sumForecast: 0, sumOutcome: 0 };
    c.n++;
    c.sumForecast += f;
    c.sumOutcome += o;
    byBin.set(bin, c);
  }
  return { marketId: q.marketId, forecasts: points.length, ...scoreSet(stated, durations, q.winner), market, bins: [...byBin.values()] };
}

interface BinTotals {
  pairs: number;
  n: Float64Array;
  sumForecast: Float64Array;
  sumOutcome: Float64Array;
}

/**
 * The one set of totals binTotals fills, reset by each call: every caller reads its totals before the next call (the
 * bootstrap makes some 4,000 a record, and fresh arrays for each were a good part of its garbage).
 */
const totals: BinTotals = {
  pairs: 0,
  n: new Float64Array(CALIBRATION_BINS),
  sumForecast: new Float64Array(CALIBRATION_BINS),
  sumOutcome: new Float64Array(CALIBRATION_BINS),
};

function binTotals(sample: readonly QuestionScores[]): BinTotals {
  const t = totals;
  t.pairs = 0;
  t.n.fill(0);
  t.sumForecast.fill(0);
  t.sumOutcome.fill(0);
  for (const q of sample) {
    for (const c of q.bins) {
      t.pairs += c.n;
      t.n[c.bin] += c.n;
      t.sumForecast[c.bin] += c.sumForecast;
      t.sumOutcome[c.bin] += c.sumOutcome;
    }
  }
  return t;
}

function overallFrequency(t: BinTotals): number {
  let s = 0;
  for (let k = 0; k < CALIBRATION_BINS; k++) s += t.sumOutcome[k]!;
  return s / t.pairs;
}

/** Σ_k n_k · term(f̄_k, ō_k) / N over non-empty bins: the shape of REL, RES and ECE. */
function overBins(sample: readonly QuestionScores[], term: (meanForecast: number, observed: number, overall: number) => number): number | null {
  const t = binTotals(sample);
  if (t.pairs === 0) return null;
  const overall = overallFrequency(t);
  let s = 0;
  for (let k = 0; k < CALIBRATION_BINS; k++) {
    const n = t.n[k]!;
    if (n > 0) s += n * term(t.sumForecast[k]! / n, t.sumOutcome[k]! / n, overall);
  }
  return s / t.pairs;
}

const reliability = (sample: readonly QuestionScores[]) => overBins(sample, (f, o) => (f - o) ** 2);
const resolution = (sample: readonly QuestionScores[]) => overBins(sample, (_f, o, overall) => (o - overall) ** 2);
const calibrationError = (sample: readonly QuestionScores[]) => overBins(sample, (f, o) => Math.abs(f - o));
function uncertainty(sample: readonly QuestionScores[]): number | null {
  const t = binTotals(sample);
  if (t.pairs === 0) return null;
  const o = overallFrequency(t);
  return o * (1 - o);
}

function reliabilityTable(scored: readonly QuestionScores[]): ReliabilityBin[] {
  const t = binTotals(scored);
  const table: ReliabilityBin[] = [];
  for (let k = 0; k < CALIBRATION_BINS; k++) {
    const n = t.n[k]!;
    if (n === 0) continue;
    const wilson = wilsonInterval(t.sumOutcome[k]!, n)!;
    table.push({
      binLow: k / CALIBRATION_BINS,
      binHigh: (k + 1) / CALIBRATION_BINS,
      n,
      meanForecast: t.sumForecast[k]! / n,
      observedFrequency: t.sumOutcome[k]! / n,
      low: wilson.low,
      high: wilson.high,
    });
  }
  return table;
}

/** Each question's scores, with the VOID questions and those without a point at or before close counted apart. */
function scoreEach(questions: readonly ResolvedQuestion[]): { scored: QuestionScores[]; voided: number; unforecast: number } {
  const scored: QuestionScores[] = [];
  let voided = 0;
  let unforecast = 0;
  for (const q of questions) {
    if (q.winner === null) voided++;
    else {
      const s = scoreQuestion(q);
      if (s === null) unforecast++;
      else scored.push(s);
    }
  }
  return { scored, voided, unforecast };
}

/** A figure that is a mean over questions: each question one cluster of one value (precomputed, so a resample only sums). */
function meanFigure(values: readonly number[], seedLabel: string, figure: string): Estimate {
  return pooledMeanEstimate(values, undefined, values.length, seedOf(`${seedLabel}|${figure}`));
}

/** Alpha: market Brier − own Brier on the final points, over the questions with the market's scores. */
function alphaFigure(withMarket: readonly QuestionScores[], seedLabel: string): Estimate {
  return meanFigure(
    withMarket.map((s) => s.market!.brier - s.brier),
    seedLabel,
    'alpha',
  );
}

/**
 * scoreForecasts' alpha alone (the same questions, statistic and seed: equal to its `alpha` and `marketQuestions`), for
 * a caller that needs no other figure and many records: replay's venue playback scores a whole suite with it.
 */
export function scoreAlpha(questions: readonly ResolvedQuestion[], seedLabel: string): { questions: number; alpha: Estimate } {
  const { scored } = scoreEach(questions);
  return {
    questions: scored.length,
    alpha: alphaFigure(
      scored.filter((s) => s.market !== null),
      seedLabel,
    ),
  };
}

/**
 * scoreForecasts' headline figures alone (the same questions, statistics and seeds: equal to its `questions`, `brier`,
 * `logScore` and `alpha`), for the parts of a record that show no other: its categories and the entry-price basis.
 * The full set's Murphy terms and calibration error resample bin totals and cost several times these.
 */
export function scoreHeadline(
  questions: readonly ResolvedQuestion[],
  seedLabel: string,
): { questions: number; brier: Estimate; logScore: Estimate; alpha: Estimate } {
  const { scored } = scoreEach(questions);
  return {
    questions: scored.length,
    brier: meanFigure(
      scored.map((s) => s.brier),
      seedLabel,
      'brier',
    ),
    logScore: meanFigure(
      scored.map((s) => s.logScore),
      seedLabel,
      'logScore',
    ),
    alpha: alphaFigure(
      scored.filter((s) => s.market !== null),
      seedLabel,
    ),
  };
}

/**
 * Scores an account's resolved questions (see the module comment for conventions and `ForecastScores` for each figure).
 * Each figure's interval is a bootstrap clustered by question, seeded by `seedOf(seedLabel + '|' + figure)` where figure
 * is the output's field name ('murphy.reliability' and so on inside `murphy`).
 */
export function scoreForecasts(questions: readonly ResolvedQuestion[], seedLabel: string): ForecastScores {
  const { scored, voided, unforecast } = scoreEach(questions);
  const withMarket = scored.filter((s) => s.market !== null);
  const seed = (figure: string) => seedOf(`${seedLabel}|${figure}`);
  const mean = (values: number[], figure: string) => meanFigure(values, seedLabel, figure);
  const bins = (statistic: (sample: readonly QuestionScores[]) => number | null, figure: string) => estimate(scored, statistic, scored.length, seed(figure));

  return {
    questions: scored.length,
    voided,
    unforecast,
    forecasts: scored.reduce((s, q) => s + q.forecasts, 0),
    marketQuestions: withMarket.length,
    brier: mean(
      scored.map((s) => s.brier),
      'brier',
    ),
    logScore: mean(
      scored.map((s) => s.logScore),
      'logScore',
    ),
    brierTimeAveraged: mean(
      scored.map((s) => s.brierTimeAveraged),
      'brierTimeAveraged',
    ),
    logScoreTimeAveraged: mean(
      scored.map((s) => s.logScoreTimeAveraged),
      'logScoreTimeAveraged',
    ),
    marketBrier: mean(
      withMarket.map((s) => s.market!.brier),
      'marketBrier',
    ),
    marketLogScore: mean(
      withMarket.map((s) => s.market!.logScore),
      'marketLogScore',
    ),
    marketBrierTimeAveraged: mean(
      withMarket.map((s) => s.market!.brierTimeAveraged),
      'marketBrierTimeAveraged',
    ),
    marketLogScoreTimeAveraged: mean(
      withMarket.map((s) => s.market!.logScoreTimeAveraged),
      'marketLogScoreTimeAveraged',
    ),
    alpha: alphaFigure(withMarket, seedLabel),
    alphaTimeAveraged: mean(
      withMarket.map((s) => s.market!.brierTimeAveraged - s.brierTimeAveraged),
      'alphaTimeAveraged',
    ),
    murphy: {
      reliability: bins(reliability, 'murphy.reliability'),
      resolution: bins(resolution, 'murphy.resolution'),
      uncertainty: bins(uncertainty, 'murphy.uncertainty'),
      pairs: scored.reduce((s, q) => s + q.bins.reduce((b, c) => b + c.n, 0), 0),
    },
    calibrationError: bins(calibrationError, 'calibrationError'),
    reliabilityTable: reliabilityTable(scored),
  };
}
