import { syntheticDepth, SYNTHETIC_LEVELS } from '../../../src/market-data/simulated/synthetic-book';
import { toMicro } from '../../../src/domain/money/micro';

const prices = (ls: Array<{ priceMicro: bigint }>) => ls.map((l) => Number(l.priceMicro));

describe('syntheticDepth', () => {
  test('when asked twice with the same prices and volume, then it gives the same book, sized by volume in dollars', () => {
    const a = syntheticDepth(toMicro(0.418), toMicro(0.422), 184_230.5);
    expect(a).toEqual(syntheticDepth(toMicro(0.418), toMicro(0.422), 184_230.5));
    expect(a.bids).toHaveLength(SYNTHETIC_LEVELS);
    expect(prices(a.bids)).toEqual([418_000, 408_000, 398_000, 388_000, 378_000]);
    expect(prices(a.asks)).toEqual([422_000, 432_000, 442_000, 452_000, 462_000]);
    // $184,230.5 / 20 = $9,212 at the best level: 9212 / 0.418 = 22038.27 → 22038 whole shares a lot; 9212 / 0.422 → 21829.
    expect(a.bids.map((l) => l.sizeMicro)).toEqual([1n, 2n, 3n, 4n, 5n].map((n) => n * 22_038n * 1_000_000n));
    expect(a.asks.map((l) => l.sizeMicro)).toEqual([1n, 2n, 3n, 4n, 5n].map((n) => n * 21_829n * 1_000_000n));
  });

  test('when the bid or ask is near the edge, then levels stop inside (0, 1); volume is floored and capped', () => {
    const edge = syntheticDepth(toMicro(0.02), toMicro(0.985), null);
    expect(prices(edge.bids)).toEqual([20_000, 10_000]);
    expect(prices(edge.asks)).toEqual([985_000, 995_000]);
    // No volume: the $2,500 floor (2500 / 0.02 = 125,000 shares); a huge volume: the $250,000 cap (250000 / 0.51 → 490196).
    expect(edge.bids[0]!.sizeMicro).toBe(125_000_000_000n);
    expect(syntheticDepth(toMicro(0.5), toMicro(0.51), 1e12).asks[0]!.sizeMicro).toBe(490_196_000_000n);
  });
});
