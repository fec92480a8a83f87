import fc from 'fast-check';
import {
  DEFAULT_TIMEFRAME,
  HISTORY_PERIODS,
  atResolution,
  dayBucket,
  historyPoints,
  hourBucket,
  periodStart,
  ratioMicro,
  timeframeProblem,
  type Snapshot,
} from '../../../src/domain/portfolio/history-rules';
import { MICRO } from '../../../src/domain/money/micro';

const at = (iso: string) => new Date(iso);
const snap = (iso: string, cash: bigint, value = 0n): Snapshot => ({ at: at(iso), cashMicro: cash, positionsValueMicro: value });

describe('portfolio history rules', () => {
  test('when a time falls inside an hour or a day, then its bucket is that UTC hour or day start', () => {
    expect(hourBucket(at('2026-11-22T10:59:59.999Z')).toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(hourBucket(at('2026-11-22T11:00:00.000Z')).toISOString()).toBe('2026-11-22T11:00:00.000Z');
    expect(dayBucket(at('2026-11-22T23:59:59.000Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), (ms) => {
        const h = hourBucket(new Date(ms)).getTime();
        return h <= ms && ms - h < 3_600_000 && h % 3_600_000 === 0;
      }),
    );
  });

  test('when a period is asked, then it reaches back 24 hours, 7 or 30 days, or to the first snapshot for all', () => {
    const now = at('2026-11-22T10:30:00.000Z');
    expect(periodStart('1d', now)!.toISOString()).toBe('2026-11-21T10:30:00.000Z');
    expect(periodStart('1w', now)!.toISOString()).toBe('2026-11-15T10:30:00.000Z');
    expect(periodStart('1m', now)!.toISOString()).toBe('2026-10-23T10:30:00.000Z');
    expect(periodStart('all', now)).toBeNull();
  });

  test('when no timeframe is given, then short periods are hourly and long ones daily; hourly over all time is refused', () => {
    expect(DEFAULT_TIMEFRAME).toEqual({ '1d': '1h', '1w': '1h', '1m': '1d', all: '1d' });
    for (const p of HISTORY_PERIODS) expect(timeframeProblem(p, DEFAULT_TIMEFRAME[p])).toBeNull();
    expect(timeframeProblem('1m', '1h')).toBeNull();
    expect(timeframeProblem('1d', '1d')).toBeNull();
    expect(timeframeProblem('all', '1h')).toMatch(/1h/);
  });

  test('when the resolution is daily, then each UTC day shows its last hourly snapshot, oldest day first', () => {
    const hourly = [snap('2026-11-21T22:00:00Z', 3n), snap('2026-11-20T00:00:00Z', 1n), snap('2026-11-20T23:00:00Z', 2n), snap('2026-11-21T05:00:00Z', 9n)];
    expect(atResolution(hourly, '1d').map((s) => s.cashMicro)).toEqual([2n, 3n]);
    expect(atResolution(hourly, '1h').map((s) => s.cashMicro)).toEqual([1n, 2n, 9n, 3n]);
  });

  test('when points are made, then the base is the first point, profit and loss is against it, and the live point comes last', () => {
    const { baseMicro, points } = historyPoints(
      [snap('2026-11-22T08:00:00Z', 1000n * MICRO), snap('2026-11-22T09:00:00Z', 950n * MICRO, 60n * MICRO)],
      snap('2026-11-22T09:30:00Z', 950n * MICRO, 40n * MICRO),
    );
    expect(baseMicro).toBe(1000n * MICRO);
    expect(points.map((p) => [p.equityMicro, p.profitLossMicro, p.profitLossPctMicro, p.live])).toEqual([
      [1000n * MICRO, 0n, 0n, false],
      [1010n * MICRO, 10n * MICRO, 10_000n, false],
      [990n * MICRO, -10n * MICRO, -10_000n, true],
    ]);
    // With no snapshot in the period, the live point is alone and is its own base.
    const alone = historyPoints([], snap('2026-11-22T09:30:00Z', 5n, 7n));
    expect(alone.points).toHaveLength(1);
    expect(alone.points[0]).toMatchObject({ equityMicro: 12n, profitLossMicro: 0n, profitLossPctMicro: 0n, live: true });
  });

  test('when the base is 0, then there is no ratio; otherwise the ratio is exact to the millionth, rounded toward zero', () => {
    expect(ratioMicro(5n, 0n)).toBeNull();
    expect(ratioMicro(1n, 3n)).toBe(333_333n);
    expect(ratioMicro(-1n, 3n)).toBe(-333_333n);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 15n }), (pl, base) => {
        const r = ratioMicro(pl, base)!;
        // |r| ≤ |pl × 1e6 / base| < |r| + 1
        const exact = pl * MICRO;
        const abs = (x: bigint) => (x < 0n ? -x : x);
        return abs(r * base) <= abs(exact) && abs(exact) < abs(r * base) + base;
      }),
    );
  });

  test('when points are made from any snapshots, then equity = cash + positions value and profit and loss sums back to it', () => {
    const snapshotArb = fc.record({
      at: fc.date({ min: new Date('2026-01-01'), max: new Date('2027-01-01'), noInvalidDate: true }),
      cashMicro: fc.bigInt({ min: 0n, max: 10n ** 12n }),
      positionsValueMicro: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    });
    fc.assert(
      fc.property(fc.array(snapshotArb, { maxLength: 30 }), snapshotArb, (shown, live) => {
        const { baseMicro, points } = historyPoints(atResolution(shown, '1h'), live);
        return (
          points.every((p) => p.equityMicro === p.cashMicro + p.positionsValueMicro && p.equityMicro - baseMicro === p.profitLossMicro) && points.at(-1)!.live
        );
      }),
    );
  });
});
