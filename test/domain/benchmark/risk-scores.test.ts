import { normalCdf } from '../../../src/domain/benchmark/statistics';
import fc from 'fast-check';
import {
  currentDrawdown,
  dailyReturns,
  kurtosis,
  maxDrawdown,
  probabilisticSharpe,
  scoreRisk,
  sharpe,
  skewness,
  sortino,
  timeWeightedReturn,
  volatility,
  type EquityDay,
  type RiskInput,
} from '../../../src/domain/benchmark/risk-scores';

const days = (rows: [number, number][]): EquityDay[] => rows.map(([equity, flow], i) => ({ day: `2026-11-${String(i + 1).padStart(2, '0')}`, equity, flow }));

const input = (over: Partial<RiskInput>): RiskInput => ({ startEquity: 1000, days: [], positions: [], kellyBuys: [], ...over });

describe('risk scores on a hand-computed 4-day series', () => {
  // start 1000
  // day 1: 1100 with a flow of 100 → (1100 − 100)/1000 − 1 = 0      (a bonus is not a return)
  // day 2: 1320                    → 1320/1100 − 1 = 0.2
  // day 3:  990                    →  990/1320 − 1 = −0.25
  // day 4: 1100                    → 1100/990 − 1  = 1/9
  // index 1 → 1 → 1.2 → 0.9 → 1.0; TWR = 1.2 · 0.75 · 10/9 − 1 = 0
  // max drawdown 1 − 0.9/1.2 = 0.25; current 1 − 1.0/1.2 = 1/6
  // mean = (0 + 0.2 − 0.25 + 1/9)/4 = 11/720 = 0.0152777…
  // Σ(r − mean)² = 4921/43200 = 0.113912037…, sample var = /3 = 0.0379706790…, sd = 0.1948606656366…
  // Sharpe = 0.0152777… / 0.1948606656… = 0.0784036004797
  // Sortino: downside mean square = (0.25²)/4 = 0.015625, root 0.125; 0.0152777…/0.125 = 0.1222…
  const s = scoreRisk(
    input({
      days: days([
        [1100, 100],
        [1320, 0],
        [990, 0],
        [1100, 0],
      ]),
      positions: [200, 350],
    }),
    'acct|2026-11',
  );

  it('does not count a flow as return', () => {
    expect(dailyReturns(1000, days([[1100, 100]]))).toEqual([0]);
    expect(dailyReturns(1000, days([[1100, 0]]))[0]).toBeCloseTo(0.1, 15);
  });
  it('gives TWR, drawdowns, volatility, Sharpe and Sortino', () => {
    expect(s.days).toBe(4);
    expect(s.timeWeightedReturn.value).toBeCloseTo(0, 12);
    expect(s.maxDrawdown.value).toBeCloseTo(0.25, 12);
    expect(s.currentDrawdown.value).toBeCloseTo(1 / 6, 12);
    expect(s.volatility.value).toBeCloseTo(0.1948606656366, 12);
    expect(s.sharpe.value).toBeCloseTo(0.0784036004797, 12);
    expect(s.sharpeAnnualised.value).toBeCloseTo(0.0784036004797 * Math.sqrt(365), 10);
    expect(s.sortino.value).toBeCloseTo(0.55 / 4.5, 12);
    for (const e of [s.timeWeightedReturn, s.maxDrawdown, s.currentDrawdown, s.volatility, s.sharpe, s.sortino]) expect(e.n).toBe(4);
  });
  it('gives intervals around the return figures, the annualised Sharpe scaled from the daily one', () => {
    for (const e of [s.timeWeightedReturn, s.maxDrawdown, s.volatility, s.sharpe]) {
      expect(e.low).not.toBeNull();
      expect(e.low!).toBeLessThanOrEqual(e.high!);
    }
    expect(s.sharpeAnnualised.low).toBeCloseTo(s.sharpe.low! * Math.sqrt(365), 10);
    expect(s.sharpeAnnualised.high).toBeCloseTo(s.sharpe.high! * Math.sqrt(365), 10);
    expect(
      scoreRisk(
        input({
          days: days([
            [1100, 100],
            [1320, 0],
            [990, 0],
            [1100, 0],
          ]),
        }),
        'acct|2026-11',
      ),
    ).toEqual({
      ...s,
      exposure: 0,
      concentration: null,
    });
  });
  it('gives exposure and concentration against the last equity', () => {
    // (200 + 350)/1100 = 0.5; 350/1100
    expect(s.exposure).toBeCloseTo(0.5, 12);
    expect(s.concentration).toBeCloseTo(350 / 1100, 12);
  });
  it('gives the same intervals for the same seed label', () => {
    const again = scoreRisk(
      input({
        days: days([
          [1100, 100],
          [1320, 0],
          [990, 0],
          [1100, 0],
        ]),
        positions: [200, 350],
      }),
      'acct|2026-11',
    );
    expect(again).toEqual(s);
  });
  it('gives PSR with n and no interval: it is itself a probability', () => {
    expect(s.probabilisticSharpe.n).toBe(4);
    expect(s.probabilisticSharpe.low).toBeNull();
    expect(s.probabilisticSharpe.high).toBeNull();
  });
});

describe('drawdowns of a known path', () => {
  it('index 1, 1.2, 0.9, 1.0 → max 0.25, current 1 − 1.0/1.2', () => {
    const r = [0.2, 0.9 / 1.2 - 1, 1.0 / 0.9 - 1];
    expect(maxDrawdown(r)).toBeCloseTo(0.25, 12);
    expect(currentDrawdown(r)).toBeCloseTo(1 - 1 / 1.2, 12);
  });
  it('a path that only rises has no drawdown; a fall on the first day counts from the start', () => {
    expect(maxDrawdown([0.1, 0.05])).toBe(0);
    expect(maxDrawdown([-0.1, 0.05])).toBeCloseTo(0.1, 12);
    expect(currentDrawdown([-0.1, 0.05])).toBeCloseTo(1 - 0.9 * 1.05, 12);
  });
});

/** Φ by Simpson's rule on the normal density from 0 to |z| (2000 panels), independent of the erfc in the code. */
function simpsonPhi(z: number): number {
  const panels = 2000;
  const h = Math.abs(z) / panels;
  const f = (x: number): number => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let s = f(0) + f(Math.abs(z));
  for (let i = 1; i < panels; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  const area = (s * h) / 3;
  return z >= 0 ? 0.5 + area : 0.5 - area;
}

describe('normal distribution function (Cody erfc)', () => {
  it('is exact to 1e-7 at known points', () => {
    expect(Math.abs(normalCdf(0) - 0.5)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(1.959963984540054) - 0.975)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(-1) - 0.15865525393145707)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(-1.959963984540054) - 0.025)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(3) - 0.9986501019683699)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(-6) - 9.865876450376946e-10)).toBeLessThan(1e-15);
  });
  it('agrees with Simpson integration of the density to 1e-10 across −6..6', () => {
    for (let z = -6; z <= 6; z += 0.37) expect(Math.abs(normalCdf(z) - simpsonPhi(z))).toBeLessThan(1e-10);
  });
});

describe('probabilistic Sharpe ratio', () => {
  // r = 0.05, −0.01, 0.02, −0.03, 0.08, 0, −0.02, 0.01, 0.03, −0.01 (n = 10)
  // mean 0.012; sample sd 0.0339280284; SR = 0.3536898714
  // population m2 = 0.001036, m3 = 2.4576e-5, m4 = 2.822512e-6 → γ3 = m3/m2^1.5 = 0.7370069194, γ4 = m4/m2² = 2.629761035
  // radicand 1 − 0.737007·0.353690 + (2.629761 − 1)/4 · 0.353690² = 0.7902974781
  // z = 0.353690·√9 / √0.790297 = 1.1935718835; Φ(z) = 0.8836772611 (Python 0.5·erfc(−z/√2))
  const r = [0.05, -0.01, 0.02, -0.03, 0.08, 0, -0.02, 0.01, 0.03, -0.01];
  it('matches the hand value', () => {
    expect(skewness(r)).toBeCloseTo(0.7370069193651303, 10);
    expect(kurtosis(r)).toBeCloseTo(2.629761035166441, 10);
    expect(Math.abs(probabilisticSharpe(r)! - 0.883677261102431)).toBeLessThan(1e-9);
  });
  it('matches the formula written apart with Simpson Φ', () => {
    const n = r.length;
    const m = r.reduce((a, x) => a + x, 0) / n;
    const central = (k: number): number => r.reduce((a, x) => a + (x - m) ** k, 0) / n;
    const sr = m / Math.sqrt((central(2) * n) / (n - 1));
    const g3 = central(3) / central(2) ** 1.5;
    const g4 = central(4) / central(2) ** 2;
    const z = (sr * Math.sqrt(n - 1)) / Math.sqrt(1 - g3 * sr + ((g4 - 1) / 4) * sr ** 2);
    expect(Math.abs(probabilisticSharpe(r)! - simpsonPhi(z))).toBeLessThan(1e-9);
  });
  it('needs three returns, variation and a positive radicand', () => {
    expect(probabilisticSharpe([0.1, -0.1])).toBeNull();
    expect(probabilisticSharpe([0.01, 0.01, 0.01])).toBeNull();
  });
});

describe('Kelly', () => {
  it('compares stakes with the Kelly fraction and counts buys against one’s own forecast', () => {
    // q = 0.6, c = 0.5 → f* = 0.1/0.5 = 0.2; stake 100/1000 = 0.1 → ratio 0.5, not over
    // q = 0.8, c = 0.6 → f* = 0.2/0.4 = 0.5; stake 300/500 = 0.6 → ratio 1.2, over
    // q = 0.4, c = 0.5 → f* < 0: bought against the forecast
    const s = scoreRisk(
      input({
        kellyBuys: [
          { cost: 100, equityBefore: 1000, price: 0.5, forecast: 0.6 },
          { cost: 300, equityBefore: 500, price: 0.6, forecast: 0.8 },
          { cost: 50, equityBefore: 1000, price: 0.5, forecast: 0.4 },
        ],
      }),
      'k',
    );
    expect(s.kellyRatio.value).toBeCloseTo((0.5 + 1.2) / 2, 12);
    expect(s.kellyRatio.n).toBe(2);
    expect(s.kellyRatio.low).not.toBeNull();
    expect(s.overKellyShare.value).toBeCloseTo(0.5, 12);
    expect(s.overKellyShare.n).toBe(2);
    expect(s.negativeEdgeBuys).toBe(1);
  });
  it('with one buy gives the ratio without an interval', () => {
    const s = scoreRisk(input({ kellyBuys: [{ cost: 100, equityBefore: 1000, price: 0.5, forecast: 0.6 }] }), 'k');
    expect(s.kellyRatio).toEqual({ value: expect.closeTo(0.5, 12) as number, n: 1, low: null, high: null });
    expect(s.overKellyShare).toEqual({ value: 0, n: 1, low: null, high: null });
  });
});

describe('edge cases', () => {
  it('when there are no days and no buys, every figure is null with n 0', () => {
    const s = scoreRisk(input({ startEquity: 0 }), 'e');
    expect(s.days).toBe(0);
    for (const e of [s.timeWeightedReturn, s.maxDrawdown, s.currentDrawdown, s.volatility, s.sharpe, s.sharpeAnnualised, s.sortino, s.probabilisticSharpe])
      expect(e).toEqual({ value: null, n: 0, low: null, high: null });
    expect(s.kellyRatio).toEqual({ value: null, n: 0, low: null, high: null });
    expect(s.overKellyShare).toEqual({ value: null, n: 0, low: null, high: null });
    expect(s.negativeEdgeBuys).toBe(0);
    expect(s.exposure).toBeNull();
    expect(s.concentration).toBeNull();
  });
  it('with one day there is a return and a drawdown but no volatility, Sharpe or interval', () => {
    const s = scoreRisk(input({ days: days([[950, 0]]) }), 'e');
    expect(s.days).toBe(1);
    expect(s.timeWeightedReturn).toEqual({ value: expect.closeTo(-0.05, 12) as number, n: 1, low: null, high: null });
    expect(s.maxDrawdown.value).toBeCloseTo(0.05, 12);
    expect(s.sortino.value).toBeCloseTo(-1, 12);
    expect(s.volatility).toEqual({ value: null, n: 1, low: null, high: null });
    expect(s.sharpe).toEqual({ value: null, n: 1, low: null, high: null });
    expect(s.probabilisticSharpe).toEqual({ value: null, n: 1, low: null, high: null });
  });
  it('when returns do not vary, Sharpe is null (not Infinity) and Sortino null without a losing day', () => {
    const s = scoreRisk(
      input({
        days: days([
          [1010, 0],
          [1020.1, 0],
          [1030.301, 0],
        ]),
      }),
      'e',
    );
    expect(s.volatility.value).toBeLessThan(1e-12);
    const r = [0.01, 0.01, 0.01];
    expect(volatility(r)).toBe(0);
    expect(sharpe(r)).toBeNull();
    expect(sortino(r)).toBeNull();
    expect(s.sortino.value).toBeNull();
  });
  it('before any day, exposure is against the start equity', () => {
    const s = scoreRisk(input({ startEquity: 400, positions: [100, 60] }), 'e');
    expect(s.exposure).toBeCloseTo(0.4, 12);
    expect(s.concentration).toBeCloseTo(0.25, 12);
  });
  it('a buy at a price of 1 has no edge, and a buy with no equity behind it has no stake fraction', () => {
    const s = scoreRisk(
      input({
        kellyBuys: [
          { cost: 10, equityBefore: 100, price: 1, forecast: 1 },
          { cost: 10, equityBefore: 0, price: 0.5, forecast: 0.9 },
        ],
      }),
      'e',
    );
    expect(s.negativeEdgeBuys).toBe(1);
    expect(s.kellyRatio).toEqual({ value: null, n: 0, low: null, high: null });
  });
  it('a day after non-positive equity is skipped', () => {
    // 100 → 0: −100 %; the day after 0 (a bonus of 50 arriving) has no return; 50 → 60: +20 %
    const r = dailyReturns(
      100,
      days([
        [0, 0],
        [50, 50],
        [60, 0],
      ]),
    );
    expect(r).toHaveLength(2);
    expect(r[0]).toBe(-1);
    expect(r[1]).toBeCloseTo(0.2, 12);
  });
});

describe('agrees with an independent implementation on generated series', () => {
  /** Written apart: returns from the flow-free equity directly, TWR by logs, drawdown from the whole index, Welford sd. */
  function reference(start: number, path: { equity: number; flow: number }[]) {
    const r: number[] = [];
    path.forEach((d, i) => {
      const prev = i === 0 ? start : path[i - 1]!.equity;
      if (prev > 0) r.push(d.equity / prev - d.flow / prev - 1);
    });
    const twr = r.length ? Math.exp(r.map((x) => Math.log1p(x)).reduce((a, b) => a + b, 0)) - 1 : null;
    const index = r.reduce<number[]>((acc, x) => [...acc, acc[acc.length - 1]! * (1 + x)], [1]);
    const dds = index.map((v, i) => 1 - v / Math.max(...index.slice(0, i + 1)));
    let count = 0;
    let mu = 0;
    let m2 = 0;
    for (const x of r) {
      count++;
      const d = x - mu;
      mu += d / count;
      m2 += d * (x - mu);
    }
    const sd = count > 1 ? Math.sqrt(m2 / (count - 1)) : null;
    const down = r.filter((x) => x < 0);
    const dd = Math.sqrt(down.reduce((a, x) => a + x * x, 0) / r.length);
    const pop = Math.sqrt(m2 / count);
    const skew = r.length ? r.reduce((a, x) => a + ((x - mu) / pop) ** 3, 0) / r.length : null;
    const kurt = r.length ? r.reduce((a, x) => a + ((x - mu) / pop) ** 4, 0) / r.length : null;
    return {
      r,
      twr,
      maxDd: r.length ? Math.max(...dds) : null,
      currentDd: r.length ? dds[dds.length - 1]! : null,
      sd,
      sharpe: sd ? mu / sd : null,
      sortino: down.length ? mu / dd : null,
      skew,
      kurt,
    };
  }
  const close = (a: number | null, b: number | null, tol = 1e-9): boolean =>
    a === null || b === null ? a === b : Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

  it('TWR, drawdowns, volatility, Sharpe, Sortino, skewness and kurtosis', () => {
    const path = fc.array(
      // A flow is at most the day's equity: a long-only account cannot lose more than everything (r ≥ −1).
      fc
        .record({
          equity: fc.integer({ min: 1, max: 100_000 }).map((c) => c / 100),
          flow: fc.oneof(
            fc.constant(0),
            fc.integer({ min: 0, max: 500 }).map((c) => c / 100),
          ),
        })
        .map((d) => ({ equity: d.equity, flow: Math.min(d.flow, d.equity) })),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }).map((c) => c / 100),
        path,
        (start, p) => {
          const ref = reference(start, p);
          const r = dailyReturns(start, days(p.map((d) => [d.equity, d.flow])));
          expect(r.length).toBe(ref.r.length);
          expect(close(timeWeightedReturn(r), ref.twr, 1e-8)).toBe(true);
          expect(close(maxDrawdown(r), ref.maxDd)).toBe(true);
          expect(close(currentDrawdown(r), ref.currentDd)).toBe(true);
          expect(close(volatility(r), ref.sd)).toBe(true);
          // Near-constant series leave sd at rounding noise, where any two ways of computing a ratio disagree.
          if (ref.sd !== null && ref.sd > 1e-6) {
            expect(close(sharpe(r), ref.sharpe, 1e-7)).toBe(true);
            expect(close(skewness(r), ref.skew, 1e-6)).toBe(true);
            expect(close(kurtosis(r), ref.kurt, 1e-6)).toBe(true);
          }
          expect(close(sortino(r), ref.sortino)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
