import { seededRandom } from '../../../src/domain/benchmark/estimate';
import {
  holm,
  mean,
  minimumDetectableEdge,
  pairedBootstrap,
  rankIntervals,
  sampleSd,
  shrunkMean,
  wilsonInterval,
} from '../../../src/domain/benchmark/statistics';
import { scoreRanking } from '../../../src/domain/benchmark/ranking-scores';
import type { ResolvedQuestion } from '../../../src/domain/benchmark/forecast-scores';

/** Per-question Brier edges drawn around `edge` with spread `sd` (a seeded normal by Box–Muller). */
function edges(n: number, edge: number, sd: number, seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => edge + sd * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
}

/** An independent 95 % interval of a mean: the normal approximation, mean ± 1.96 s/√n. */
function normalInterval(d: number[]): { low: number; high: number } {
  const n = d.length;
  const m = d.reduce((s, x) => s + x, 0) / n;
  const s = Math.sqrt(d.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  return { low: m - (1.96 * s) / Math.sqrt(n), high: m + (1.96 * s) / Math.sqrt(n) };
}

describe('means and spread', () => {
  test('mean: hand-computed, and against a running sum in the test', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([-0.5, 0.25])).toBe(-0.125);
    const xs = edges(50, 0.01, 0.2, 7);
    let running = 0;
    xs.forEach((x, i) => (running += (x - running) / (i + 1)));
    expect(mean(xs)).toBeCloseTo(running, 12);
  });

  test('sample standard deviation: hand-computed (n − 1), null below two values', () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, so √(32 / 7).
    expect(sampleSd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 14);
    expect(sampleSd([1, 3])).toBeCloseTo(Math.SQRT2, 14);
    expect(sampleSd([3])).toBeNull();
    expect(sampleSd([])).toBeNull();
    // Independently: E[x²] − E[x]² scaled by n / (n − 1).
    const xs = edges(40, 0, 1, 3);
    const n = xs.length;
    const m2 = xs.reduce((a, x) => a + x * x, 0) / n;
    const m1 = xs.reduce((a, x) => a + x, 0) / n;
    expect(sampleSd(xs)).toBeCloseTo(Math.sqrt(((m2 - m1 * m1) * n) / (n - 1)), 10);
  });

  test('Wilson interval of 1 of 4: hand-computed centre and half-width', () => {
    // p = 0.25, z² = 3.8415, denominator 1 + z²/4 = 1.96037; centre (0.25 + z²/8) / 1.96037 = 0.37247;
    // half (z / 1.96037) · √(0.1875 / 4 + z² / 64) = 0.32689.
    const w = wilsonInterval(1, 4)!;
    expect(w.low).toBeCloseTo(0.04558, 4);
    expect(w.high).toBeCloseTo(0.69936, 4);
  });
});

describe('ranking statistics', () => {
  test('Holm: hand-computed step-down on four p-values, nulls left out', () => {
    // Sorted 0.01, 0.02, 0.03, 0.5 of m = 4: ×4 = 0.04, ×3 = 0.06, ×2 = 0.06 (kept monotone), ×1 = 0.5.
    const adjusted = holm([0.03, null, 0.01, 0.5, 0.02]);
    expect(adjusted[0]).toBeCloseTo(0.06, 12);
    expect(adjusted[1]).toBeNull();
    expect(adjusted[2]).toBeCloseTo(0.04, 12);
    expect(adjusted[3]).toBeCloseTo(0.5, 12);
    expect(adjusted[4]).toBeCloseTo(0.06, 12);
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
  });

  test('the paired bootstrap agrees with the normal approximation at large n, and its p-value with the edge', () => {
    const d = edges(400, 0.03, 0.2, 7);
    const b = pairedBootstrap(d, 1);
    const normal = normalInterval(d);
    expect(b.mean).toBeCloseTo(d.reduce((s, x) => s + x, 0) / 400, 12);
    expect(Math.abs(b.low! - normal.low)).toBeLessThan(0.004);
    expect(Math.abs(b.high! - normal.high)).toBeLessThan(0.004);
    expect(b.pValue!).toBeLessThan(0.01);
    // No edge: p far from small; a single question: no interval, no p.
    expect(pairedBootstrap(edges(400, 0, 0.2, 8), 1).pValue!).toBeGreaterThan(0.05);
    expect(pairedBootstrap([0.1], 1)).toEqual({ mean: 0.1, low: null, high: null, pValue: null });
    // Every replicate above 0: the smallest p the 1,999 replicates can give, 1/2,000.
    expect(pairedBootstrap([0.1, 0.2, 0.3], 1).pValue).toBe(1 / 2000);
  });

  test('the minimum detectable edge is (1.96 + 0.84) s / √n; shrinkage divides by max(30, n)', () => {
    const d = [0.1, -0.1, 0.3, -0.3];
    const s = Math.sqrt((0.01 + 0.01 + 0.09 + 0.09) / 3);
    expect(minimumDetectableEdge(d)).toBeCloseTo(((1.959963984540054 + 0.8416212335729143) * s) / 2, 12);
    expect(shrunkMean([0.3, 0.3])).toBeCloseTo(0.6 / 30, 12);
    expect(shrunkMean(Array.from({ length: 60 }, () => 0.1))).toBeCloseTo(0.1, 12);
  });

  test('a constructed board: two agents of the same skill overlap in rank, two of different skill do not', () => {
    // Per-question alpha of four agents over 400 questions: A and B both +0.02, C 0, D −0.05 (sd 0.1).
    const agents = { A: edges(400, 0.02, 0.1, 1), B: edges(400, 0.02, 0.1, 2), C: edges(400, 0, 0.1, 3), D: edges(400, -0.05, 0.1, 4) };
    const rows = Object.entries(agents)
      .map(([name, d]) => ({ name, ...pairedBootstrap(d, 9) }))
      .sort((a, b) => b.mean! - a.mean!);
    const ranks = rankIntervals(rows, rows.length, true);
    const of = (name: string) => ranks[rows.findIndex((r) => r.name === name)]!;
    // A and B: indistinguishable, each could be first or second.
    expect(of('A')).toEqual({ low: 1, high: 2 });
    expect(of('B')).toEqual({ low: 1, high: 2 });
    // C and D differ from A, B and each other: their intervals do not overlap theirs.
    expect(of('C')).toEqual({ low: 3, high: 3 });
    expect(of('D')).toEqual({ low: 4, high: 4 });
    // The independent check: the same verdicts from the normal intervals.
    const n = Object.fromEntries(Object.entries(agents).map(([k, d]) => [k, normalInterval(d)]));
    expect(n.A!.low < n.B!.high && n.B!.low < n.A!.high).toBe(true);
    expect(n.C!.high < Math.min(n.A!.low, n.B!.low) && n.D!.high < n.C!.low).toBe(true);
    // Rows not listed are never counted as surely worse: the worst rank reaches the board's total.
    expect(rankIntervals(rows, 10, true)[rows.findIndex((r) => r.name === 'A')]).toEqual({ low: 1, high: 8 });
  });

  test('a record’s ranking: edges over the market (stamped mids), the coin flip (even split) and the favourite (its own forecast)', () => {
    const H = 3_600_000;
    const qs: ResolvedQuestion[] = [
      { marketId: 'a', kind: 'binary', winner: 1, closedAt: 10 * H, points: [{ t: 0, probabilities: [0.8], mids: [0.6] }] },
      { marketId: 'b', kind: 'binary', winner: 0, closedAt: 40 * 24 * H, points: [{ t: 0, probabilities: [0.3], mids: [0.4] }] },
      { marketId: 'v', kind: 'binary', winner: null, closedAt: 10 * H, points: [{ t: 0, probabilities: [0.3], mids: [0.4] }] },
    ];
    const contexts = { a: { others: [{ forecaster: 'f', reference: 'favourite', t: H, probabilities: [0.7] }], horizonMids: [] } };
    const r = scoreRanking(qs, contexts, 2, 'x');
    const edge = (k: string) => r.references.find((e) => e.reference === k)!.edge;
    // Own Brier 0.04 and 0.09; market 0.16 and 0.16 → edges 0.12, 0.07; coin 0.25 → 0.21, 0.16; favourite on a only 0.09 − 0.04.
    expect(edge('market')).toMatchObject({ value: expect.closeTo(0.095, 12), n: 2 });
    expect(edge('coin_flip').value).toBeCloseTo(0.185, 12);
    expect(edge('favourite')).toEqual({ value: expect.closeTo(0.05, 12), n: 1, low: null, high: null });
    expect(r.shrunkAlpha).toBeCloseTo(0.19 / 30, 12);
    expect(r.days).toBeCloseTo(40, 12);
    expect(r.provisional).toBe(true);
    expect(r.replicates).toBe(1999);
  });
});
