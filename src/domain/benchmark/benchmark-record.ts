import type { Estimate } from './estimate';
import { scoreForecasts, scoreHeadline, type ForecastScores, type ResolvedQuestion } from './forecast-scores';
import type { BenchmarkInputs } from './benchmark-inputs';
import { scoreLife, type LifeScores } from './life-scores';
import { scoreRanking, type RankingScores } from './ranking-scores';
import { scoreRisk, type RiskScores } from './risk-scores';
import type { Season } from './seasons';
import { scoreTiming, type TimingScores } from './timing-scores';

/**
 * How many resolved markets with a stated forecast an account needs in a season before a benchmark board ranks it (on
 * every metric, risk and timing too: plain buys state nothing). Its record is shown from the
 * first one; the rank waits, so a lucky week does not top a board. (To tell a Brier edge of 0.02 from none takes far more:
 * see the power rule in docs/benchmark.md.)
 */
export const MIN_RESOLVED_MARKETS = 30;

/**
 * The version of the scoring rules a record was scored under (docs/scoring.md). Any change to a formula, a rule for
 * voids, replaced forecasts, seasons, references or eligibility is a new version; the golden files
 * (test/fixtures/scoring) pin this one.
 */
export const SCORING_VERSION = 'v1';

/** The board's metrics, each with the direction that ranks first. */
export const BENCHMARK_METRICS = {
  alpha: 'desc',
  brier: 'asc',
  log_score: 'desc',
  clv: 'desc',
  sharpe: 'desc',
  return: 'desc',
  max_drawdown: 'asc',
} as const;
export type BenchmarkMetric = keyof typeof BENCHMARK_METRICS;

/** The entry-price basis: buys without a stated forecast scored as forecasts at the price paid (what get_agent_reputation scores). */
export interface EntryPriceScores {
  basis: 'entry price';
  questions: number;
  brier: Estimate;
  logScore: Estimate;
}

/** A category's share of the stated-forecast scores. */
export interface CategoryScores {
  category: string;
  questions: number;
  brier: Estimate;
  logScore: Estimate;
  alpha: Estimate;
}

export interface BenchmarkRecord {
  /** The scoring rules it was scored under (SCORING_VERSION). */
  scoringVersion: string;
  season: Season;
  /** Resolved, non-void markets the account stated a forecast on, this season: what every board's minimum counts (plain buys do not). */
  resolvedMarkets: number;
  forecasts: ForecastScores;
  /** Baseline and peer scores over each question's life, and alpha at fixed horizons before the close (life-scores.ts). */
  life: LifeScores;
  /** What a board ranks it by beside its figures: edges over each reference with p-values, shrinkage, power (ranking-scores.ts). */
  ranking: RankingScores;
  /** The stated-forecast scores per market category, most questions first. */
  byCategory: CategoryScores[];
  entryPrice: EntryPriceScores;
  risk: RiskScores;
  timing: TimingScores;
}

/**
 * Scores one account's season from its inputs; `seedLabel` (account and season) makes every interval reproducible. The
 * folder runs it on a thread of its own (record-scorer.ts): a whole record takes up to tens of milliseconds.
 */
export function scoreRecord(season: Season, inputs: BenchmarkInputs, seedLabel: string): BenchmarkRecord {
  const forecasts = scoreForecasts(inputs.questions, `${seedLabel}|stated`);
  const life = scoreLife(inputs.questions, inputs.contexts, `${seedLabel}|life`);
  const ranking = scoreRanking(inputs.questions, inputs.contexts, forecasts.questions, `${seedLabel}|ranking`);
  // The entry-price basis and the categories show a few figures each: only those are scored (the same as in full).
  const entry = scoreHeadline(inputs.entryQuestions, `${seedLabel}|entry`);
  // The floor counts resolved markets with a stated forecast only: a plain buy states nothing (issue 49 item 3).
  const markets = new Set<string>();
  // A forecast stated after the close is not scored, so it does not count either (forecast-scores.ts).
  for (const q of inputs.questions) if (q.winner !== null && q.points.some((pt) => pt.t <= q.closedAt)) markets.add(q.marketId);
  const groups = new Map<string, ResolvedQuestion[]>();
  for (const q of inputs.questions) {
    const c = inputs.categories[q.marketId] ?? 'Uncategorized';
    groups.set(c, [...(groups.get(c) ?? []), q]);
  }
  const byCategory: CategoryScores[] = [];
  for (const [category, qs] of groups) {
    const s = scoreHeadline(qs, `${seedLabel}|category|${category}`);
    byCategory.push({ category, questions: s.questions, brier: s.brier, logScore: s.logScore, alpha: s.alpha });
  }
  byCategory.sort((a, b) => b.questions - a.questions || a.category.localeCompare(b.category));
  const risk = scoreRisk({ startEquity: inputs.startEquity, days: inputs.days, positions: inputs.positions, kellyBuys: inputs.kellyBuys }, `${seedLabel}|risk`);
  return {
    scoringVersion: SCORING_VERSION,
    season,
    resolvedMarkets: markets.size,
    forecasts,
    life,
    ranking,
    byCategory,
    entryPrice: { basis: 'entry price', questions: entry.questions, brier: entry.brier, logScore: entry.logScore },
    risk,
    timing: scoreTiming(inputs.buys, `${seedLabel}|timing`),
  };
}

/** The estimate behind each board's figure, per metric (a replay run's summary shows them too). */
export function boardEstimates(r: BenchmarkRecord): Record<BenchmarkMetric, Estimate> {
  return {
    alpha: r.forecasts.alpha,
    brier: r.forecasts.brier,
    log_score: r.forecasts.logScore,
    clv: r.timing.close.mean,
    sharpe: r.risk.sharpe,
    return: r.risk.timeWeightedReturn,
    max_drawdown: r.risk.maxDrawdown,
  };
}

/** The figure a board sorts by, per metric (null: the account has none and is not on that board). */
export function boardFigures(r: BenchmarkRecord): Record<BenchmarkMetric, number | null> {
  const e = boardEstimates(r);
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v.value])) as Record<BenchmarkMetric, number | null>;
}
