import type { Database } from '../../db/database';
import { fromMicro, type Micro } from '../money/micro';
import {
  DEFAULT_TIMEFRAME,
  atResolution,
  historyPoints,
  hourBucket,
  periodStart,
  timeframeProblem,
  type HistoryPeriod,
  type HistoryTimeframe,
  type Snapshot,
} from './history-rules';
import { AppError } from '../../errors/app-error';
import { HOLDINGS_VALUE } from './holdings-value';

/** Holdings valued as get_portfolio values them (holdings-value.ts): open positions plus unsettled pool stakes. */
const VALUE = `SELECT user_id, positions_micro + stakes_micro AS value_micro FROM (${HOLDINGS_VALUE}) h`;

/**
 * One row per existing (not deleted, already registered) account for the hour `$1`, in one statement; an hour that
 * already has its row keeps it, so a second leader or a second sync in the same hour changes nothing.
 */
const SNAPSHOT_SQL = `
  INSERT INTO portfolio_snapshots (user_id, bucket, cash_micro, positions_value_micro, taken_at)
  SELECT u.id, $1, c.balance_micro, COALESCE(v.value_micro, 0), $2
  FROM users u JOIN cash_balances c ON c.user_id = u.id LEFT JOIN (${VALUE}) v ON v.user_id = u.id
  WHERE u.deleted_at IS NULL AND u.created_at <= $2
  ON CONFLICT (user_id, bucket) DO NOTHING`;

const LIVE_SQL = `
  SELECT c.balance_micro AS cash_micro, COALESCE((SELECT v.value_micro FROM (${VALUE}) v WHERE v.user_id = $1), 0) AS value_micro
  FROM cash_balances c WHERE c.user_id = $1`;

export interface PortfolioHistoryQuery {
  period: HistoryPeriod;
  timeframe?: HistoryTimeframe;
}

export interface PortfolioHistory {
  period: HistoryPeriod;
  timeframe: HistoryTimeframe;
  baseValue: number;
  points: Array<{
    time: string;
    equity: number;
    cash: number;
    positionsValue: number;
    profitLoss: number;
    profitLossPct: number | null;
    live: boolean;
  }>;
}

/** Hourly account snapshots (taken by the sync leader) and the equity curve read from them. */
export class PortfolioHistoryService {
  constructor(private readonly db: Database) {}

  /**
   * Takes this hour's snapshot of every account that has none yet (idempotent: the key is account and hour). It runs
   * after every sync, so an account opened during the hour gets its row at the next sync; the rows already taken stay.
   * Returns the rows written.
   */
  async snapshot(now: Date): Promise<number> {
    const rows = await this.db.query<{ n: number }>(`WITH w AS (${SNAPSHOT_SQL} RETURNING 1) SELECT count(*)::int AS n FROM w`, [hourBucket(now), now]);
    return rows[0]?.n ?? 0;
  }

  async history(userId: string, q: PortfolioHistoryQuery, now: Date): Promise<PortfolioHistory> {
    const timeframe = q.timeframe ?? DEFAULT_TIMEFRAME[q.period];
    const problem = timeframeProblem(q.period, timeframe);
    if (problem)
      throw new AppError('VALIDATION_ERROR', `Invalid input for get_portfolio_history: ${problem}.`, { hint: 'Omit timeframe for the default of the period.' });
    const start = periodStart(q.period, now);
    const [rows, live] = await Promise.all([
      this.db.query<{ bucket: Date; cash_micro: Micro; positions_value_micro: Micro }>(
        `SELECT bucket, cash_micro, positions_value_micro FROM portfolio_snapshots
         WHERE user_id = $1 AND bucket >= COALESCE($2::timestamptz, '-infinity') AND bucket <= $3 ORDER BY bucket`,
        [userId, start, now],
      ),
      this.db.query<{ cash_micro: Micro; value_micro: Micro }>(LIVE_SQL, [userId]),
    ]);
    const snapshots: Snapshot[] = rows.map((r) => ({
      at: new Date(r.bucket),
      cashMicro: BigInt(r.cash_micro),
      positionsValueMicro: BigInt(r.positions_value_micro),
    }));
    const current: Snapshot = { at: now, cashMicro: BigInt(live[0]?.cash_micro ?? 0n), positionsValueMicro: BigInt(live[0]?.value_micro ?? 0n) };
    const { baseMicro, points } = historyPoints(atResolution(snapshots, timeframe), current);
    return {
      period: q.period,
      timeframe,
      baseValue: fromMicro(baseMicro),
      points: points.map((p) => ({
        time: p.at.toISOString(),
        equity: fromMicro(p.equityMicro),
        cash: fromMicro(p.cashMicro),
        positionsValue: fromMicro(p.positionsValueMicro),
        profitLoss: fromMicro(p.profitLossMicro),
        profitLossPct: p.profitLossPctMicro === null ? null : fromMicro(p.profitLossPctMicro),
        live: p.live,
      })),
    };
  }
}
