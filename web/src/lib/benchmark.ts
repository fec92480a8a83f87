import type { Ok, paths } from './api/client';

/** A benchmark figure with its n and 95 % interval, as get_benchmark_record and get_benchmark_leaderboard answer it. */
export type Estimate = Ok<'/api/benchmark/record', 'get'>['forecasts']['brier'];
export type BenchmarkMetric = NonNullable<NonNullable<paths['/api/benchmark/leaderboard']['get']['parameters']['query']>['metric']>;

/**
 * The metrics page's anchors: one id per explained figure, shared by the page (web/src/features/benchmark) and
 * every figure that links to its explanation (the profile, the season board).
 */
export const METRIC_ANCHOR = {
  brier: 'brier',
  logScore: 'log-score',
  timeAveraged: 'time-averaged',
  alpha: 'alpha',
  murphy: 'murphy',
  calibrationError: 'calibration-error',
  reliabilityDiagram: 'reliability-diagram',
  entryPrice: 'entry-price',
  timeWeightedReturn: 'time-weighted-return',
  drawdown: 'drawdown',
  volatility: 'volatility',
  sharpe: 'sharpe',
  sortino: 'sortino',
  probabilisticSharpe: 'probabilistic-sharpe',
  kelly: 'kelly',
  clv: 'closing-line-value',
  intervals: 'intervals',
  seasons: 'seasons',
  minimum: 'minimum-markets',
} as const;

/** How a figure reads: a score to three decimals, a fraction as a percent, a price move in cents, a ratio to two decimals. */
export type FigureKind = 'score' | 'percent' | 'cents' | 'ratio';

export function formatFigure(v: number | null, kind: FigureKind): string {
  if (v === null) return '—';
  const sign = v < 0 ? '−' : '';
  const a = Math.abs(v);
  switch (kind) {
    case 'score':
      return `${sign}${a.toFixed(3)}`;
    case 'percent':
      return `${sign}${(a * 100).toFixed(1)}%`;
    case 'cents':
      return `${v > 0 ? '+' : sign}${(a * 100).toFixed(1)}¢`;
    case 'ratio':
      return `${sign}${a.toFixed(2)}`;
  }
}

/** "0.190 [0.171, 0.209] · n 32": the figure, its 95 % interval (when there is one) and what stands behind it. */
export function formatEstimate(e: Estimate, kind: FigureKind): string {
  const interval = e.low !== null && e.high !== null ? ` [${formatFigure(e.low, kind)}, ${formatFigure(e.high, kind)}]` : '';
  return `${formatFigure(e.value, kind)}${interval} · n ${e.n}`;
}

/** The UTC month a date falls in, as a season (YYYY-MM). */
export const seasonOf = (d: Date) => d.toISOString().slice(0, 7);

/** The seasons offered: this UTC month, the two before it, and all time. */
export function seasonOptions(now = new Date()): [string, string][] {
  const months = [0, 1, 2].map((back) => seasonOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1))));
  return [...months.map((m, i): [string, string] => [m, i === 0 ? `This month (${m})` : m]), ['all', 'All time']];
}

/** Each metric the boards rank (and a replay run's frozen record shows): its name, how it reads, which way is better, and its explanation on the metrics page. */
export const BOARD_METRICS: Record<BenchmarkMetric, { name: string; kind: FigureKind; order: string; anchor: string }> = {
  alpha: { name: 'Alpha', kind: 'score', order: 'higher first', anchor: METRIC_ANCHOR.alpha },
  brier: { name: 'Brier', kind: 'score', order: 'lower first', anchor: METRIC_ANCHOR.brier },
  log_score: { name: 'Log score', kind: 'score', order: 'higher first', anchor: METRIC_ANCHOR.logScore },
  clv: { name: 'Closing-line value', kind: 'cents', order: 'higher first', anchor: METRIC_ANCHOR.clv },
  sharpe: { name: 'Sharpe (daily)', kind: 'ratio', order: 'higher first', anchor: METRIC_ANCHOR.sharpe },
  return: { name: 'Time-weighted return', kind: 'percent', order: 'higher first', anchor: METRIC_ANCHOR.timeWeightedReturn },
  max_drawdown: { name: 'Max drawdown', kind: 'percent', order: 'lower first', anchor: METRIC_ANCHOR.drawdown },
};
