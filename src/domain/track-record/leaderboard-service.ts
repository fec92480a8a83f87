import type { Queryable } from '../../db/database';
import { fromMicro } from '../money/micro';
import { badgeOf } from './badges';
import { levelOf } from './levels';
import { bucketOf, periodStart, type Period } from './periods';
import { compileNamed } from './sql-params';
import { ConcurrencyGate } from '../../db/concurrency-gate';
import { CommitWatermark } from '../../db/commit-watermark';

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
}

type Query = { sql: string; names: string[] };

/**
 * The board SQL of one (metric, period, audience, caller or not): the top `limit` rows are an index walk on
 * (bucket, is_agent, value DESC, user_id) — `everyone` merges the people's and the agents' walks — and each
 * row's card (name, XP, badges) comes from the trader's activity row, never from users or user_badges. The caller's rank is 1 + the rows with a strictly greater value
 * (index range counts), the same competition rank the board shows.
 */
function boardSql(metric: Metric, period: Period, audience: Audience, withCaller: boolean): Query {
  const { table } = SOURCE[metric];
  const p = PREFIX[period];
  const col = `${p}_${SOURCE[metric].col}`;
  const where = (alias: string, agent: string) =>
    [
      period === 'alltime' ? null : `${alias}.${p}_bucket = @bucket::date`,
      `${alias}.is_agent = ${agent}`,
      metric === 'accuracy' ? `${alias}.${col} IS NOT NULL` : null,
    ]
      .filter(Boolean)
      .join(' AND ');
  const halves = audience === 'everyone' ? ['false', 'true'] : [audience === 'bots' ? 'true' : 'false'];
  // The card (name, XP, badges) is on the activity row: read in the walk itself, or by primary key for results boards.
  const card = table === 'trader_activity' ? 'h.display_name, h.xp, h.badges' : 'c.display_name, c.xp, c.badges';
  const join = table === 'trader_activity' ? '' : ' JOIN trader_activity c ON c.user_id = h.user_id';
  const walks = halves.map(
    (a) => `(SELECT h.user_id, h.${col} AS v, ${card} FROM ${table} h${join} WHERE ${where('h', a)} ORDER BY h.${col} DESC, h.user_id LIMIT @limit)`,
  );
  const callerRank = withCaller
    ? `, (SELECT 1 + ${halves.map((a) => `(SELECT count(*) FROM ${table} o WHERE ${where('o', a)} AND o.${col} > me.${col})`).join(' + ')}
          FROM ${table} me WHERE me.user_id = @user AND ${where('me', audience === 'everyone' ? 'me.is_agent' : halves[0]!)}) AS my_rank`
    : '';
  const rows = halves.length === 1 ? walks[0]! : `SELECT * FROM (${walks.join(' UNION ALL ')}) w ORDER BY v DESC, user_id LIMIT @limit`;
  return compileNamed(withCaller ? `SELECT t.*${callerRank} FROM (${rows}) t ORDER BY t.v DESC, t.user_id` : rows);
}

/** How long a served board is fresh when nothing in this process has written since (other processes' writes show within twice it). */
const BOARD_CACHE_MS = 1000;
// A board of 100 rows is some 30 kB: a thousand boards bound the cache near 30 MB.
const BOARD_CACHE_SIZE = 1000;

/** A served board, this process's write version and the database's commit watermark before it was read, and until when it is fresh. */
type CachedBoard = { version: number; mark: string; until: number; board: Leaderboard };

type BoardQuery = { period: Period; metric: Metric; audience: Audience; limit: number; userId?: string; now: Date };

/**
 * Serves boards from the aggregate rows, never from trades. A trader is on a period's trades and volume
 * boards once they bought or sold in it, on its pnl board once they sold or had a position settled in it,
 * and on its accuracy board with at least 5 settled positions in it. Ranking is standard competition
 * ranking: equal values share a rank and the next rank skips (1, 2, 2, 4); equal values are listed by user id.
 */
export class LeaderboardService {
  private readonly queries = new Map<string, Query>();
  /**
   * Boards already served, by request, with the write version they were read at. A committed write in this
   * process (invalidate) bumps the version, so a board is never staler than this process's last write.
   * Writes by other processes sharing the database show within twice cacheMs: a board past its time is still
   * served, for at most another cacheMs, while the database's commit watermark is checked and, if it moved,
   * one read replaces it, so no request waits on either.
   */
  private readonly cache = new Map<string, CachedBoard>();
  /** Reads under way, by request and version: requests that miss together share one read. */
  private readonly reading = new Map<string, Promise<Leaderboard>>();
  /**
   * Boards being renewed in the background, one at a time: boards served together age together, and
   * re-reading them all in the same instant would put as many busy backends beside the service on a
   * machine of few cores, while nobody waits for these reads.
   */
  private readonly replacing = new Set<string>();
  private readonly replaceGate = new ConcurrencyGate(1);
  private version = 0;
  private readonly watermark: CommitWatermark;

  constructor(
    private readonly db: Queryable,
    private readonly cacheMs = BOARD_CACHE_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.watermark = new CommitWatermark(db, clock);
  }

  /** Something a board shows has changed and committed: boards are read afresh. */
  invalidate(): void {
    this.version += 1;
  }

  async get(q: BoardQuery): Promise<Leaderboard> {
    const bucket = bucketOf(q.period, q.now);
    const cacheKey = `${q.metric}/${q.period}/${q.audience}/${q.limit}/${q.userId ?? ''}/${bucket}`;
    const hit = this.cache.get(cacheKey);
    if (hit && hit.version === this.version) {
      const now = this.clock();
      if (hit.until > now) return hit.board;
      if (hit.until + this.cacheMs > now) {
        // Past its time but recent: served while one check (and, if anything committed, one read) renews it;
        // a failed check or read leaves it to age out.
        if (!this.replacing.has(cacheKey)) {
          this.replacing.add(cacheKey);
          this.replaceGate
            .run(() => this.renew(q, bucket, cacheKey, hit))
            .catch(() => {})
            .finally(() => this.replacing.delete(cacheKey));
        }
        return hit.board;
      }
      return this.renew(q, bucket, cacheKey, hit);
    }
    return this.load(q, bucket, cacheKey);
  }

  /**
   * A cached board past its time is read again only when some transaction has committed since it was read
   * (the watermark moved); else it is good for another cacheMs from the moment of the check. Checking costs
   * one tiny statement shared by every board checked at once, where a board read walks an index.
   */
  private async renew(q: BoardQuery, bucket: string, cacheKey: string, hit: CachedBoard): Promise<Leaderboard> {
    const reading = await this.watermark.read();
    if (reading.mark === hit.mark && hit.version === this.version && this.cache.get(cacheKey) === hit) {
      hit.until = Math.max(hit.until, reading.at + this.cacheMs);
      return hit.board;
    }
    return this.load(q, bucket, cacheKey);
  }

  /** One read per request and version at a time; its board is cached unless a write came while it was read. */
  private load(q: BoardQuery, bucket: string, cacheKey: string): Promise<Leaderboard> {
    // The version before reading: a write that commits while this board is read makes the entry stale at once.
    const version = this.version;
    const key = `${version}|${cacheKey}`;
    let pending = this.reading.get(key);
    if (!pending) {
      pending = (async () => {
        // The watermark is read before the board, so whatever commits after the board's snapshot moves it.
        const { mark } = await this.watermark.read();
        // Frozen: the same board answers many requests, so transports may serialise it once (json-body.ts).
        const board = Object.freeze(await this.read(q, bucket));
        if (this.cache.size >= BOARD_CACHE_SIZE) this.cache.clear();
        const cached = this.cache.get(cacheKey);
        // A read that began before a newer one was cached does not replace it.
        if (this.cacheMs > 0 && (!cached || cached.version <= version)) {
          this.cache.set(cacheKey, { version, mark, until: this.clock() + this.cacheMs, board });
        }
        return board;
      })().finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    return pending;
  }

  private async read(q: BoardQuery, bucket: string): Promise<Leaderboard> {
    const key = `${q.metric}/${q.period}/${q.audience}/${q.userId ? 1 : 0}`;
    let query = this.queries.get(key);
    if (!query) this.queries.set(key, (query = boardSql(q.metric, q.period, q.audience, q.userId !== undefined)));
    const values: Record<string, unknown> = { bucket, limit: q.limit, user: q.userId };
    const rows = await this.db.query<{ user_id: string; v: bigint | number; display_name: string; xp: number; badges: string[]; my_rank?: bigint | null }>(
      query.sql,
      query.names.map((n) => values[n]),
      // Prepared once per connection: planning one of these took as long as running it (some 2 ms).
      `board:${key}`,
    );
    const leaderboard: LeaderboardEntry[] = [];
    rows.forEach((r, i) => {
      // Competition ranking: a row shares its predecessor's rank when the values are equal, else its position.
      const rank = i > 0 && rows[i - 1]!.v === r.v ? leaderboard[i - 1]!.rank : i + 1;
      // Badges in the order they were earned (the rows append them).
      const badges = r.badges.map((b) => ({ icon: badgeOf(b).icon, name: badgeOf(b).name }));
      leaderboard.push({
        rank,
        user: { id: r.user_id, displayName: r.display_name, level: levelOf(r.xp).current, badges },
        value: metricValue(q.metric, r.v),
        ...(q.userId ? { isCurrentUser: r.user_id === q.userId } : {}),
      });
    });
    const start = periodStart(q.period, q.now);
    return {
      period: q.period,
      metric: q.metric,
      audience: q.audience,
      periodStart: start ? start.toISOString() : null,
      leaderboard,
      currentUserRank: rows[0]?.my_rank != null ? Number(rows[0].my_rank) : null,
    };
  }
}
