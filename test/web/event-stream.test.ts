import { retryDelayMs } from '../../web/src/lib/event-stream';

describe('reconnecting a lost stream (web/src/lib/event-stream.ts)', () => {
  test('when failures follow one another, then the wait doubles from 1 s up to 30 s, with at most a fifth more at random', () => {
    const none = () => 0;
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => retryDelayMs(n, none))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    // The most the jitter adds: a fifth.
    expect(retryDelayMs(1, () => 1)).toBe(1200);
    expect(retryDelayMs(9, () => 1)).toBe(36000);
    for (let n = 1; n < 10; n++) {
      const d = retryDelayMs(n);
      const base = Math.min(1000 * 2 ** (n - 1), 30000);
      expect(d).toBeGreaterThanOrEqual(base);
      expect(d).toBeLessThanOrEqual(base * 1.2);
    }
  });
});
