import { scoreTiming, type TimedBuy } from '../../../src/domain/benchmark/timing-scores';

const buy = (over: Partial<TimedBuy>): TimedBuy => ({ marketId: 'm1', cost: 10, price: 0.4, after1h: null, after24h: null, atClose: null, ...over });

describe('closing-line value', () => {
  it('when a YES buy at 0.40 is at 0.55 an hour later, its CLV is +0.15', () => {
    const s = scoreTiming([buy({ price: 0.4, after1h: 0.55 })], 't');
    expect(s.buys).toBe(1);
    expect(s.h1.mean).toEqual({ value: expect.closeTo(0.15, 12) as number, n: 1, low: null, high: null });
    expect(s.h1.positiveShare.value).toBe(1);
  });

  it('when the NO token bought falls, the CLV is negative (prices are of the token bought)', () => {
    // NO bought at 0.70, NO at 0.62 a day later: 0.62 − 0.70 = −0.08
    const s = scoreTiming([buy({ price: 0.7, after24h: 0.62 })], 't');
    expect(s.h24.mean.value).toBeCloseTo(-0.08, 12);
    expect(s.h24.positiveShare.value).toBe(0);
  });

  it('weights by stake, counts positive buys and leaves out buys with no price at a horizon', () => {
    // close: m1 $10 at 0.40 → 0.50 (+0.10); m2 $30 at 0.60 → 0.55 (−0.05); m3 $20 at 0.20 → 0.30 (+0.10); m4 has no close yet
    // mean (0.10 − 0.05 + 0.10)/3 = 0.05; stake-weighted (10·0.10 − 30·0.05 + 20·0.10)/60 = 1.5/60 = 0.025; positive 2/3
    const buys = [
      buy({ marketId: 'm1', cost: 10, price: 0.4, atClose: 0.5, after1h: 0.45 }),
      buy({ marketId: 'm2', cost: 30, price: 0.6, atClose: 0.55 }),
      buy({ marketId: 'm3', cost: 20, price: 0.2, atClose: 0.3 }),
      buy({ marketId: 'm4', cost: 40, price: 0.5, after1h: 0.5 }),
    ];
    const s = scoreTiming(buys, 't');
    expect(s.buys).toBe(4);
    expect(s.close.mean.value).toBeCloseTo(0.05, 12);
    expect(s.close.stakeWeighted.value).toBeCloseTo(0.025, 12);
    expect(s.close.positiveShare.value).toBeCloseTo(2 / 3, 12);
    for (const e of [s.close.mean, s.close.stakeWeighted, s.close.positiveShare]) {
      expect(e.n).toBe(3);
      expect(e.low!).toBeLessThanOrEqual(e.value!);
      expect(e.high!).toBeGreaterThanOrEqual(e.value!);
    }
    // h1: m1 +0.05, m4 0 (an unchanged price is not positive); no buy has a 24 h price
    expect(s.h1.mean.value).toBeCloseTo(0.025, 12);
    expect(s.h1.positiveShare.value).toBeCloseTo(0.5, 12);
    expect(s.h1.mean.n).toBe(2);
    expect(s.h24).toEqual({
      mean: { value: null, n: 0, low: null, high: null },
      stakeWeighted: { value: null, n: 0, low: null, high: null },
      positiveShare: { value: null, n: 0, low: null, high: null },
    });
  });

  it('clusters by market: two buys on one market are one cluster, so there is no interval', () => {
    const s = scoreTiming([buy({ price: 0.4, after1h: 0.5 }), buy({ price: 0.5, after1h: 0.45, cost: 30 })], 't');
    // mean (0.10 − 0.05)/2 = 0.025; stake-weighted (10·0.10 − 30·0.05)/40 = −0.0125
    expect(s.h1.mean).toEqual({ value: expect.closeTo(0.025, 12) as number, n: 2, low: null, high: null });
    expect(s.h1.stakeWeighted).toEqual({ value: expect.closeTo(-0.0125, 12) as number, n: 2, low: null, high: null });
    expect(s.h1.positiveShare).toEqual({ value: 0.5, n: 2, low: null, high: null });
  });

  it('resamples whole markets: a market of many equal buys moves the interval as one unit', () => {
    // m1 has 8 buys of +0.1, m2 and m3 one of −0.1 each: three clusters; a resample of three m1 draws gives +0.1, of no m1
    // gives −0.1, so the interval reaches near both ends, wider than a buy-level bootstrap of 10 buys would.
    const buys = [
      ...Array.from({ length: 8 }, () => buy({ marketId: 'm1', price: 0.4, atClose: 0.5 })),
      buy({ marketId: 'm2', price: 0.5, atClose: 0.4 }),
      buy({ marketId: 'm3', price: 0.5, atClose: 0.4 }),
    ];
    const s = scoreTiming(buys, 't');
    expect(s.close.mean.value).toBeCloseTo(0.06, 12);
    expect(s.close.mean.low!).toBeLessThan(-0.05);
    expect(s.close.mean.high!).toBeCloseTo(0.1, 12);
  });

  it('is repeatable for the same seed label', () => {
    const buys = [buy({ marketId: 'a', atClose: 0.5 }), buy({ marketId: 'b', atClose: 0.3 }), buy({ marketId: 'c', atClose: 0.45 })];
    expect(scoreTiming(buys, 'x')).toEqual(scoreTiming(buys, 'x'));
  });

  it('when there are no buys, every figure is null with n 0', () => {
    const s = scoreTiming([], 't');
    expect(s.buys).toBe(0);
    for (const h of [s.h1, s.h24, s.close])
      for (const e of [h.mean, h.stakeWeighted, h.positiveShare]) expect(e).toEqual({ value: null, n: 0, low: null, high: null });
  });
});
