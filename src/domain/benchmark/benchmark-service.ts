import type { Database } from '../../db/database';
import { decodeCursor, encodeCursor, FLOAT_TEXT } from '../../db/keyset-cursor';
import { CommitWatermark, type MarkStatement } from '../../db/commit-watermark';
import { ConcurrencyGate } from '../../db/concurrency-gate';
import { RenewingCache } from '../track-record/renewing-cache';
import { AppError } from '../../errors/app-error';
import { NO_ESTIMATE, type Estimate } from './estimate';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS, scoreRecord, type BenchmarkMetric, type BenchmarkRecord } from './benchmark-record';
import type { Season } from './seasons';
import { exportSeason, type ExportedForecast } from './benchmark-export';
import { BoardStandings, idPrefixOf, placeAmong, type Standing } from './board-places';
import type { PricePath } from './benchmark-inputs';
import { exportSeasonBooks, type BooksPart, type BooksRow } from './season-books-export';
import type { RankingScores } from './ranking-scores';
import { holm, rankIntervals } from './statistics';

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
  /** The ranks its figure's interval allows (statistics.ts rankIntervals): rows whose intervals overlap may be in either order. */
  rankLow: number;
  rankHigh: number;
  /** Below PROVISIONAL_MARKETS resolved markets or PROVISIONAL_DAYS days (ranking-scores.ts). */
  provisional: boolean;
  /** p-value of "no better than the market" (paired bootstrap), Holm-corrected across the board's rows. */
  pValue: number | null;
  /** Alpha shrunk toward 0: Σ alpha / max(30, n). */
  shrunkAlpha: number | null;
  /** The smallest alpha the row's n can tell from 0 (power 80 %, two-sided 5 %). */
  minimumDetectableEdge: number | null;
}

export interface BenchmarkBoard {
  season: Season;
  metric: BenchmarkMetric;
  audience: BenchmarkAudience;
  minimumMarkets: number;
  /** Ranked rows on the whole board (the worst rank a row's interval allows counts them all). */
  rankedRows: number;
  entries: BenchmarkBoardEntry[];
  you: { rank: number | null; resolvedMarkets: number; figure: Estimate } | null;
  /** The service's reference forecasters, ranked or not yet: the yardsticks a board names from its first day. */
  references: BoardReference[];
  /** Where the next page starts (pass as cursor); null on the last. */
  nextCursor: string | null;
}

/** A reference forecaster as a board names it, with its resolved markets in the board's season (0 before any). */
export interface BoardReference {
  userId: string;
  displayName: string;
  reference: ReferenceKind;
  resolvedMarkets: number;
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

/** How long a served record, board or place is fresh when nothing in this process has written since (other processes' writes show within twice it). */
const CACHE_MS = 1000;
/** Records kept: the accounts being looked at now (a parsed record is some 10 kB, its JSON ~1.3 kB). */
const RECORD_CACHE_SIZE = 1000;
/** Boards kept: 5 live seasons × 7 metrics × 4 audiences × a few limits, 100 rows of some 250 bytes each. */
const BOARD_CACHE_SIZE = 1000;
/** Callers' rows of a season kept (audience, resolved markets and the 7 figures): some 2 kB each. */
const CALLER_ROW_CACHE_SIZE = 20_000;
/**
 * Audiences' standings kept, by season, metric and audience: 16 bytes per ranked account each (at 100,000 ranked
 * accounts a season, the 5 live seasons' 7 metrics are 35 pairs of sets, 1.6 MB a pair).
 */
const STANDINGS_CACHE_SIZE = 128;

/**
 * The benchmark's own mark (migration 47): triggers move it when a record, or an account's name, kind or deletion,
 * commits, so the caches renew against it and stay put through trades and API-key bookkeeping.
 */
const BENCHMARK_CHANGES: MarkStatement = { sql: 'SELECT version::text AS mark FROM benchmark_changes', name: 'benchmark_changes' };

type Place = NonNullable<BenchmarkBoard['you']>;
/** What a caller's places on a season's boards are made of: their row of that season (null when they have none). */
type CallerRow = {
  /** The benchmark's count of changes when the row was read. */
  version: string;
  audience: string;
  resolvedMarkets: number;
  sortFigures: Record<BenchmarkMetric, number | null>;
  figures: Record<BenchmarkMetric, Estimate>;
} | null;
type BoardQuery = { season: Season; metric: BenchmarkMetric; audience: BenchmarkAudience; limit: number; cursor?: string; userId?: string };

/** Where a page of a board ended: its last row's figure (as PostgreSQL wrote it), resolved markets and rank, and id. */
interface BoardPosition {
  figure: string;
  resolvedMarkets: number;
  rank: number;
  userId: string;
}

const POSITION_KEY = /^([^|]{1,40})\|(\d{1,9})\|(\d{1,9})$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const boardSort = (q: BoardQuery) => `benchmark/${q.season}/${q.metric}/${q.audience}`;

function decodePosition(q: BoardQuery, cursor: string): BoardPosition {
  const c = decodeCursor(
    cursor,
    boardSort(q),
    (k) => POSITION_KEY.test(k) && FLOAT_TEXT.test(POSITION_KEY.exec(k)![1]!),
    'Pass nextCursor from the previous page unchanged, with the same season, metric and audience.',
    (i) => UUID_TEXT.test(i),
  );
  const [, figure, resolvedMarkets, rank] = POSITION_KEY.exec(c.k)!;
  return { figure: figure!, resolvedMarkets: Number(resolvedMarkets), rank: Number(rank), userId: c.i };
}

/**
 * The benchmark's reads: an account's scored record of a season and the season boards, both from benchmark_records.
 * They change only when the folder writes, so they are served from memory under the bound get_leaderboard states
 * (RenewingCache): the folder's commits in this process start the caches over (invalidate), other processes' show
 * within twice CACHE_MS, and an account deleted or renamed here shows at once. Served values are frozen, so a board or
 * record answering many requests is serialised once (json-body.ts); a signed-in caller's board is the shared board
 * with their place, read and kept apart, so a keyed request costs what an anonymous one does once their place is read.
 */
export class BenchmarkService {
  private readonly records: RenewingCache<BenchmarkRecordView>;
  private readonly boards: RenewingCache<BenchmarkBoard>;
  private readonly callerRows: RenewingCache<CallerRow>;
  private readonly standings: RenewingCache<{ version: string; standings: BoardStandings }>;
  /** The venue's own price path (the simulated venue's), which the timing scores read: the export gives its readings. */
  private readonly path?: PricePath;

  constructor(
    private readonly db: Database,
    opts: { cacheMs?: number; clock?: () => number; path?: PricePath } = {},
  ) {
    this.path = opts.path;
    const cacheMs = opts.cacheMs ?? CACHE_MS;
    const clock = opts.clock ?? (() => performance.now());
    const watermark = new CommitWatermark(db, clock, BENCHMARK_CHANGES);
    // Renewed in the background one read at a time each: the shared boards never wait behind callers' places.
    this.records = new RenewingCache({
      watermark,
      gate: new ConcurrencyGate(1),
      cacheMs,
      clock,
      maxEntries: RECORD_CACHE_SIZE,
      // Any account's record may be asked for once: kept from its second read.
      admitOnRepeat: true,
    });
    this.boards = new RenewingCache({ watermark, gate: new ConcurrencyGate(1), cacheMs, clock, maxEntries: BOARD_CACHE_SIZE });
    this.callerRows = new RenewingCache({ watermark, gate: new ConcurrencyGate(1), cacheMs, clock, maxEntries: CALLER_ROW_CACHE_SIZE });
    this.standings = new RenewingCache({ watermark, gate: new ConcurrencyGate(1), cacheMs, clock, maxEntries: STANDINGS_CACHE_SIZE });
  }

  /** Something a record or board shows has changed and committed (a fold, a deletion, a rename): read afresh. */
  invalidate(): void {
    this.records.invalidate();
    this.boards.invalidate();
    this.callerRows.invalidate();
    this.standings.invalidate();
  }

  async record(userId: string, season: Season): Promise<BenchmarkRecordView> {
    if (!UUID.test(userId)) throw notFound(userId);
    return this.records.get(`${userId}/${season}`, async () => Object.freeze(await this.readRecord(userId, season)));
  }

  private async readRecord(userId: string, season: Season): Promise<BenchmarkRecordView> {
    const rows = await this.db.query<RecordRow & { found: boolean }>(
      `SELECT u.id AS user_id, u.display_name, u.is_agent, u.reference, b.resolved_markets, b.record, b.computed_at
       FROM users u LEFT JOIN benchmark_records b ON b.user_id = u.id AND b.season = $2 WHERE u.id = $1 AND u.deleted_at IS NULL`,
      [userId, season],
      'benchmark_record',
    );
    const row = rows[0];
    if (!row) throw notFound(userId);
    // Not scored yet (nothing of the account's has resolved): the empty record, with computedAt null.
    const empty = () => scoreRecord(season, EMPTY_INPUTS, `${userId}|${season}`);
    // A record stored before v1 (no scoringVersion, no life scores) is shown with v1's empty parts until migration 72's
    // requeue rescores it.
    const record = row.computed_at ? { ...emptyParts(empty), ...parsed(row.record) } : empty();
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

  /** A page of the season's trades, equity series, markets or price path (export_benchmark_forecasts' other parts). */
  async exportBooks(season: Season, part: BooksPart, q: { limit: number; cursor?: string }): Promise<{ rows: BooksRow[]; nextCursor: string | null }> {
    return exportSeasonBooks(this.db, season, part, q, this.path);
  }

  async leaderboard(q: BoardQuery): Promise<BenchmarkBoard> {
    const from = q.cursor === undefined ? null : decodePosition(q, q.cursor);
    const boardKey = `${q.season}/${q.metric}/${q.audience}/${q.limit}${q.cursor === undefined ? '' : `/${q.cursor}`}`;
    // Frozen, you: null: the anonymous answer as it is, and the shared part of every caller's.
    const board = this.boards.get(boardKey, async () => Object.freeze(await this.readBoard(q, from)));
    if (q.userId === undefined) return board;
    // Together: a failure of either is the request's, and never left unhandled while the other is awaited.
    const [shared, own] = await Promise.all([board, this.place(q, q.userId)]);
    return this.forCaller(q.userId, shared, own);
  }

  /**
   * A caller's place on a board, from their row of the season and the board's standings, both kept: no read per
   * request. Only a standing not found exactly once (a change between the two reads, or two ids alike in their first 32
   * bits with the same figure and resolved markets) is counted by the database.
   */
  private async place(q: BoardQuery, userId: string): Promise<Place> {
    const row = await this.callerRows.get(`${userId}/${q.season}`, async () => this.readCallerRow(userId, q.season));
    if (!row) return NO_PLACE;
    const figure = row.figures[q.metric];
    const sortFigure = row.sortFigures[q.metric];
    const audiences = AUDIENCES[q.audience];
    if (sortFigure === null || row.resolvedMarkets < MIN_RESOLVED_MARKETS || !audiences.includes(row.audience)) {
      return { rank: null, resolvedMarkets: row.resolvedMarkets, figure };
    }
    const sets = await Promise.all(
      audiences.map((audience) => this.standings.get(`${q.season}/${q.metric}/${audience}`, async () => this.readStandings(q.season, q.metric, audience))),
    );
    // Read under the same count of changes, the standings hold the caller's own: else (a change between the reads) count.
    const mine: Standing = { figure: sortFigure, resolvedMarkets: row.resolvedMarkets, idPrefix: idPrefixOf(userId) };
    const coherent = sets.every((set) => set.version === row.version);
    const rank =
      (coherent
        ? placeAmong(
            sets.map((set) => set.standings),
            mine,
          )
        : null) ?? (await this.countPlace(q, userId));
    return { rank, resolvedMarkets: row.resolvedMarkets, figure };
  }

  /**
   * The shared board with one caller's place: made per request and not kept (kept, each of the many callers' views
   * lived long enough to be promoted and died old, and full collections stalled the service); its rows are the
   * board's own frozen array, whose bytes are encoded once and sent as they are (json-body.ts). On the board's own
   * rows the place is their row's, so the answer agrees with itself when the board and the place were read at
   * different moments.
   */
  private forCaller(userId: string, board: BenchmarkBoard, place: Place): BenchmarkBoard {
    const row = board.entries.find((e) => e.userId === userId);
    const you = row ? { rank: row.rank, resolvedMarkets: row.resolvedMarkets, figure: row.figure } : place;
    return Object.freeze({ ...board, you });
  }

  private async readBoard(q: BoardQuery, from: BoardPosition | null): Promise<BenchmarkBoard> {
    const { column, dir, ranked, figure, audiences } = boardTerms(q);
    const order = `b.${column} ${dir}, b.resolved_markets DESC, b.user_id`;
    // A later page starts after the cursor's row in the board's order: keyset, so an account joining the board while
    // someone pages never repeats or hides a row whose figure stayed put.
    const params: unknown[] = [q.season, audiences, q.limit + 1];
    const better = dir === 'ASC' ? '>' : '<';
    const after = from
      ? ` AND (b.${column} ${better} $4::float8 OR (b.${column} = $4::float8 AND (b.resolved_markets < $5::int OR (b.resolved_markets = $5::int AND b.user_id > $6::uuid))))`
      : '';
    if (from) params.push(from.figure, from.resolvedMarkets, from.userId);
    // Each audience's best walked in its index's order (season, audience, metric, resolved_markets DESC, user_id), the
    // walks merged: a board reads about `limit` rows per audience, never the season.
    const references = this.readReferences(q.season);
    const read = await this.db.query<
      Omit<RecordRow, 'record'> & { figure: Estimate | string; sort_key: string; ranking: RankingScores | string | null; total: number }
    >(
      `SELECT x.*, (SELECT count(*)::int FROM benchmark_records b WHERE b.season = $1 AND b.audience = ANY($2::text[]) AND ${ranked}) AS total
       FROM unnest($2::text[]) a(audience) CROSS JOIN LATERAL (
         SELECT b.user_id, u.display_name, u.is_agent, u.reference, b.resolved_markets, b.${column} AS sort_figure, b.${column}::text AS sort_key,
           ${figure('b')} AS figure, b.record #> '{ranking}' AS ranking
         FROM benchmark_records b JOIN users u ON u.id = b.user_id AND u.deleted_at IS NULL
         WHERE b.season = $1 AND b.audience = a.audience AND ${ranked}${after} ORDER BY ${order} LIMIT $3
       ) x ORDER BY x.sort_figure ${dir}, x.resolved_markets DESC, x.user_id LIMIT $3`,
      params,
      `benchmark_board${from ? '_after' : ''}:${q.metric}`,
    );
    // One row more than the page: whether there is a next page. Ranks go on from the cursor's.
    const rows = read.slice(0, q.limit);
    const offset = from?.rank ?? 0;
    const last = rows[rows.length - 1];
    const rankedRows = Math.max(read[0]?.total ?? 0, offset + rows.length);
    const figures = rows.map((r) => parsedFigure(r.figure));
    const rankings = rows.map((r) => (typeof r.ranking === 'string' ? (JSON.parse(r.ranking) as RankingScores) : r.ranking));
    // Deleted accounts' rows are in the count and not on the board: the worst ranks stay conservative. A later page
    // compares its rows among themselves, so its best ranks are conservative too (rows of earlier pages are not counted).
    const intervals = rankIntervals(figures, rankedRows, BENCHMARK_METRICS[q.metric] === 'desc');
    const pValues = holm(rankings.map((k) => k?.references.find((e) => e.reference === 'market')?.pValue ?? null));
    const entries: BenchmarkBoardEntry[] = rows.map((r, i) => ({
      rank: offset + i + 1,
      userId: r.user_id,
      displayName: r.display_name,
      isAgent: r.is_agent,
      reference: r.reference,
      resolvedMarkets: r.resolved_markets,
      figure: figures[i]!,
      rankLow: Math.min(offset + i + 1, intervals[i]!.low),
      rankHigh: Math.max(offset + i + 1, intervals[i]!.high),
      // A record scored before v1 has no ranking part: provisional until rescored.
      provisional: rankings[i]?.provisional ?? true,
      pValue: pValues[i]!,
      shrunkAlpha: rankings[i]?.shrunkAlpha ?? null,
      minimumDetectableEdge: rankings[i]?.minimumDetectableEdge ?? null,
    }));
    // Frozen too: every caller's view of the board shares these rows, and their JSON is written once (json-body.ts).
    Object.freeze(entries);
    return {
      season: q.season,
      metric: q.metric,
      audience: q.audience,
      minimumMarkets: MIN_RESOLVED_MARKETS,
      rankedRows,
      entries,
      you: null,
      references: await references,
      nextCursor:
        read.length > q.limit && last
          ? encodeCursor({ s: boardSort(q), k: `${last.sort_key}|${last.resolved_markets}|${offset + rows.length}`, i: last.user_id })
          : null,
    };
  }

  /** The reference accounts (users' unique index on reference) and their resolved markets in the season, by kind (coin_flip, favourite, market). */
  private async readReferences(season: Season): Promise<BoardReference[]> {
    const rows = await this.db.query<{ user_id: string; display_name: string; reference: ReferenceKind; resolved_markets: number }>(
      `SELECT u.id AS user_id, u.display_name, u.reference, COALESCE(b.resolved_markets, 0)::int AS resolved_markets
       FROM users u LEFT JOIN benchmark_records b ON b.user_id = u.id AND b.season = $1
       WHERE u.reference IS NOT NULL AND u.deleted_at IS NULL ORDER BY u.reference`,
      [season],
      'benchmark_board_references',
    );
    return Object.freeze(
      rows.map((r) => ({ userId: r.user_id, displayName: r.display_name, reference: r.reference, resolvedMarkets: r.resolved_markets })),
    ) as BoardReference[];
  }

  /**
   * A caller's rank counted: 1 + the ranked rows ahead of theirs, counted from the board's index alone (an index-only
   * scan), less those of deleted accounts (few: found through users' partial index of them). Null when unranked.
   */
  private async countPlace(q: BoardQuery, userId: string): Promise<number | null> {
    const { column, dir, ranked, audiences } = boardTerms(q);
    const better = dir === 'ASC' ? '<' : '>';
    // Ranked before the caller's row m, in the board's order: a better figure, or the same with more resolved markets, or
    // the same again and a lower id. Two counts, each bounded by the board's index alone (no filter to run per entry).
    const ties = `b.${column} = m.${column} AND (b.resolved_markets > m.resolved_markets OR (b.resolved_markets = m.resolved_markets AND b.user_id < m.user_id))`;
    const ahead = (from: string, where: string) =>
      `(SELECT count(*)::int FROM ${from} WHERE ${where} AND b.${column} ${better} m.${column})
       + (SELECT count(*)::int FROM ${from} WHERE ${where} AND ${ties})`;
    const inBoard = `b.season = $1 AND b.audience = ANY($2::text[]) AND ${ranked}`;
    const rows = await this.db.query<{ rank: number | null }>(
      `SELECT CASE WHEN m.${column} IS NOT NULL AND m.resolved_markets >= ${MIN_RESOLVED_MARKETS} AND m.audience = ANY($2::text[]) THEN
           1 + ${ahead('benchmark_records b', inBoard)}
           - ${ahead('users u JOIN benchmark_records b ON b.user_id = u.id', `u.deleted_at IS NOT NULL AND ${inBoard}`)}
         END AS rank
       FROM benchmark_records m WHERE m.season = $1 AND m.user_id = $3`,
      [q.season, audiences, userId],
      `benchmark_place:${q.metric}`,
    );
    return rows[0]?.rank ?? null;
  }

  /** A caller's row of a season: what their place on each of its boards is made of. */
  private async readCallerRow(userId: string, season: Season): Promise<CallerRow> {
    const columns = METRICS.map((m) => `b.${m} AS "sort_${m}", b.record #> '${FIGURE_PATH[m]}' AS "figure_${m}"`).join(', ');
    const rows = await this.db.query<Record<string, unknown> & { version: string; audience: string; resolved_markets: number }>(
      `SELECT (SELECT version::text FROM benchmark_changes) AS version, b.audience, b.resolved_markets, ${columns}
       FROM benchmark_records b WHERE b.season = $1 AND b.user_id = $2`,
      [season, userId],
      'benchmark_caller_row',
    );
    const r = rows[0];
    if (!r) return null;
    const sortFigures = {} as Record<BenchmarkMetric, number | null>;
    const figures = {} as Record<BenchmarkMetric, Estimate>;
    for (const m of METRICS) {
      sortFigures[m] = r[`sort_${m}`] === null ? null : Number(r[`sort_${m}`]);
      figures[m] = Object.freeze(parsedFigure(r[`figure_${m}`] as Estimate | string));
    }
    return Object.freeze({ version: r.version, audience: r.audience, resolvedMarkets: r.resolved_markets, sortFigures, figures });
  }

  /** An audience's standings on a season's board for a metric, in the board's order (deleted accounts left out). */
  private async readStandings(season: Season, metric: BenchmarkMetric, audience: string): Promise<{ version: string; standings: BoardStandings }> {
    const { column, ranked, dir } = boardTerms({ season, metric, audience: 'everyone', limit: 0 });
    // Every standing packed in STANDING_BYTES (the figure's exact float8, resolved markets, the id's first 4 bytes, which
    // order as its text does), in the board's order: the service copies them into its arrays in one pass
    // (BoardStandings.fromBytes), where a text of them was split, parsed and sorted again, ~100 ms of the event loop per
    // audience at 100,000 accounts. The count of changes in the same statement (one snapshot): what they are as of.
    const rows = await this.db.query<{ version: string; standings: Uint8Array | null }>(
      `SELECT (SELECT version::text FROM benchmark_changes) AS version,
         string_agg(float8send(b.${column}) || int4send(b.resolved_markets) || substring(uuid_send(b.user_id) FROM 1 FOR 4), ''::bytea
           ORDER BY b.${column} ${dir}, b.resolved_markets DESC, b.user_id) AS standings
       FROM benchmark_records b
       WHERE b.season = $1 AND b.audience = $2 AND ${ranked}
         AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = b.user_id AND u.deleted_at IS NOT NULL)`,
      [season, audience],
      `benchmark_standings:${metric}`,
    );
    return { version: rows[0]!.version, standings: BoardStandings.fromBytes(rows[0]!.standings ?? new Uint8Array(0), dir === 'ASC') };
  }
}

/** The parts of a board's statements its metric and audience decide. */
function boardTerms(q: BoardQuery) {
  const column = q.metric;
  return {
    column,
    dir: BENCHMARK_METRICS[q.metric] === 'asc' ? 'ASC' : 'DESC',
    ranked: `b.${column} IS NOT NULL AND b.resolved_markets >= ${MIN_RESOLVED_MARKETS}`,
    figure: (row: string) => `${row}.record #> '${FIGURE_PATH[q.metric]}'`,
    audiences: AUDIENCES[q.audience],
  };
}

const METRICS = Object.keys(BENCHMARK_METRICS) as BenchmarkMetric[];
const NO_PLACE: Place = Object.freeze({ rank: null, resolvedMarkets: 0, figure: NO_ESTIMATE });

/** The parts v1 added to a record, empty: what a record stored before v1 lacks. */
function emptyParts(empty: () => BenchmarkRecord): Pick<BenchmarkRecord, 'scoringVersion' | 'life' | 'ranking'> {
  const e = (emptyV1 ??= empty());
  return { scoringVersion: 'v0', life: e.life, ranking: e.ranking };
}
let emptyV1: BenchmarkRecord | undefined;

const EMPTY_INPUTS = { questions: [], contexts: {}, categories: {}, entryQuestions: [], buys: [], kellyBuys: [], startEquity: 0, days: [], positions: [] };

const notFound = (userId: string) => new AppError('NOT_FOUND', `Account ${userId} not found.`);
