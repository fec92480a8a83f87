import fc from 'fast-check';
import { crossingPrice, onPlacement } from '../../../src/domain/orders/order-rules';

const micro = fc.bigInt({ min: 1n, max: 1_000_000n });

describe('order rules', () => {
  test('a crossing price is never worse than the limit: a buy pays at most it, a sell receives at least it', () => {
    fc.assert(
      fc.property(micro, micro, micro, fc.constantFrom('BUY' as const, 'SELL' as const), (limit, bid, ask, side) => {
        const p = crossingPrice(side, limit, { bidMicro: bid, askMicro: ask });
        if (p === null) expect(side === 'BUY' ? ask > limit : bid < limit).toBe(true);
        else if (side === 'BUY') expect(p === ask && p <= limit).toBe(true);
        else expect(p === bid && p >= limit).toBe(true);
      }),
    );
  });

  test('when there is no price (0) on the side taken, then nothing crosses', () => {
    expect(crossingPrice('BUY', 1_000_000n, { bidMicro: 0n, askMicro: 0n })).toBeNull();
    expect(crossingPrice('SELL', 1n, { bidMicro: 0n, askMicro: 0n })).toBeNull();
  });

  test('when an order crosses it fills; otherwise GTC and GTD rest, IOC is cancelled and FOK rejected', () => {
    for (const tif of ['GTC', 'GTD', 'IOC', 'FOK'] as const) expect(onPlacement(tif, true)).toBe('fill');
    expect([onPlacement('GTC', false), onPlacement('GTD', false), onPlacement('IOC', false), onPlacement('FOK', false)]).toEqual([
      'rest',
      'rest',
      'cancel',
      'reject',
    ]);
  });
});
