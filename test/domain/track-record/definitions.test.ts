import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { bucketOf, calendarOf, dayOf, monthStart, periodStart, weekStart } from '../../../src/domain/track-record/periods';
import { LEVELS, levelOf } from '../../../src/domain/track-record/levels';
import { CHALLENGE_POOL, challengeForDay, claimableChallenge, progressDelta } from '../../../src/domain/track-record/challenges';
import { calibrationBucket } from '../../../src/domain/track-record/track-sql';
import { metricValue } from '../../../src/domain/track-record/leaderboard-service';

describe('track-record definitions', () => {
  test.each([
    ['2030-03-31T23:59:59.999Z', '2030-03-25', '2030-03-01'], // Sunday: still the week that began Monday the 25th
    ['2030-04-01T00:00:00.000Z', '2030-04-01', '2030-04-01'], // Monday 00:00 UTC starts a week (and here a month)
    ['2030-05-01T10:00:00.000Z', '2030-04-29', '2030-05-01'], // a week can span two months
    ['2032-02-29T12:00:00.000Z', '2032-02-23', '2032-02-01'],
  ])('when the time is %s, then the week began %s and the month %s (UTC)', (iso, week, month) => {
    const at = new Date(iso);
    expect(weekStart(at)).toBe(week);
    expect(monthStart(at)).toBe(month);
    expect(bucketOf('weekly', at)).toBe(week);
    expect(bucketOf('alltime', at)).toBe('1970-01-01');
    expect(periodStart('monthly', at)!.toISOString()).toBe(`${month}T00:00:00.000Z`);
    expect(periodStart('alltime', at)).toBeNull();
  });

  test('levels: thresholds, progress toward the next level and the top level', () => {
    expect(levelOf(0)).toEqual({ current: 1, title: 'Novice', xp: 0, progress: 0, xpToNext: 100 });
    expect(levelOf(99)).toEqual({ current: 1, title: 'Novice', xp: 99, progress: 0.99, xpToNext: 1 });
    expect(levelOf(100)).toEqual({ current: 2, title: 'Apprentice', xp: 100, progress: 0, xpToNext: 200 });
    expect(levelOf(9_999).current).toBe(9);
    expect(levelOf(10_000)).toEqual({ current: 10, title: 'Legend', xp: 10_000, progress: 1, xpToNext: 0 });
    expect(levelOf(50_000)).toMatchObject({ current: 10, progress: 1, xpToNext: 0 });
    for (let i = 1; i < LEVELS.length; i += 1) expect(LEVELS[i]!.xp).toBeGreaterThan(LEVELS[i - 1]!.xp);
  });

  test('the daily challenge is a pure function of the UTC date, and every challenge of the pool comes up', () => {
    expect(challengeForDay('2030-08-01')).toEqual(challengeForDay('2030-08-01'));
    expect(challengeForDay('2030-08-01').id).toBe('daily-2030-08-01');
    const seen = new Set<string>();
    for (let d = 0; d < 60; d += 1) seen.add(challengeForDay(dayOf(new Date(Date.UTC(2030, 0, 1) + d * 86_400_000))).type);
    expect([...seen].sort()).toEqual(CHALLENGE_POOL.map((c) => c.type).sort());
  });

  test('the last day kept for trades (calendar and challenge) never answers for another instant', () => {
    // Instants around day boundaries, in any order: a kept day must be told from its neighbours to the millisecond.
    const DAY = 86_400_000;
    const instant = fc.tuple(fc.integer({ min: 20_000, max: 24_000 }), fc.constantFrom(0, 1, DAY / 2, DAY - 1)).map(([d, ms]) => new Date(d * DAY + ms));
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (ats) => {
        for (const at of ats) {
          expect(calendarOf(at)).toEqual({ day: dayOf(at), week: weekStart(at), month: monthStart(at) });
          const day = dayOf(at);
          const drawn = CHALLENGE_POOL[createHash('sha256').update(`daily-challenge:${day}`).digest().readUInt32BE(0) % CHALLENGE_POOL.length]!;
          expect(challengeForDay(day)).toEqual({ ...drawn, id: `daily-${day}`, day });
        }
      }),
    );
  });

  test('a challenge id is claimable on its UTC day and the next one only', () => {
    const now = new Date('2030-08-02T00:30:00Z');
    expect(claimableChallenge('daily-2030-08-02', now)?.day).toBe('2030-08-02');
    expect(claimableChallenge('daily-2030-08-01', now)?.day).toBe('2030-08-01');
    for (const id of ['daily-2030-07-31', 'daily-2030-08-03', 'daily-2030-8-2', 'weekly-2030-08-02']) expect(claimableChallenge(id, now)).toBeNull();
  });

  test('challenge progress per event: buys and sells count, settlements never; volume in micro-dollars; only profitable sales for profitable_sale', () => {
    const buy = { side: 'BUY' as const, cashMicro: 5_000_000n, realizedPnlMicro: 0n };
    const win = { side: 'SELL' as const, cashMicro: 2_000_000n, realizedPnlMicro: 1n };
    const loss = { side: 'SELL' as const, cashMicro: 2_000_000n, realizedPnlMicro: -1n };
    const settle = { side: 'SETTLE' as const, cashMicro: 9_000_000n, realizedPnlMicro: 5n };
    expect([buy, win, settle].map((e) => progressDelta('trade_count', e))).toEqual([1n, 1n, 0n]);
    expect([buy, win, settle].map((e) => progressDelta('trade_volume', e))).toEqual([5_000_000n, 2_000_000n, 0n]);
    expect([buy, win, loss, settle].map((e) => progressDelta('profitable_sale', e))).toEqual([0n, 1n, 0n, 0n]);
  });

  test('calibration buckets are deciles of the entry price, the last one closed at 1', () => {
    expect([0n, 99_999n, 100_000n, 500_000n, 899_999n, 900_000n, 1_000_000n].map(calibrationBucket)).toEqual([0, 0, 1, 5, 8, 9, 9]);
  });

  test('metric values on the wire: dollars, counts, and accuracy in percent from parts per million', () => {
    expect(metricValue('pnl', -1_500_000n)).toBe(-1.5);
    expect(metricValue('volume', 250_000_001n)).toBe(250.000001);
    expect(metricValue('trades', 7)).toBe(7);
    expect(metricValue('accuracy', 666_666)).toBe(66.6666);
  });
});
