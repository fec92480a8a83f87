import fc from 'fast-check';
import { buyRelease, buyReservation, sharesCostCeiling, take } from '../../../src/domain/orders/order-rules';
import { planAmend, planPlacement } from '../../../src/domain/orders/order-plan';
import { buySharesFill } from '../../../src/domain/trading/fills';

const M = 1_000_000n;

describe('a limit BUY sized by shares', () => {
  test('it reserves its shares × limit rounded up to the micro-dollar, the rounding paper_trade by shares pays', () => {
    expect(sharesCostCeiling(10_000_000n, 550_000n)).toBe(5_500_000n); // 10 shares at 0.55: exactly $5.50
    expect(sharesCostCeiling(1n, 1n)).toBe(1n); // a micro-share at a micro-dollar: 1e-12 dollars, rounded up to 1 micro
    expect(sharesCostCeiling(3_333_333n, 333_333n)).toBe(1_111_110n); // 1_111_109.888… up
    expect(buyReservation('shares', 3_333_333n, 333_333n)).toBe(1_111_110n);
    expect(buyReservation('amount', 3_333_333n, 333_333n)).toBe(3_333_333n); // by amount: the dollars themselves
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 13n }), fc.bigInt({ min: 1n, max: M }), (shares, price) => {
        expect(sharesCostCeiling(shares, price)).toBe(buySharesFill(shares, price).costMicro);
      }),
    );
  });

  test('without depth it takes all its unfilled shares at the ask, costing them rounded up', () => {
    expect(take('BUY', 500_000n, 7_000_001n, { bidMicro: 380_000n, askMicro: 400_000n }, 'shares')).toEqual({
      sizeMicro: 7_000_001n,
      priceMicro: 400_000n,
      cashMicro: 2_800_001n, // 2_800_000.4 up
    });
    expect(take('BUY', 300_000n, 7_000_000n, { bidMicro: 380_000n, askMicro: 400_000n }, 'shares')).toBeNull();
  });

  test('with depth it takes shares level by level within its limit, no more than shown, and pays ceil(Σ shares × price)', () => {
    const depth = {
      bids: [],
      asks: [
        { priceMicro: 400_000n, sizeMicro: 10_000_000n },
        { priceMicro: 450_000n, sizeMicro: 20_000_000n },
        { priceMicro: 600_000n, sizeMicro: 1_000_000_000n },
      ],
    };
    const t = take('BUY', 500_000n, 25_000_000n, { bidMicro: 380_000n, askMicro: 400_000n, depth }, 'shares')!;
    // 10 at 0.40 ($4) and 15 at 0.45 ($6.75): 25 shares, $10.75, 0.43 a share.
    expect(t).toEqual({ sizeMicro: 25_000_000n, cashMicro: 10_750_000n, priceMicro: 430_000n });
    expect(depth.asks.map((l) => l.sizeMicro)).toEqual([0n, 5_000_000n, 1_000_000_000n]);
    // More shares than the book shows within the limit: only those.
    const more = take('BUY', 500_000n, 100_000_000n, { bidMicro: 380_000n, askMicro: 450_000n, depth }, 'shares')!;
    expect(more).toEqual({ sizeMicro: 5_000_000n, cashMicro: 2_250_000n, priceMicro: 450_000n });
  });

  test('with any book, its fill is no more shares than unfilled and costs no more than the reservation of those shares', () => {
    const level = fc.record({ priceMicro: fc.bigInt({ min: 1n, max: 999_999n }), sizeMicro: fc.bigInt({ min: 0n, max: 10_000_000_000n }) });
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: M }), fc.bigInt({ min: 1n, max: 10_000_000_000n }), fc.array(level, { maxLength: 6 }), (limit, size, raw) => {
        const asks = [...raw].sort((a, b) => Number(a.priceMicro - b.priceMicro));
        const t = take('BUY', limit, size, { bidMicro: 0n, askMicro: asks[0]?.priceMicro ?? 0n, depth: { bids: [], asks } }, 'shares');
        if (t === null) return;
        expect(t.sizeMicro > 0n && t.sizeMicro <= size).toBe(true);
        expect(t.priceMicro <= limit).toBe(true);
        expect(t.cashMicro! <= sharesCostCeiling(t.sizeMicro, limit)).toBe(true);
        expect(t.cashMicro! >= 1n).toBe(true);
      }),
    );
  });

  test('a fill frees what its shares reserved, leaving exactly the reservation of the rest; the last fill frees it all', () => {
    // 10 shares at limit 0.333333 reserve ceil(3.33333) = $3.333330; 3 fill: 7 stay, reserving ceil(2.333331) = 2.333331.
    const held = sharesCostCeiling(10_000_000n, 333_333n);
    expect(held).toBe(3_333_330n);
    expect(buyRelease('shares', held, 10_000_000n, 3_000_000n, 333_333n)).toBe(held - 2_333_331n);
    expect(buyRelease('shares', held, 10_000_000n, 10_000_000n, 333_333n)).toBe(held);
    // By amount a fill frees what it spends (never more than held).
    expect(buyRelease('amount', 50n, 50n, 20n, 500_000n)).toBe(20n);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: M }),
        fc.array(fc.bigInt({ min: 1n, max: 5_000_000_000n }), { minLength: 1, maxLength: 8 }),
        fc.bigInt({ min: 1n, max: 5_000_000_000n }),
        (limit, fills, extra) => {
          const size = fills.reduce((a, b) => a + b, 0n) + extra;
          let unfilled = size;
          let reserved = sharesCostCeiling(size, limit);
          let freed = 0n;
          for (const f of fills) {
            const release = buyRelease('shares', reserved, unfilled, f, limit);
            reserved -= release;
            freed += release;
            unfilled -= f;
            expect(reserved).toBe(sharesCostCeiling(unfilled, limit)); // the reservation stays exact
          }
          expect(freed + reserved).toBe(sharesCostCeiling(size, limit)); // nothing created or lost
        },
      ),
    );
  });

  test('a placement plans in shares: a partial fill rests the unfilled shares; an amend plans the unfilled rest of the new total', () => {
    const depth = () => ({ bids: [], asks: [{ priceMicro: 400_000n, sizeMicro: 4_000_000n }] });
    const plan = planPlacement(
      { side: 'BUY', limitMicro: 500_000n, sizeMicro: 10_000_000n, timeInForce: 'GTC', sizedBy: 'shares' },
      { bidMicro: 0n, askMicro: 400_000n, depth: depth() },
    );
    expect(plan).toMatchObject({ kind: 'fill-rest', take: { sizeMicro: 4_000_000n, cashMicro: 1_600_000n }, restMicro: 6_000_000n });
    const fok = planPlacement(
      { side: 'BUY', limitMicro: 500_000n, sizeMicro: 10_000_000n, timeInForce: 'FOK', sizedBy: 'shares' },
      { bidMicro: 0n, askMicro: 400_000n, depth: depth() },
    );
    expect(fok.kind).toBe('end');
    const amend = planAmend(
      { side: 'BUY', limitMicro: 300_000n, sizeMicro: 10_000_000n, filledSizeMicro: 4_000_000n, timeInForce: 'GTC', sizedBy: 'shares' },
      { sizeMicro: 12_000_000n },
      { bidMicro: 0n, askMicro: 400_000n },
    );
    expect(amend).toMatchObject({ sizeMicro: 12_000_000n, plan: { kind: 'rest', restMicro: 8_000_000n } });
  });
});
