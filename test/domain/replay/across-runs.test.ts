import { createHash } from 'node:crypto';
import { alphaAcrossRuns } from '../../../src/domain/replay/across-runs';

const run = (value: number | null, n: number) => ({ alpha: { value, n, low: null, high: null } });

/** The percentile bootstrap of a pooled mean over runs, written here from its definition: mulberry32, type-7 quantiles. */
function independentInterval(clusters: Array<{ sum: number; count: number }>, label: string): { low: number; high: number } {
  let a = createHash('sha256').update(`replay|across|${label}`).digest().readUInt32BE(0);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const means: number[] = [];
  for (let r = 0; r < 1000; r++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < clusters.length; i++) {
      const c = clusters[Math.floor(next() * clusters.length)]!;
      sum += c.sum;
      count += c.count;
    }
    means.push(sum / count);
  }
  means.sort((x, y) => x - y);
  const q = (p: number) => {
    const h = (means.length - 1) * p;
    const lo = Math.floor(h);
    return means[lo]! + (h - lo) * (means[Math.ceil(h)]! - means[lo]!);
  };
  return { low: q(0.025), high: q(0.975) };
}

describe('alpha across replay runs', () => {
  test('when runs have alphas over different numbers of markets, then the figure is their market-weighted mean, runs without one left out', () => {
    // (0.02·10 − 0.01·5 + 0.03·5) / 20 = 0.3 / 20 = 0.015
    const e = alphaAcrossRuns([run(0.02, 10), run(-0.01, 5), run(null, 0), run(0.03, 5)], 'fixture');
    expect(e.value).toBeCloseTo(0.015, 12);
    expect(e.n).toBe(20);
    const independent = independentInterval(
      [
        { sum: 0.2, count: 10 },
        { sum: -0.05, count: 5 },
        { sum: 0.15, count: 5 },
      ],
      'fixture',
    );
    expect(e.low).toBeCloseTo(independent.low, 12);
    expect(e.high).toBeCloseTo(independent.high, 12);
    expect(e.low!).toBeLessThan(e.value!);
    expect(e.high!).toBeGreaterThan(e.value!);
  });

  test('when every run has alpha 0 (the market agent), then the interval is [0, 0]', () => {
    expect(alphaAcrossRuns([run(0, 12), run(0, 7), run(0, 30)], 'market')).toEqual({ value: 0, n: 49, low: 0, high: 0 });
  });

  test('when there is one run or none, then there is no interval', () => {
    expect(alphaAcrossRuns([run(0.05, 4)], 'one')).toEqual({ value: 0.05, n: 4, low: null, high: null });
    expect(alphaAcrossRuns([run(null, 0)], 'none')).toEqual({ value: null, n: 0, low: null, high: null });
  });
});
