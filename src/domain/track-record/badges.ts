/** The badges a trader can earn; each is earned once, and earning one writes a notification. */
export const BADGES = {
  first_trade: { icon: '🎯', name: 'First Trade', description: 'Placed a first trade.' },
  trades_10: { icon: '📈', name: 'Active Trader', description: 'Placed 10 trades.' },
  trades_100: { icon: '💯', name: 'Centurion', description: 'Placed 100 trades.' },
  first_profit: { icon: '💰', name: 'In the Green', description: 'Sold shares at a profit for the first time.' },
  first_win: { icon: '🏆', name: 'Called It', description: 'Held the winning side of a market when it resolved.' },
  well_calibrated: {
    icon: '⚖️',
    name: 'Well Calibrated',
    description: 'At least 20 settled positions, with an expected calibration error of at most 10 points (entry prices matched how often those sides won).',
  },
  streak_3: { icon: '🔥', name: 'On a Roll', description: 'Traded on 3 consecutive UTC days.' },
  streak_7: { icon: '⚡', name: 'Week Streak', description: 'Traded on 7 consecutive UTC days.' },
  recruiter: { icon: '🤝', name: 'Recruiter', description: 'Someone registered with your referral code.' },
} as const;

export type BadgeId = keyof typeof BADGES;

export const TRADE_COUNT_BADGES: ReadonlyArray<[number, BadgeId]> = [
  [1, 'first_trade'],
  [10, 'trades_10'],
  [100, 'trades_100'],
];

export const STREAK_BADGES: ReadonlyArray<[number, BadgeId]> = [
  [3, 'streak_3'],
  [7, 'streak_7'],
];

/** Well-calibrated: enough settled positions, and expected calibration error at most this (probability points). */
export const WELL_CALIBRATED = { minSettled: 20, maxError: 0.1 } as const;

export function badgeOf(id: string): { icon: string; name: string; description: string } {
  return BADGES[id as BadgeId] ?? { icon: '🏅', name: id, description: id };
}
