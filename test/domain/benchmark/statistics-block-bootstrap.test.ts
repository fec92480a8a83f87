import { blockInterval, blockLength } from '../../../src/domain/benchmark/statistics';
import { seededRandom } from '../../../src/domain/benchmark/estimate';

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('moving-block bootstrap', () => {
  it('takes blocks of round(n^(1/3)) returns, at least one', () => {
    // 1 → 1, 7 → round(1.913) = 2, 8 → 2, 27 → 3, 90 → round(4.481) = 4, 92 → round(4.514) = 5, 365 → round(7.147) = 7
    expect([0, 1, 2, 3, 7, 8, 27, 90, 92, 365].map(blockLength)).toEqual([1, 1, 1, 1, 2, 2, 3, 4, 5, 7]);
  });

  it('when the seed is the same, the interval is the same; another seed moves it', () => {
    const g = seededRandom(3);
    const r = Array.from({ length: 60 }, () => g() * 0.04 - 0.02);
    const a = blockInterval(r, mean, 11);
    expect(blockInterval(r, mean, 11)).toEqual(a);
    expect(blockInterval(r, mean, 12)).not.toEqual(a);
  });

  it('when every return is the same, the interval collapses to the value', () => {
    const r = Array.from({ length: 30 }, () => 0.01);
    const i = blockInterval(r, mean, 1)!;
    expect(i.low).toBeCloseTo(0.01, 15);
    expect(i.high).toBeCloseTo(0.01, 15);
  });

  it('when a typical series is resampled, the interval contains its value and has width', () => {
    const g = seededRandom(8);
    const r = Array.from({ length: 120 }, () => g() * 0.06 - 0.025);
    const i = blockInterval(r, mean, 4)!;
    expect(i.low).toBeLessThan(mean(r));
    expect(i.high).toBeGreaterThan(mean(r));
    // Roughly the iid width 2·1.96·sd/√n (short blocks of iid data change it little).
    const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean(r)) ** 2, 0) / (r.length - 1));
    const width = (2 * 1.96 * sd) / Math.sqrt(r.length);
    expect(i.high - i.low).toBeGreaterThan(width * 0.6);
    expect(i.high - i.low).toBeLessThan(width * 1.5);
  });

  it('keeps consecutive returns together: with blocks of 2 a strictly alternating series stays alternating inside blocks', () => {
    // n = 8 → b = 2; every block of [1, -1, 1, -1, …] starting anywhere is one +1 and one −1, so every resample of
    // 4 blocks sums to 0 exactly, whereas an iid resample would not.
    const r = [1, -1, 1, -1, 1, -1, 1, -1];
    const i = blockInterval(r, (s) => s.reduce((a, x) => a + x, 0), 5)!;
    expect(i).toEqual({ low: 0, high: 0 });
  });

  it('truncates the glued blocks to n and draws only whole blocks inside the series', () => {
    // n = 10 → b = 2, ceil(10/2) = 5 blocks; with n = 9 → b = 2, 5 blocks truncated to 9.
    const lengths = new Set<number>();
    const seen = new Set<number>();
    const r = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    blockInterval(
      r,
      (s) => {
        lengths.add(s.length);
        // a block starting at index k holds k then k + 1: pairs at even positions are consecutive
        for (let j = 0; j + 1 < s.length; j += 2) {
          if (s[j + 1] !== s[j]! + 1) throw new Error('block broken');
          seen.add(s[j]!);
        }
        return 0;
      },
      2,
    );
    expect([...lengths]).toEqual([9]);
    expect(Math.max(...seen)).toBe(7);
  });

  it('when there are fewer than two returns or the statistic is mostly undefined, there is no interval', () => {
    expect(blockInterval([], mean, 1)).toBeNull();
    expect(blockInterval([0.1], mean, 1)).toBeNull();
    expect(blockInterval([0.1, 0.2, 0.3], () => null, 1)).toBeNull();
  });
});
