import type { Database } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { NO_ESTIMATE, type Estimate } from './estimate';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS, scoreRecord, type BenchmarkMetric, type BenchmarkRecord } from './benchmark-record';
import type { Season } from './seasons';
import { exportSeason, type ExportedForecast } from './benchmark-export';

/** Who a board ranks: people (all), agents (bots), both (everyone, as get_leaderboard names them) or the reference forecasters. */
export type BenchmarkAudience = 'all' | 'bots' | 'everyone' | 'reference';
export type ReferenceKind = 'market' | 'coin_flip' | 'favourite';

const AUDIENCES: Record<BenchmarkAudience, string[]> = {
  all: ['people'],
  bots: ['agents'],
  everyone: ['people', 'agents'],
  reference: ['reference'],
};

/**
 * The figure a board shows per metric: its path in the stored record (the same Estimate the record shows). A board reads
 * only that part of each record (`record #> path`), not the whole document.
 */
const FIGURE_PATH: Record<BenchmarkMetric, string> = {
  alpha: '{forecasts,alpha}',
  brier: '{forecasts,brier}',
  log_score: '{forecasts,logScore}',
  clv: '{timing,close,mean}',
  sharpe: '{risk,sharpe}',
  return: '{risk,timeWeightedReturn}',
  max_drawdown: '{risk,maxDrawdown}',
};

export interface BenchmarkRecordView extends BenchmarkRecord {
  userId: string;
  displayName: string;
  isAgent: boolean;
  reference: ReferenceKind | null;
  minimumMarkets: number;
  ranked: boolean;
  computedAt: string | null;
}

export interface BenchmarkBoardEntry {
  rank: number;
  userId: string;
  displayName: string;
  isAgent: boolean;
  reference: ReferenceKind | null;
  resolvedMarkets: number;
  figure: Estimate;
}

export interface BenchmarkBoard {
  season: Season;
  metric: BenchmarkMetric;
  audience: BenchmarkAudience;
  minimumMarkets: number;
  entries: BenchmarkBoardEntry[];
  you: { rank: number | null; resolvedMarkets: number; figure: Estimate } | null;
}

interface RecordRow {
  user_id: string;
  display_name: string;
  is_agent: boolean;
  reference: ReferenceKind | null;
  resolved_markets: number;
  record: BenchmarkRecord | string;
  computed_at: Date;
}

const parsed = (r: RecordRow['record']): BenchmarkRecord => (typeof r === 'string' ? (JSON.parse(r) as BenchmarkRecord) : r);
const parsedFigure = (f: Estimate | string): Estimate => (typeof f === 'string' ? (JSON.parse(f) as Estimate) : f);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The benchmark's reads: an account's scored record of a season and the season boards, both from benchmark_records. */
export class BenchmarkService {
  constructor(private readonly db: Database) {}

  async record(userId: string, season: Season): Promise<BenchmarkRecordView> {
    if (!UUID.test(userId)) throw notFound(userId);
    const rows = await this.db.query<RecordRow & { found: boolean }>(
      `SELECT u.id AS user_id, u.display_name, u.is_agent, u.reference, b.resolved_markets, b.record, b.computed_at
       FROM users u LEFT JOIN benchmark_records b ON b.user_id = u.id AND b.season = $2 WHERE u.id = $1 AND u.deleted_at IS NULL`,
      [userId, season],
    );
    const row = rows[0];
    if (!row) throw notFound(userId);
    // Not scored yet (nothing of the account's has resolved): the empty record, with computedAt null.
    const record = row.computed_at ? parsed(row.record) : scoreRecord(season, EMPTY_INPUTS, `${userId}|${season}`);
    return {
      userId: row.user_id,
      displayName: row.display_name,
      isAgent: row.is_agent,
      reference: row.reference,
      minimumMarkets: MIN_RESOLVED_MARKETS,
      ranked: record.resolvedMarkets >= MIN_RESOLVED_MARKETS,
      computedAt: row.computed_at ? new Date(row.computed_at).toISOString() : null,
      ...record,
    };
  }

  /** A page of the season's resolved forecasts (export_benchmark_forecasts). */
  async export(season: Season, q: { limit: number; cursor?: string }): Promise<{ forecasts: ExportedForecast[]; nextCursor: string | null }> {
    return exportSeason(this.db, season, q);
  }

  async leaderboard(q: { season: Season; metric: BenchmarkMetric; audience: BenchmarkAudience; limit: number; userId?: string }): Promise<BenchmarkBoard> {
    const column = q.metric;
    const dir = BENCHMARK_METRICS[q.metric] === 'asc' ? 'ASC' : 'DESC';
    const better = dir === 'ASC' ? '<' : '>';
    const order = `b.${column} ${dir}, b.resolved_markets DESC, b.user_id`;
    const ranked = `b.${column} IS NOT NULL AND b.resolved_markets >= ${MIN_RESOLVED_MARKETS}`;
    const figure = (row: string) => `${row}.record #> '${FIGURE_PATH[q.metric]}'`;
    const audiences = AUDIENCES[q.audience];
    // Ranked before the caller's row m, in the board's order: a better figure, or the same with more resolved markets, or
    // the same again and a lower id. Two counts, each bounded by the board's index alone (no filter to run per entry).
    const ties = `b.${column} = m.${column} AND (b.resolved_markets > m.resolved_markets OR (b.resolved_markets = m.resolved_markets AND b.user_id < m.user_id))`;
    const ahead = (from: string, where: string) =>
      `(SELECT count(*)::int FROM ${from} WHERE ${where} AND b.${column} ${better} m.${column})
       + (SELECT count(*)::int FROM ${from} WHERE ${where} AND ${ties})`;
    const inBoard = `b.season = $1 AND b.audience = ANY($2::text[]) AND ${ranked}`;
    const [rows, mine] = await Promise.all([
      // Each audience's best walked in its index's order (season, audience, metric, resolved_markets DESC, user_id), the
      // walks merged: a board reads about `limit` rows per audience, never the season.
      this.db.query<Omit<RecordRow, 'record'> & { figure: Estimate | string }>(
        `SELECT x.* FROM unnest($2::text[]) a(audience) CROSS JOIN LATERAL (
           SELECT b.user_id, u.display_name, u.is_agent, u.reference, b.resolved_markets, b.${column} AS sort_figure, ${figure('b')} AS figure
           FROM benchmark_records b JOIN users u ON u.id = b.user_id AND u.deleted_at IS NULL
           WHERE b.season = $1 AND b.audience = a.audience AND ${ranked} ORDER BY ${order} LIMIT $3
         ) x ORDER BY x.sort_figure ${dir}, x.resolved_markets DESC, x.user_id LIMIT $3`,
        [q.season, audiences, q.limit],
      ),
      // The caller's rank: 1 + the ranked rows ahead of theirs, counted from the board's index alone (an index-only scan),
      // less those of deleted accounts (few: found through users' partial index of them).
      q.userId
        ? this.db.query<{ resolved_markets: number; figure: Estimate | string; rank: number | null }>(
            `SELECT m.resolved_markets, ${figure('m')} AS figure,
               CASE WHEN m.${column} IS NOT NULL AND m.resolved_markets >= ${MIN_RESOLVED_MARKETS} AND m.audience = ANY($2::text[]) THEN
                 1 + ${ahead('benchmark_records b', inBoard)}
                 - ${ahead('users u JOIN benchmark_records b ON b.user_id = u.id', `u.deleted_at IS NOT NULL AND ${inBoard}`)}
               END AS rank
             FROM benchmark_records m WHERE m.season = $1 AND m.user_id = $3`,
            [q.season, audiences, q.userId],
          )
        : Promise.resolve([]),
    ]);
    const me = mine[0];
    return {
      season: q.season,
      metric: q.metric,
      audience: q.audience,
      minimumMarkets: MIN_RESOLVED_MARKETS,
      entries: rows.map((r, i) => ({
        rank: i + 1,
        userId: r.user_id,
        displayName: r.display_name,
        isAgent: r.is_agent,
        reference: r.reference,
        resolvedMarkets: r.resolved_markets,
        figure: parsedFigure(r.figure),
      })),
      you: q.userId
        ? me
          ? { rank: me.rank ?? null, resolvedMarkets: me.resolved_markets, figure: parsedFigure(me.figure) }
          : { rank: null, resolvedMarkets: 0, figure: NO_ESTIMATE }
        : null,
    };
  }
}

const EMPTY_INPUTS = { questions: [], categories: {}, entryQuestions: [], buys: [], kellyBuys: [], startEquity: 0, days: [], positions: [] };

const notFound = (userId: string) => new AppError('NOT_FOUND', `Account ${userId} not found.`);
