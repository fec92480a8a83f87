import type { Queryable } from '../../db/database';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import { fromMicro } from '../money/micro';
import { badgeOf } from './badges';
import { levelOf } from './levels';
import { bucketOf, periodStart, type Period } from './periods';
import { compileNamed } from './sql-params';
import { ConcurrencyGate } from '../../db/concurrency-gate';
import { CommitWatermark } from '../../db/commit-watermark';
import { RenewingCache } from './renewing-cache';

export type Metric = 'pnl' | 'volume' | 'accuracy' | 'trades';
export type Audience = 'all' | 'bots' | 'everyone';

/** Accuracy is ranked only with at least this many settled positions in the period (mirrored by the *_accuracy columns). */
export const MIN_SETTLED_FOR_ACCURACY = 5;

/** Where each metric lives: trades and volume move with every buy and sale, pnl and accuracy only with sales and settlements. */
const SOURCE: Record<Metric, { table: string; col: string }> = {
  trades: { table: 'trader_activity', col: 'trades' },
  volume: { table: 'trader_activity', col: 'volume' },
  pnl: { table: 'trader_results', col: 'pnl' },
  accuracy: { table: 'trader_results', col: 'accuracy' },
};

const PREFIX: Record<Period, 'w' | 'm' | 'a'> = { weekly: 'w', monthly: 'm', alltime: 'a' };

/** A metric's stored value (micro-dollars, a count, or parts per million) as the number on the wire. */
export function metricValue(metric: Metric, stored: bigint | number): number {
  if (metric === 'trades') return Number(stored);
  if (metric === 'accuracy') return Number(stored) / 10_000; // ppm → percent with 4 decimals
  return fromMicro(BigInt(stored));
}

export interface LeaderboardEntry {
  rank: number;
  user: { id: string; displayName: string; level: number; badges: Array<{ icon: string; name: string }> };
  value: number;
  isCurrentUser?: boolean;
}

export interface Leaderboard {
  period: Period;
  metric: Metric;
  audience: Audience;
  periodStart: string | null;
  leaderboard: LeaderboardEntry[];
  currentUserRank: number | null;
  /** Where the next page starts (pass as cursor); null on the last. Not a SPEC field: an addition. */
  nextCursor: string | null;
}

type Query = { sql: string; names: string[] };

/** The WHERE clause of a board's rows: the period's bucket, one half of the audience, and for accuracy a value at all. */
function boardWhere(metric: Metric, period: Period, alias: string, agent: string): string {
  const col = `${PREFIX[period]}_${SOURCE[metric].col}`;
  return [
    period === 'alltime' ? null : `${alias}.${PREFIX[period]}_bucket = @bucket::date`,
    `${alias}.is_agent = ${agent}`,
    metric === 'accuracy' ? `${alias}.${col} IS NOT NULL` : null,
  ]
    .filter(Boolean)
    .join(' AND ');
}

const halvesOf = (audience: Audience) => (audience === 'everyone' ? ['false', 'true'] : [audience === 'bots' ? 'true' : 'false']);

/**
 * The board SQL of one (metric, period, audience): the top `limit` rows are an index walk on
 * (bucket, is_agent, value DESC, user_id) — `everyone` merges the people's and the agents' walks — and each
 * row's card (name, XP, badges) comes from the trader's activity row, never from users or user_badges.
 * The same for every caller: a caller's own rank is a statement of its own (rankSql).
 */
function boardSql(metric: Metric, period: Period, audience: Audience, paged: boolean): Query {
  const { table } = SOURCE[metric];
  const col = `${PREFIX[period]}_${SOURCE[metric].col}`;
  const halves = halvesOf(audience);
  // The card (name, XP, badges) is on the activity row: read in the walk itself, or by primary key for results boards.
  const card = table === 'trader_activity' ? 'h.display_name, h.xp, h.badges' : 'c.display_name, c.xp, c.badges';
  const join = table === 'trader_activity' ? '' : ' JOIN trader_activity c ON c.user_id = h.user_id';
  // A later page starts after the cursor's row in the board's order (value down, then user id up): keyset, so a trader
  // joining the board while someone pages never repeats or hides a row whose value stayed put.
  const after = paged ? ` AND (h.${col} < @after_v OR (h.${col} = @after_v AND h.user_id > @after_user::uuid))` : '';
  const walks = halves.map(
    (a) =>
      `(SELECT h.user_id, h.${col} AS v, ${card} FROM ${table} h${join} WHERE ${boardWhere(metric, period, 'h', a)}${after} ORDER BY h.${col} DESC, h.user_id LIMIT @limit)`,
  );
  return compileNamed(halves.length === 1 ? walks[0]! : `SELECT * FROM (${walks.join(' UNION ALL ')}) w ORDER BY v DESC, user_id LIMIT @limit`);
}

/**
 * A caller's rank on one board: their row by primary key (no row, or a row off this board, is no rank), then
 * 1 + the rows with a strictly greater value (index range counts), the same competition rank the board shows.
 */
function rankSql(metric: Metric, period: Period, audience: Audience): Query {
  const { table } = SOURCE[metric];
  const col = `${PREFIX[period]}_${SOURCE[metric].col}`;
  const halves = halvesOf(audience);
  const ahead = halves.map((a) => `(SELECT count(*) FROM ${table} o WHERE ${boardWhere(metric, period, 'o', a)} AND o.${col} > me.${col})`).join(' + ');
  const mine = boardWhere(metric, period, 'me', audience === 'everyone' ? 'me.is_agent' : halves[0]!);
  return compileNamed(`SELECT 1 + ${ahead} AS my_rank FROM ${table} me WHERE me.user_id = @user AND ${mine}`);
}

/** How long a served board is fresh when nothing in this process has written since (other processes' writes show within twice it). */
const BOARD_CACHE_MS = 1000;
// A board of 100 rows is some 30 kB: a thousand boards bound the cache near 30 MB.
const BOARD_CACHE_SIZE = 1000;
/** Callers' ranks kept: a number each, so many. */
const RANK_CACHE_SIZE = 100_000;
/** Boards as one caller sees them (isCurrentUser on every row), kept for the callers asking now: some 30 kB each. */
const CALLER_BOARD_CACHE_SIZE = 256;

type BoardQuery = { period: Period; metric: Metric; audience: Audience; limit: number; cursor?: string; userId?: string; now: Date };

/** Where a page of a board ended: its last row's stored value, its rank and its place (1-based) on the whole board. */
interface BoardPosition {
  value: string;
  rank: number;
  place: number;
  userId: string;
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POSITION_KEY = /^(-?\d{1,20})\|(\d{1,9})\|(\d{1,9})$/;

/** A cursor names its board and bucket, so a cursor of another board, or of a period since rolled over, is refused. */
const boardSort = (q: BoardQuery, bucket: string) => `${q.metric}/${q.period}/${q.audience}/${bucket}`;

function decodePosition(q: BoardQuery, bucket: string, cursor: string): BoardPosition {
  const c = decodeCursor(
    cursor,
    boardSort(q, bucket),
    (k) => POSITION_KEY.test(k),
    'Pass nextCursor from the previous page unchanged, with the same period, metric and audience (a new period starts a new board).',
    (i) => UUID_TEXT.test(i),
  );
  const [, value, rank, place] = POSITION_KEY.exec(c.k)!;
  return { value: value!, rank: Number(rank), place: Number(place), userId: c.i };
}

/**
 * Serves boards from the aggregate rows, never from trades. A trader is on a period's trades and volume
 * boards once they bought or sold in it, on its pnl board once they sold or had a position settled in it,
 * and on its accuracy board with at least 5 settled positions in it. Ranking is standard competition
 * ranking: equal values share a rank and the next rank skips (1, 2, 2, 4); equal values are listed by user id.
 *
 * Every caller gets the same board: a signed-in caller's answer is that board, with isCurrentUser on its
 * rows, and their own rank, read and kept apart (by caller and board). So a keyed request costs what an
 * anonymous one does, and a caller's rank, once read, is renewed under the same bound as the boards.
 */
export class LeaderboardService {
  private readonly queries = new Map<string, Query>();
  private readonly boards: RenewingCache<Leaderboard>;
  private readonly ranks: RenewingCache<number | null>;
  /** A caller's view of a board, kept while neither the board nor their rank changed (so its JSON is made once). */
  private readonly callerBoards = new Map<string, { board: Leaderboard; rank: number | null; view: Leaderboard }>();

  private readonly beforeRead: () => Promise<void>;

  /** `beforeRead` runs before each board or rank read (the board folder's flush: this process's trades show at once). */
  constructor(
    private readonly db: Queryable,
    opts: { cacheMs?: number; clock?: () => number; beforeRead?: () => Promise<void> } = {},
  ) {
    const cacheMs = opts.cacheMs ?? BOARD_CACHE_MS;
    const clock = opts.clock ?? (() => performance.now());
    this.beforeRead = opts.beforeRead ?? (async () => {});
    const watermark = new CommitWatermark(db, clock);
    // Each renewed in the background one read at a time, boards and ranks apart: however many callers' ranks
    // wait their turn, the shared boards never wait behind them.
    this.boards = new RenewingCache({ watermark, gate: new ConcurrencyGate(1), cacheMs, clock, maxEntries: BOARD_CACHE_SIZE });
    this.ranks = new RenewingCache({ watermark, gate: new ConcurrencyGate(1), cacheMs, clock, maxEntries: RANK_CACHE_SIZE });
  }

  /** Something a board shows has changed and committed: boards and ranks are read afresh. */
  invalidate(): void {
    this.boards.invalidate();
    this.ranks.invalidate();
  }

  async get(q: BoardQuery): Promise<Leaderboard> {
    const bucket = bucketOf(q.period, q.now);
    const from = q.cursor === undefined ? null : decodePosition(q, bucket, q.cursor);
    const boardKey = `${q.metric}/${q.period}/${q.audience}/${q.limit}/${bucket}${q.cursor === undefined ? '' : `/${q.cursor}`}`;
    // Frozen: the same board answers many requests, so transports may serialise it once (json-body.ts).
    const board = this.boards.get(boardKey, async () => Object.freeze(await this.readBoard(q, bucket, from)));
    if (q.userId === undefined) return board;
    const userId = q.userId;
    const rank = this.ranks.get(`${userId}/${q.metric}/${q.period}/${q.audience}/${bucket}`, () => this.readRank(q, userId, bucket));
    // Together: a failure of either is the request's, and never left unhandled while the other is awaited.
    const [shared, own] = await Promise.all([board, rank]);
    return this.forCaller(`${userId}/${boardKey}`, userId, shared, own);
  }

  /**
   * The board as one caller sees it. On the board's own rows the caller's rank is their row's (so the answer
   * agrees with itself even when the board and the rank were read at different moments); below them it is
   * the rank read for them.
   */
  private forCaller(key: string, userId: string, board: Leaderboard, rank: number | null): Leaderboard {
    const kept = this.callerBoards.get(key);
    if (kept && kept.board === board && kept.rank === rank) return kept.view;
    const own = board.leaderboard.find((r) => r.user.id === userId);
    const view = Object.freeze({
      ...board,
      leaderboard: board.leaderboard.map((r) => ({ ...r, isCurrentUser: r === own })),
      currentUserRank: own ? own.rank : rank,
    });
    this.callerBoards.delete(key);
    while (this.callerBoards.size >= CALLER_BOARD_CACHE_SIZE) this.callerBoards.delete(this.callerBoards.keys().next().value!);
    this.callerBoards.set(key, { board, rank, view });
    return view;
  }

  private query(kind: 'board' | 'rank', q: BoardQuery, paged = false): { sql: string; names: string[]; name: string } {
    const name = `${kind}${paged ? '-after' : ''}:${q.metric}/${q.period}/${q.audience}`;
    let query = this.queries.get(name);
    if (!query) this.queries.set(name, (query = kind === 'board' ? boardSql(q.metric, q.period, q.audience, paged) : rankSql(q.metric, q.period, q.audience)));
    return { ...query, name };
  }

  private async readRank(q: BoardQuery, userId: string, bucket: string): Promise<number | null> {
    await this.beforeRead();
    const { sql, names, name } = this.query('rank', q);
    const values: Record<string, unknown> = { bucket, user: userId };
    // Prepared once per connection, as the boards are.
    const rows = await this.db.query<{ my_rank: bigint | number | string }>(
      sql,
      names.map((n) => values[n]),
      name,
    );
    return rows[0] ? Number(rows[0].my_rank) : null;
  }

  private async readBoard(q: BoardQuery, bucket: string, from: BoardPosition | null): Promise<Leaderboard> {
    await this.beforeRead();
    const { sql, names, name } = this.query('board', q, from !== null);
    // One row more than the page: whether there is a next page.
    const values: Record<string, unknown> = { bucket, limit: q.limit + 1, after_v: from?.value, after_user: from?.userId };
    const read = await this.db.query<{ user_id: string; v: bigint | number; display_name: string; xp: number; badges: string[] }>(
      sql,
      names.map((n) => values[n]),
      // Prepared once per connection: planning one of these took as long as running it (some 2 ms).
      name,
    );
    const rows = read.slice(0, q.limit);
    const leaderboard: LeaderboardEntry[] = [];
    const offset = from?.place ?? 0;
    rows.forEach((r, i) => {
      // Competition ranking: a row shares its predecessor's rank when the values are equal, else its position on the
      // whole board (a later page goes on from the place and rank its cursor carries).
      const previous = i > 0 ? { v: String(rows[i - 1]!.v), rank: leaderboard[i - 1]!.rank } : from ? { v: from.value, rank: from.rank } : null;
      const rank = previous !== null && previous.v === String(r.v) ? previous.rank : offset + i + 1;
      // Badges in the order they were earned (the rows append them).
      const badges = r.badges.map((b) => ({ icon: badgeOf(b).icon, name: badgeOf(b).name }));
      leaderboard.push({
        rank,
        user: { id: r.user_id, displayName: r.display_name, level: levelOf(r.xp).current, badges },
        value: metricValue(q.metric, r.v),
      });
    });
    const start = periodStart(q.period, q.now);
    const last = rows[rows.length - 1];
    return {
      period: q.period,
      metric: q.metric,
      audience: q.audience,
      periodStart: start ? start.toISOString() : null,
      leaderboard,
      currentUserRank: null,
      nextCursor:
        read.length > q.limit && last
          ? encodeCursor({ s: boardSort(q, bucket), k: `${String(last.v)}|${leaderboard[rows.length - 1]!.rank}|${offset + rows.length}`, i: last.user_id })
          : null,
    };
  }
}
