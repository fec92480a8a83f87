import { syntheticDepth, SYNTHETIC_LEVELS } from '../../../src/market-data/simulated/synthetic-book';
import { toMicro } from '../../../src/domain/money/micro';

const prices = (ls: Array<{ priceMicro: bigint }>) => ls.map((l) => Number(l.priceMicro));

describe('syntheticDepth', () => {
  test('when asked twice with the same prices and volume, then it gives the same book, sized by volume', () => {
    const a = syntheticDepth(toMicro(0.418), toMicro(0.422), 184_230.5);
    expect(a).toEqual(syntheticDepth(toMicro(0.418), toMicro(0.422), 184_230.5));
    expect(a.bids).toHaveLength(SYNTHETIC_LEVELS);
    expect(prices(a.bids)).toEqual([418_000, 408_000, 398_000, 388_000, 378_000]);
    expect(prices(a.asks)).toEqual([422_000, 432_000, 442_000, 452_000, 462_000]);
    expect(a.bids.map((l) => l.sizeMicro)).toEqual([184n, 368n, 552n, 736n, 920n].map((n) => n * 1_000_000n));
  });

  test('when the bid or ask is near the edge, then levels stop inside (0, 1); volume is floored and capped', () => {
    const edge = syntheticDepth(toMicro(0.02), toMicro(0.985), null);
    expect(prices(edge.bids)).toEqual([20_000, 10_000]);
    expect(prices(edge.asks)).toEqual([985_000, 995_000]);
    expect(edge.bids[0]!.sizeMicro).toBe(10_000_000n);
    expect(syntheticDepth(toMicro(0.5), toMicro(0.51), 1e12).asks[0]!.sizeMicro).toBe(100_000_000_000n);
  });
});
