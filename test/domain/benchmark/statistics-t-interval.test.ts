import { meanWithTInterval, tCentral, tQuantile } from '../../../src/domain/benchmark/statistics';

// t(0.975, df) from the printed tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), to 3 decimals.
const TABLE: Array<[number, number]> = [
  [1, 12.706],
  [2, 4.303],
  [3, 3.182],
  [4, 2.776],
  [9, 2.262],
  [10, 2.228],
  [19, 2.093],
  [30, 2.042],
];

describe('Student-t interval', () => {
  test.each(TABLE)('when df is %i, then the 97.5 %% quantile is the table’s %f', (df, t) => {
    expect(tQuantile(df, 0.95)).toBeCloseTo(t, 3);
  });

  test('when the central probability is computed for df 1 and 2, then it matches the closed forms (2/π)·atan t and t/√(2+t²)', () => {
    for (const t of [0.1, 1, 2.5, 10]) {
      expect(tCentral(1, t)).toBeCloseTo((2 / Math.PI) * Math.atan(t), 12);
      expect(tCentral(2, t)).toBeCloseTo(t / Math.sqrt(2 + t * t), 12);
    }
  });

  test('when four alphas are given, then the mean and interval are the hand-computed ones and an independent computation’s', () => {
    const alphas = [0.02, 0.05, -0.01, 0.04];
    // By hand: mean 0.1 / 4 = 0.025; squared deviations 0.000025 + 0.000625 + 0.001225 + 0.000225 = 0.0021; s² = 0.0021 / 3 =
    // 0.0007; s / √4 = 0.0132288; t(0.975, 3) = 3.182446; half-width 0.0420995.
    const e = meanWithTInterval(alphas);
    expect(e.n).toBe(4);
    expect(e.value).toBeCloseTo(0.025, 12);
    expect(e.low).toBeCloseTo(-0.0170995, 6);
    expect(e.high).toBeCloseTo(0.0670995, 6);
    // Independently: a two-pass variance and the tabled quantile to six places.
    const mean = alphas.reduce((a, b) => a + b) / alphas.length;
    let ss = 0;
    for (const a of alphas) ss += (a - mean) * (a - mean);
    const half = 3.182446 * Math.sqrt(ss / (alphas.length - 1) / alphas.length);
    expect(e.low).toBeCloseTo(mean - half, 6);
    expect(e.high).toBeCloseTo(mean + half, 6);
  });

  test('when there are fewer than two values, then there is no interval; none at all, no value', () => {
    expect(meanWithTInterval([0.3])).toEqual({ value: 0.3, n: 1, low: null, high: null });
    expect(meanWithTInterval([])).toEqual({ value: null, n: 0, low: null, high: null });
  });

  test('when df is not a whole number >= 1, then it throws', () => {
    expect(() => tCentral(0, 1)).toThrow();
    expect(() => tCentral(2.5, 1)).toThrow();
  });
});
