import { createHash } from 'node:crypto';
import { MICRO } from '../money/micro';
import { dayOf, previousDay } from './periods';

export type ChallengeType = 'trade_count' | 'trade_volume' | 'distinct_markets' | 'profitable_sale';

export interface ChallengeDef {
  type: ChallengeType;
  title: string;
  description: string;
  /** Progress needed, in the unit progress is stored in (micro-dollars for trade_volume, else a count). */
  targetUnits: bigint;
  xpReward: number;
  cashRewardMicro: bigint;
}

/**
 * The pool the daily challenge is drawn from. Progress counts the trader's own activity on that UTC day:
 * trades (buys and sells), dollars traded (bought plus sold), distinct markets traded (counted up to the
 * target), sales with positive realized PnL.
 */
export const CHALLENGE_POOL: readonly ChallengeDef[] = [
  { type: 'trade_count', title: 'Busy Day', description: 'Place 3 trades (buys or sells) today.', targetUnits: 3n, xpReward: 50, cashRewardMicro: 10n * MICRO },
  {
    type: 'trade_volume',
    title: 'Big Mover',
    description: 'Trade 250 dollars today (dollars bought plus dollars sold).',
    targetUnits: 250n * MICRO,
    xpReward: 75,
    cashRewardMicro: 15n * MICRO,
  },
  {
    type: 'distinct_markets',
    title: 'Diversifier',
    description: 'Trade in 3 different markets today.',
    targetUnits: 3n,
    xpReward: 60,
    cashRewardMicro: 10n * MICRO,
  },
  {
    type: 'profitable_sale',
    title: 'Take Profit',
    description: 'Sell shares at a profit today.',
    targetUnits: 1n,
    xpReward: 100,
    cashRewardMicro: 20n * MICRO,
  },
];

export interface DailyChallenge extends ChallengeDef {
  id: string;
  day: string;
}

/** The last day's challenge: every trade asks for today's, which would otherwise be hashed each time. */
let lastDrawn: Readonly<DailyChallenge> | undefined;

/** The challenge of a UTC day: the same for everyone, drawn from the pool by a hash of the date. */
export function challengeForDay(day: string): Readonly<DailyChallenge> {
  if (lastDrawn?.day === day) return lastDrawn;
  const h = createHash('sha256').update(`daily-challenge:${day}`).digest();
  const def = CHALLENGE_POOL[h.readUInt32BE(0) % CHALLENGE_POOL.length]!;
  lastDrawn = Object.freeze({ ...def, id: `daily-${day}`, day });
  return lastDrawn;
}

export function challengeAt(at: Date): Readonly<DailyChallenge> {
  return challengeForDay(dayOf(at));
}

/**
 * The challenge an id names, if it can still be claimed at `now`: today's, or yesterday's (a grace day so a
 * challenge completed just before midnight UTC is not lost). Anything else is unknown.
 */
export function claimableChallenge(id: string, now: Date): Readonly<DailyChallenge> | null {
  const m = /^daily-(\d{4}-\d{2}-\d{2})$/.exec(id);
  if (!m) return null;
  const day = m[1]!;
  const today = dayOf(now);
  if (day !== today && day !== previousDay(today)) return null;
  return challengeForDay(day);
}

/** How much one event advances a challenge of this type (distinct markets are de-duplicated in SQL). */
export function progressDelta(type: ChallengeType, e: { side: 'BUY' | 'SELL' | 'SETTLE'; cashMicro: bigint; realizedPnlMicro: bigint }): bigint {
  if (e.side === 'SETTLE') return 0n;
  switch (type) {
    case 'trade_count':
    case 'distinct_markets':
      return 1n;
    case 'trade_volume':
      return e.cashMicro;
    case 'profitable_sale':
      return e.side === 'SELL' && e.realizedPnlMicro > 0n ? 1n : 0n;
  }
}
