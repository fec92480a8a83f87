import { MICRO, type Micro } from '../money/micro';

/**
 * The rules of get_portfolio_history, pure: which hour a snapshot belongs to, which snapshots a period and a
 * resolution show, and profit and loss against the period's base (Alpaca's portfolio history: the base is the
 * equity of the first point shown).
 */
export const HISTORY_PERIODS = ['1d', '1w', '1m', 'all'] as const;
export type HistoryPeriod = (typeof HISTORY_PERIODS)[number];

export const HISTORY_TIMEFRAMES = ['1h', '1d'] as const;
export type HistoryTimeframe = (typeof HISTORY_TIMEFRAMES)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** How far back each period reaches from now; `all` reaches back to the first snapshot. */
export const PERIOD_SPAN_MS: Record<HistoryPeriod, number | null> = { '1d': DAY_MS, '1w': 7 * DAY_MS, '1m': 30 * DAY_MS, all: null };

/** Hourly points for the short periods, daily for the long ones (what a chart of that span can show). */
export const DEFAULT_TIMEFRAME: Record<HistoryPeriod, HistoryTimeframe> = { '1d': '1h', '1w': '1h', '1m': '1d', all: '1d' };

/** The start of the UTC hour `at` falls in: the key of that hour's snapshot. */
export function hourBucket(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/** The start of the UTC day `at` falls in. */
export function dayBucket(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** The earliest snapshot a period shows (inclusive), or null for `all`. */
export function periodStart(period: HistoryPeriod, now: Date): Date | null {
  const span = PERIOD_SPAN_MS[period];
  return span === null ? null : new Date(now.getTime() - span);
}

/**
 * Why a period and a timeframe cannot go together, or null when they can: hourly points over all time would
 * grow without bound (Alpaca likewise serves intraday timeframes only for periods under a month or so).
 */
export function timeframeProblem(period: HistoryPeriod, timeframe: HistoryTimeframe): string | null {
  if (timeframe === '1h' && period === 'all') return 'timeframe 1h is served for periods 1d, 1w and 1m; use timeframe 1d for all';
  return null;
}

export interface Snapshot {
  at: Date;
  cashMicro: Micro;
  positionsValueMicro: Micro;
}

/**
 * The snapshots a resolution shows, oldest first: every hourly one for `1h`; for `1d` the last of each UTC day
 * (the day's close, as daily bars are), so today's is the latest hour taken so far. Input in any order.
 */
export function atResolution(snapshots: readonly Snapshot[], timeframe: HistoryTimeframe): Snapshot[] {
  const sorted = [...snapshots].sort((a, b) => a.at.getTime() - b.at.getTime());
  if (timeframe === '1h') return sorted;
  const lastOfDay = new Map<number, Snapshot>();
  for (const s of sorted) lastOfDay.set(dayBucket(s.at).getTime(), s);
  return [...lastOfDay.values()];
}

export interface HistoryPoint {
  at: Date;
  equityMicro: Micro;
  cashMicro: Micro;
  positionsValueMicro: Micro;
  profitLossMicro: Micro;
  /** Profit and loss over the base, in millionths (1_000_000 = +100 %); null when the base is 0. */
  profitLossPctMicro: Micro | null;
  live: boolean;
}

/** profitLoss / base in millionths, rounded toward zero; null for a base of 0 (no ratio exists). */
export function ratioMicro(profitLossMicro: Micro, baseMicro: Micro): Micro | null {
  if (baseMicro === 0n) return null;
  return (profitLossMicro * MICRO) / baseMicro;
}

/**
 * Points of a history: the snapshots shown, then the live point for now. The base is the equity of the first point
 * (the live one when no snapshot falls in the period), so the first point's profit and loss is 0.
 */
export function historyPoints(shown: readonly Snapshot[], live: Snapshot): { baseMicro: Micro; points: HistoryPoint[] } {
  const all = [...shown.map((s) => ({ s, live: false })), { s: live, live: true }];
  const equity = (s: Snapshot) => s.cashMicro + s.positionsValueMicro;
  const baseMicro = equity(all[0]!.s);
  const points = all.map(({ s, live: isLive }) => {
    const profitLossMicro = equity(s) - baseMicro;
    return {
      at: s.at,
      equityMicro: equity(s),
      cashMicro: s.cashMicro,
      positionsValueMicro: s.positionsValueMicro,
      profitLossMicro,
      profitLossPctMicro: ratioMicro(profitLossMicro, baseMicro),
      live: isLive,
    };
  });
  return { baseMicro, points };
}
