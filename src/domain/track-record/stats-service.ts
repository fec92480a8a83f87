import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { MICRO, fromMicro } from '../money/micro';
import { badgeOf } from './badges';
import { levelOf, type LevelInfo } from './levels';
import { monthStart, weekStart } from './periods';
import { COMMUNITY_MARKET_TRADE } from './record-rule';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A ratio as a percent with 4 decimals (floored, like the leaderboard's accuracy); 0 when there is nothing to measure. */
function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Number((BigInt(part) * 1_000_000n) / BigInt(whole)) / 10_000;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

interface UserRow {
  id: string;
  display_name: string;
  is_agent: boolean;
  agent_description: string | null;
  created_at: Date;
  last_active_at: Date;
  xp: number;
  balance_micro: bigint;
}

/** The trader's two aggregate rows, read together; a period's pnl counts only while its bucket is the current one. */
interface StatsRow {
  a_trades: number | null;
  a_volume: bigint | null;
  a_pnl: bigint | null;
  a_closes: number | null;
  a_wins: number | null;
  a_settled: number | null;
  a_won: number | null;
  w_pnl: bigint | null;
  m_pnl: bigint | null;
}

export interface TraderStats {
  user: { id: string; displayName: string; isAgent: boolean; memberSince: string; lastActive: string };
  level: LevelInfo;
  stats: {
    balance: number;
    totalPnl: number;
    unrealizedPnl: number;
    totalTrades: number;
    totalVolume: number;
    winRate: number;
    accuracy: number;
    settledPositions: number;
    weeklyPnl: number;
    monthlyPnl: number;
  };
  badges: Array<{ icon: string; name: string; description: string; earnedAt: string }>;
}

/** One calibration bin, in the one bin shape (src/registry/vocabulary.ts BIN_FIELDS); lower, upper, count: deprecated duplicates. */
export interface CalibrationBucket {
  binLow: number;
  binHigh: number;
  n: number;
  meanForecast: number | null;
  observedFrequency: number | null;
  lower: number;
  upper: number;
  count: number;
}

export interface Reputation {
  user: TraderStats['user'] & { agentDescription: string | null; level: number; title: string };
  stats: TraderStats['stats'];
  badges: TraderStats['badges'];
  /** Scored at the price paid, named so (issue 49 item 3): the service's one Brier is the stated forecasts' (benchmark). */
  forecasting: {
    basis: 'entry price';
    settledPositions: number;
    entryPriceBrier: number | null;
    entryPriceSkill: number | null;
    entryPriceCalibrationError: number | null;
    calibration: CalibrationBucket[];
  };
  recentSettled: Array<{
    positionId: string;
    marketId: string;
    question: string | null;
    outcome: 'YES' | 'NO';
    entryPrice: number;
    result: 'won' | 'lost' | 'void';
    payout: number;
    realizedPnl: number;
    settledAt: string;
  }>;
}

/** A trader's public record, read from the aggregates (one row per period) plus the account, figures and cash rows. */
export class StatsService {
  constructor(private readonly db: Queryable) {}

  async traderStats(userId: string, now: Date): Promise<TraderStats> {
    return this.statsOf(await this.user(userId), now);
  }

  private async statsOf(user: UserRow, now: Date): Promise<TraderStats> {
    const userId = user.id;
    const [rows, badges, open] = await Promise.all([
      this.db.query<StatsRow>(
        `SELECT a.a_trades, a.a_volume, r.a_pnl, r.a_closes, r.a_wins, r.a_settled, r.a_won,
                CASE WHEN r.w_bucket = $2::date THEN r.w_pnl END AS w_pnl, CASE WHEN r.m_bucket = $3::date THEN r.m_pnl END AS m_pnl
         FROM (SELECT $1::uuid AS user_id) k LEFT JOIN track_figures a ON a.user_id = k.user_id LEFT JOIN trader_results r ON r.user_id = k.user_id`,
        [userId, weekStart(now), monthStart(now)],
      ),
      this.db.query<{ badge: string; earned_at: Date }>('SELECT badge, earned_at FROM user_badges WHERE user_id = $1 ORDER BY earned_at, badge', [userId]),
      this.db.query<{ upnl: bigint | null }>(
        // Open positions marked at the mirrored price, or at a community market maker's price.
        `SELECT sum(p.quantity_micro * coalesce(t.price_micro, o.price_micro) / ${MICRO} - p.cost_micro)::bigint AS upnl
         FROM positions p LEFT JOIN market_tokens t ON t.token_id = p.token_id LEFT JOIN community_outcomes o ON o.token_id = p.token_id
         WHERE p.user_id = $1 AND NOT p.is_closed AND coalesce(t.price_micro, o.price_micro) IS NOT NULL`,
        [userId],
      ),
    ]);
    const r = rows[0];
    return {
      user: {
        id: user.id,
        displayName: user.display_name,
        isAgent: user.is_agent,
        memberSince: new Date(user.created_at).toISOString(),
        lastActive: new Date(user.last_active_at).toISOString(),
      },
      level: levelOf(user.xp),
      stats: {
        balance: fromMicro(user.balance_micro),
        totalPnl: fromMicro(r?.a_pnl ?? 0n),
        unrealizedPnl: fromMicro(open[0]?.upnl ?? 0n),
        totalTrades: r?.a_trades ?? 0,
        totalVolume: fromMicro(r?.a_volume ?? 0n),
        winRate: percent(r?.a_wins ?? 0, r?.a_closes ?? 0),
        accuracy: percent(r?.a_won ?? 0, r?.a_settled ?? 0),
        settledPositions: r?.a_settled ?? 0,
        weeklyPnl: fromMicro(r?.w_pnl ?? 0n),
        monthlyPnl: fromMicro(r?.m_pnl ?? 0n),
      },
      badges: badges.map((b) => ({ ...badgeOf(b.badge), earnedAt: new Date(b.earned_at).toISOString() })),
    };
  }

  async reputation(userId: string, now: Date): Promise<Reputation> {
    const user = await this.user(userId);
    const base = await this.statsOf(user, now);
    const [cal, recent] = await Promise.all([
      this.db.query<{ bucket: number; n: number; sum_forecast_micro: bigint; wins: number; sum_sq_error: bigint }>(
        'SELECT bucket, n, sum_forecast_micro, wins, sum_sq_error FROM user_calibration WHERE user_id = $1',
        [userId],
      ),
      this.db.query<{
        position_id: string;
        market_id: string;
        question: string | null;
        outcome: 'YES' | 'NO';
        quantity_micro: bigint;
        price_micro: bigint;
        cash_micro: bigint;
        realized_pnl_micro: bigint;
        created_at: Date;
      }>(
        `SELECT t.position_id, t.market_id, coalesce(m.question, c.question) AS question, p.outcome, t.quantity_micro, t.price_micro, t.cash_micro,
                t.realized_pnl_micro, t.created_at
         FROM trades t JOIN positions p ON p.id = t.position_id LEFT JOIN markets m ON m.id = t.market_id
           LEFT JOIN community_markets c ON m.id IS NULL AND c.id::text = t.market_id
         WHERE t.user_id = $1 AND t.side = 'SETTLE' AND NOT ${COMMUNITY_MARKET_TRADE('t')} ORDER BY t.created_at DESC, t.id LIMIT 10`,
        [userId],
      ),
    ]);
    let n = 0;
    let sumForecast = 0n;
    let wins = 0;
    let sumSq = 0n;
    let gap = 0n;
    const calibration: CalibrationBucket[] = Array.from({ length: 10 }, (_, i) => ({
      binLow: i / 10,
      binHigh: (i + 1) / 10,
      n: 0,
      meanForecast: null,
      observedFrequency: null,
      lower: i / 10,
      upper: (i + 1) / 10,
      count: 0,
    }));
    for (const b of cal) {
      n += b.n;
      sumForecast += b.sum_forecast_micro;
      wins += b.wins;
      sumSq += b.sum_sq_error;
      const g = BigInt(b.wins) * MICRO - b.sum_forecast_micro;
      gap += g < 0n ? -g : g;
      calibration[b.bucket] = {
        ...calibration[b.bucket]!,
        n: b.n,
        count: b.n,
        meanForecast: round6(Number(b.sum_forecast_micro) / 1e6 / b.n),
        observedFrequency: round6(b.wins / b.n),
      };
    }
    return {
      user: { ...base.user, agentDescription: user.agent_description, level: base.level.current, title: base.level.title },
      stats: base.stats,
      badges: base.badges,
      forecasting: {
        basis: 'entry price',
        settledPositions: n,
        entryPriceBrier: n ? round6(Number(sumSq) / 1e12 / n) : null,
        entryPriceSkill: n ? round6((wins - Number(sumForecast) / 1e6) / n) : null,
        entryPriceCalibrationError: n ? round6(Number(gap) / 1e6 / n) : null,
        calibration,
      },
      recentSettled: recent.map((t) => {
        const cost = t.cash_micro - t.realized_pnl_micro;
        return {
          positionId: t.position_id,
          marketId: t.market_id,
          question: t.question,
          outcome: t.outcome,
          entryPrice: t.quantity_micro > 0n ? fromMicro((cost * MICRO) / t.quantity_micro) : 0,
          result: t.price_micro === MICRO ? 'won' : t.price_micro === 0n ? 'lost' : 'void',
          payout: fromMicro(t.cash_micro),
          realizedPnl: fromMicro(t.realized_pnl_micro),
          settledAt: new Date(t.created_at).toISOString(),
        };
      }),
    };
  }

  /** The trader's level from their XP (the same XP the public record shows). */
  async level(userId: string): Promise<LevelInfo> {
    return levelOf((await this.user(userId)).xp);
  }

  private async user(userId: string): Promise<UserRow> {
    const rows = UUID.test(userId)
      ? await this.db.query<UserRow>(
          // The XP total is on the trader's figures row, the cash on the ledger's cash row.
          `SELECT u.id, u.display_name, u.is_agent, u.agent_description, u.created_at, u.last_active_at, f.xp, c.balance_micro
           FROM users u JOIN track_figures f ON f.user_id = u.id JOIN cash_balances c ON c.user_id = u.id WHERE u.id = $1 AND u.deleted_at IS NULL`,
          [userId],
        )
      : [];
    if (!rows[0]) throw new AppError('NOT_FOUND', `Trader ${userId} not found.`, { hint: 'Use a user id from get_leaderboard (leaderboard[].user.id).' });
    return rows[0];
  }
}
