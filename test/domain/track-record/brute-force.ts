import type { Queryable } from '../../../src/db/database';
import { bucketOf, type Period } from '../../../src/domain/track-record/periods';
import { metricValue, type Audience, type Metric } from '../../../src/domain/track-record/leaderboard-service';
import { XP_RULES } from '../../../src/domain/track-record/levels';

/** One trade journal row, as the brute-force recomputation reads it. */
export interface JournalRow {
  user_id: string;
  is_agent: boolean;
  side: 'BUY' | 'SELL' | 'SETTLE';
  cash_micro: bigint;
  realized_pnl_micro: bigint;
  price_micro: bigint;
  created_at: Date;
}

export async function readJournal(db: Queryable): Promise<JournalRow[]> {
  return db.query<JournalRow>(
    'SELECT t.user_id, u.is_agent, t.side, t.cash_micro, t.realized_pnl_micro, t.price_micro, t.created_at FROM trades t JOIN users u ON u.id = t.user_id',
  );
}

/**
 * The leaderboard recomputed from nothing but the trade journal, written independently of the SQL it
 * checks: per trader in the period's current bucket, pnl = Σ realized PnL of sells and settlements (on the
 * board once there is one), volume = Σ |cash| of buys and sells and trades = their number (on the board
 * once there is one), accuracy = won / settled (settlements paying 1 or 0 per share) in ppm, floored,
 * only from 5 settled. Competition ranking, ties by user id.
 */
export function bruteForceBoard(
  journal: JournalRow[],
  q: { period: Period; metric: Metric; audience: Audience; now: Date },
): Array<{ rank: number; id: string; value: number }> {
  const bucket = bucketOf(q.period, q.now);
  const acc = new Map<string, { pnl: bigint; realized: number; volume: bigint; trades: number; settled: number; won: number }>();
  for (const t of journal) {
    if (q.audience === 'all' && t.is_agent) continue;
    if (q.audience === 'bots' && !t.is_agent) continue;
    if (bucketOf(q.period, new Date(t.created_at)) !== bucket) continue;
    const a = acc.get(t.user_id) ?? { pnl: 0n, realized: 0, volume: 0n, trades: 0, settled: 0, won: 0 };
    if (t.side === 'BUY' || t.side === 'SELL') {
      a.trades += 1;
      a.volume += t.cash_micro < 0n ? -t.cash_micro : t.cash_micro;
    }
    if (t.side !== 'BUY') {
      a.pnl += t.realized_pnl_micro;
      a.realized += 1;
    }
    if (t.side === 'SETTLE' && (t.price_micro === 0n || t.price_micro === 1_000_000n)) {
      a.settled += 1;
      if (t.price_micro === 1_000_000n) a.won += 1;
    }
    acc.set(t.user_id, a);
  }
  const rows: Array<{ id: string; v: bigint }> = [];
  for (const [id, a] of acc) {
    if (q.metric === 'accuracy') {
      if (a.settled >= 5) rows.push({ id, v: (BigInt(a.won) * 1_000_000n) / BigInt(a.settled) });
    } else if (q.metric === 'pnl') {
      if (a.realized > 0) rows.push({ id, v: a.pnl });
    } else if (a.trades > 0) rows.push({ id, v: q.metric === 'volume' ? a.volume : BigInt(a.trades) });
  }
  rows.sort((x, y) => (x.v === y.v ? (x.id < y.id ? -1 : 1) : x.v > y.v ? -1 : 1));
  return rows.map((r) => ({ rank: 1 + rows.filter((o) => o.v > r.v).length, id: r.id, value: metricValue(q.metric, r.v) }));
}

/**
 * Each trader's XP from the journal alone (accounts without referrals or claims): per UTC day, perTrade for
 * each buy and sale up to the day's trade cap, and perWin for each winning settlement up to the win cap.
 */
export function bruteForceXp(journal: JournalRow[]): Map<string, number> {
  const days = new Map<string, { trades: number; wins: number }>();
  for (const t of journal) {
    const key = `${t.user_id} ${new Date(t.created_at).toISOString().slice(0, 10)}`;
    const d = days.get(key) ?? { trades: 0, wins: 0 };
    if (t.side !== 'SETTLE') d.trades += 1;
    else if (t.price_micro === 1_000_000n) d.wins += 1;
    days.set(key, d);
  }
  const xp = new Map<string, number>();
  for (const [key, d] of days) {
    const user = key.split(' ')[0]!;
    const earned = Math.min(XP_RULES.tradeDailyCap, d.trades * XP_RULES.perTrade) + Math.min(XP_RULES.winDailyCap, d.wins * XP_RULES.perWin);
    xp.set(user, (xp.get(user) ?? 0) + earned);
  }
  return xp;
}
