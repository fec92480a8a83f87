/**
 * Levels and XP. XP is earned (and capped) as follows; every rule is enforced in the transaction that earns it:
 * - 10 XP per trade (buy or sell), at most 100 trading XP per UTC day;
 * - 25 XP per position settled on the winning side, at most 100 such XP per UTC day;
 * - the daily challenge's xpReward when it is claimed (once);
 * - 50 XP to the referrer when someone registers with their code, for at most 10 referrals.
 * Daily caps exist so XP measures steady participation and cannot be farmed by many tiny trades.
 */
export const XP_RULES = {
  perTrade: 10,
  tradeDailyCap: 100,
  perWin: 25,
  winDailyCap: 100,
  perReferral: 50,
  maxRewardedReferrals: 10,
} as const;

export const LEVELS: ReadonlyArray<{ level: number; title: string; xp: number }> = [
  { level: 1, title: 'Novice', xp: 0 },
  { level: 2, title: 'Apprentice', xp: 100 },
  { level: 3, title: 'Trader', xp: 300 },
  { level: 4, title: 'Analyst', xp: 600 },
  { level: 5, title: 'Strategist', xp: 1_000 },
  { level: 6, title: 'Forecaster', xp: 1_600 },
  { level: 7, title: 'Expert', xp: 2_500 },
  { level: 8, title: 'Oracle', xp: 4_000 },
  { level: 9, title: 'Master', xp: 6_000 },
  { level: 10, title: 'Legend', xp: 10_000 },
];

export interface LevelInfo {
  current: number;
  title: string;
  xp: number;
  /** 0..1 toward the next level (1 at the top level). */
  progress: number;
  /** XP still needed for the next level (0 at the top level). */
  xpToNext: number;
}

export function levelOf(xp: number): LevelInfo {
  let i = 0;
  while (i + 1 < LEVELS.length && xp >= LEVELS[i + 1]!.xp) i += 1;
  const cur = LEVELS[i]!;
  const next = LEVELS[i + 1];
  if (!next) return { current: cur.level, title: cur.title, xp, progress: 1, xpToNext: 0 };
  const progress = Math.floor(((xp - cur.xp) / (next.xp - cur.xp)) * 10_000) / 10_000;
  return { current: cur.level, title: cur.title, xp, progress, xpToNext: next.xp - xp };
}

/** The level table as one line of text, for method descriptions. */
export function levelTableText(): string {
  return LEVELS.map((l) => `${l.level} ${l.title} (${l.xp} XP)`).join(', ');
}
