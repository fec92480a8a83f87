import fc from 'fast-check';
import { buyFill, buySharesFill, sellFill, settlementFill, settlementPrice, avgPriceMicro } from '../../../src/domain/trading/fills';
import { MICRO, fromMicro, toMicro } from '../../../src/domain/money/micro';

const price = fc.bigInt({ min: 1n, max: MICRO });
const amount = fc.bigInt({ min: 1n, max: 1_000_000n * MICRO });

describe('fills', () => {
  test('a buy of shares receives exactly those shares and pays shares × price rounded up, never less than their worth', () => {
    // Hand-computed: 10 shares at 0.625 cost 6.25; 3 micro-shares at 0.625 cost 1.875 micro-dollars → 2.
    expect(buySharesFill(toMicro(10), toMicro(0.625))).toEqual({ quantityMicro: 10_000_000n, costMicro: 6_250_000n, priceMicro: 625_000n });
    expect(buySharesFill(3n, 625_000n).costMicro).toBe(2n);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 1_000_000n * MICRO }), price, (q, p) => {
        const f = buySharesFill(q, p);
        expect(f.quantityMicro).toBe(q);
        expect(f.costMicro * MICRO).toBeGreaterThanOrEqual(q * p);
        expect((f.costMicro - 1n) * MICRO).toBeLessThan(q * p);
      }),
    );
  });

  test('a buy spends exactly the amount and never receives a share fraction it did not pay for', () => {
    fc.assert(
      fc.property(amount, price, (a, p) => {
        const f = buyFill(a, p);
        expect(f.costMicro).toBe(a);
        expect(f.quantityMicro * p).toBeLessThanOrEqual(a * MICRO);
        expect((f.quantityMicro + 1n) * p).toBeGreaterThan(a * MICRO);
      }),
    );
  });

  test('selling a position in any number of parts removes exactly its whole cost basis and realizes proceeds − cost', () => {
    fc.assert(
      fc.property(amount, price, fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 8 }), price, (a, p, parts, bid) => {
        const bought = buyFill(a, p);
        fc.pre(bought.quantityMicro > 0n);
        let pos = { quantityMicro: bought.quantityMicro, costMicro: bought.costMicro };
        let removed = 0n;
        let proceeds = 0n;
        let realized = 0n;
        for (const [i, w] of parts.entries()) {
          const last = i === parts.length - 1;
          const q = last ? pos.quantityMicro : (pos.quantityMicro * BigInt(w)) / 1000n;
          if (q === 0n) continue;
          const f = sellFill(pos, q, bid);
          removed += f.costRemovedMicro;
          proceeds += f.proceedsMicro;
          realized += f.realizedPnlMicro;
          pos = { quantityMicro: pos.quantityMicro - q, costMicro: pos.costMicro - f.costRemovedMicro };
          expect(pos.costMicro).toBeGreaterThanOrEqual(0n);
        }
        expect(pos).toEqual({ quantityMicro: 0n, costMicro: 0n });
        expect(removed).toBe(a);
        expect(realized).toBe(proceeds - a);
      }),
    );
  });

  test('sale proceeds are quantity × price rounded half up to the micro-dollar', () => {
    expect(sellFill({ quantityMicro: 3n, costMicro: 1n }, 3n, 500_000n).proceedsMicro).toBe(2n); // 1.5 → 2
    expect(sellFill({ quantityMicro: 1n, costMicro: 1n }, 1n, 499_999n).proceedsMicro).toBe(0n);
    expect(sellFill({ quantityMicro: 160n * MICRO, costMicro: 100n * MICRO }, 40n * MICRO, 700_000n)).toMatchObject({
      proceedsMicro: 28n * MICRO,
      realizedPnlMicro: 3n * MICRO,
    });
  });

  test('a sell of zero, of more than held, or at a price outside [0, 1] is refused', () => {
    const pos = { quantityMicro: 10n, costMicro: 5n };
    expect(() => sellFill(pos, 0n, 1n)).toThrow(RangeError);
    expect(() => sellFill(pos, 11n, 1n)).toThrow(RangeError);
    expect(() => sellFill(pos, 5n, MICRO + 1n)).toThrow(RangeError);
    expect(() => buyFill(5n, 0n)).toThrow(RangeError);
  });

  test('settlement pays 1 per winning share, 0 per losing share and 0.5 per void share', () => {
    expect(settlementPrice('YES', 'YES')).toBe(MICRO);
    expect(settlementPrice('NO', 'YES')).toBe(0n);
    expect(settlementPrice('NO', 'VOID')).toBe(MICRO / 2n);
    expect(settlementFill({ quantityMicro: 160n * MICRO, costMicro: 100n * MICRO }, MICRO)).toEqual({
      payoutMicro: 160n * MICRO,
      realizedPnlMicro: 60n * MICRO,
    });
    expect(avgPriceMicro({ quantityMicro: 0n, costMicro: 0n })).toBe(0n);
  });

  test('wire numbers round-trip through micro-units exactly to 6 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (m) => {
        expect(toMicro(fromMicro(m))).toBe(m);
      }),
    );
    expect(toMicro(0.1 + 0.2)).toBe(300_000n);
    expect(toMicro(1.0000005)).toBe(1_000_001n);
  });
});
