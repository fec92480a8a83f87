import fc from 'fast-check';
import { afterTaken, walkBook, type BookFill, type FeeSchedule, type WalkIntent } from '../../../src/domain/trading/book-walk';
import { buyFill, buySharesFill, sellFill } from '../../../src/domain/trading/fills';
import { MICRO, toMicro } from '../../../src/domain/money/micro';
import type { BookLevel } from '../../../src/domain/trading/price-service';

const book = (levels: Array<[number, number]>): BookLevel[] => levels.map(([p, s]) => ({ priceMicro: toMicro(p), sizeMicro: toMicro(s) }));
const ASKS = book([
  [0.4, 100],
  [0.42, 50],
  [0.45, 200],
]);
const BIDS = book([
  [0.38, 100],
  [0.35, 100],
]);

function filled(levels: BookLevel[], intent: WalkIntent, fee?: FeeSchedule): BookFill {
  const r = walkBook(levels, intent, fee);
  if (r.kind !== 'fill') throw new Error(`expected a fill, got ${r.kind}`);
  return r.fill;
}

describe('walkBook: hand-computed fixtures', () => {
  test('when a buy of 120 shares walks past the best level, then it takes 100 at 0.40 and 20 at 0.42 at their volume-weighted average', () => {
    const f = filled(ASKS, { side: 'BUY', sizedBy: 'shares', sizeMicro: toMicro(120) });
    // 100 × 0.40 + 20 × 0.42 = 48.40 for 120 shares: 0.403333… rounded up to 0.403334; slippage 0.003334 from 0.40.
    expect(f).toEqual({
      levels: [
        { priceMicro: 400_000n, sharesMicro: 100_000_000n },
        { priceMicro: 420_000n, sharesMicro: 20_000_000n },
      ],
      sharesMicro: 120_000_000n,
      bookCashMicro: 48_400_000n,
      feeMicro: 0n,
      cashMicro: 48_400_000n,
      priceMicro: 403_334n,
      bestMicro: 400_000n,
      worstMicro: 420_000n,
      slippageMicro: 3_334n,
      complete: true,
    });
  });

  test('when a buy of 61 dollars exactly empties two levels, then it receives 150 shares and spends 61', () => {
    const f = filled(ASKS, { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(61) });
    // 100 × 0.40 = 40, then 50 × 0.42 = 21: 61 / 150 = 0.406666… → 0.406667.
    expect(f).toMatchObject({ sharesMicro: 150_000_000n, cashMicro: 61_000_000n, priceMicro: 406_667n, worstMicro: 420_000n, complete: true });
  });

  test('when a buy of 100 dollars ends inside the third level, then the rest buys floor(39 / 0.45) shares there', () => {
    const f = filled(ASKS, { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(100) });
    // 40 + 21 = 61 on two levels; 39 / 0.45 = 86.666666… → 86.666666 shares; 236.666666 shares for 100.
    // Σ shares × price = 99.9999997 dollars, / 236.666666 = 0.4225352… → 0.422536 (rounded up).
    expect(f.levels.map((l) => l.sharesMicro)).toEqual([100_000_000n, 50_000_000n, 86_666_666n]);
    expect(f).toMatchObject({ sharesMicro: 236_666_666n, cashMicro: 100_000_000n, priceMicro: 422_536n, worstMicro: 450_000n, slippageMicro: 22_536n });
  });

  test('when a buy asks more than the book shows, then it is refused naming the depth; an IOC buy takes all that is shown', () => {
    // The whole book: 350 shares costing 40 + 21 + 90 = 151 dollars, up to 0.45.
    const intent: WalkIntent = { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(200) };
    expect(walkBook(ASKS, intent)).toEqual({ kind: 'short', shown: { sharesMicro: 350_000_000n, cashMicro: 151_000_000n, worstMicro: 450_000n } });
    const ioc = filled(ASKS, { ...intent, partial: true });
    // 151 / 350 = 0.431428… → 0.431429.
    expect(ioc).toMatchObject({ sharesMicro: 350_000_000n, cashMicro: 151_000_000n, priceMicro: 431_429n, complete: false });
  });

  test('when a buy carries a limit, then levels beyond it are not taken: refused whole, or filled in part as IOC', () => {
    const intent: WalkIntent = { side: 'BUY', sizedBy: 'shares', sizeMicro: toMicro(200), limitMicro: toMicro(0.42) };
    expect(walkBook(ASKS, intent)).toEqual({ kind: 'short', shown: { sharesMicro: 150_000_000n, cashMicro: 61_000_000n, worstMicro: 420_000n } });
    expect(filled(ASKS, { ...intent, partial: true })).toMatchObject({ sharesMicro: 150_000_000n, cashMicro: 61_000_000n, worstMicro: 420_000n });
  });

  test('when a sale of 150 shares walks the bids, then it receives 38 + 17.50 = 55.50 at 0.37, a cent of slippage', () => {
    const f = filled(BIDS, { side: 'SELL', sizedBy: 'shares', sizeMicro: toMicro(150) });
    expect(f).toMatchObject({ sharesMicro: 150_000_000n, bookCashMicro: 55_500_000n, cashMicro: 55_500_000n, priceMicro: 370_000n, slippageMicro: 10_000n });
  });

  test('when the best level covers the order, then the walk is exactly the one-price rules of fills.ts', () => {
    const deep = book([[0.62, 1_000_000]]);
    const byAmount = filled(deep, { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(50) });
    const one = buyFill(toMicro(50), toMicro(0.62));
    expect([byAmount.sharesMicro, byAmount.priceMicro, byAmount.cashMicro]).toEqual([one.quantityMicro, one.priceMicro, one.costMicro]);
    const byShares = filled(deep, { side: 'BUY', sizedBy: 'shares', sizeMicro: 3n });
    expect(byShares.cashMicro).toBe(buySharesFill(3n, toMicro(0.62)).costMicro);
    const sale = filled(book([[0.333333, 1_000_000]]), { side: 'SELL', sizedBy: 'shares', sizeMicro: toMicro(80.645161) });
    expect(sale.cashMicro).toBe(sellFill({ quantityMicro: toMicro(100), costMicro: 0n }, toMicro(80.645161), toMicro(0.333333)).proceedsMicro);
  });

  test('when the book shows nothing on the side, then short with nothing shown; one micro-dollar still buys a micro-share', () => {
    expect(walkBook([], { side: 'SELL', sizedBy: 'shares', sizeMicro: 1n })).toEqual({
      kind: 'short',
      shown: { sharesMicro: 0n, cashMicro: 0n, worstMicro: null },
    });
    // An all-in price never exceeds 1 (price + rate × min(price, 1 − price) ≤ 1), so any amount buys at least a micro-share.
    expect(filled(book([[0.999, 10]]), { side: 'BUY', sizedBy: 'amount', sizeMicro: 1n }, { rateBps: 10_000 }).sharesMicro).toBe(1n);
  });
});

describe('walkBook: fees to the micro-dollar', () => {
  const fee = (rateBps: number): FeeSchedule => ({ rateBps });

  test('when a buy of 33.333333 shares at 0.40 pays 175 bps, then fee = 0.0175 × 0.40 × 33.333333 = 0.2333333… → 0.233334', () => {
    const f = filled(ASKS, { side: 'BUY', sizedBy: 'shares', sizeMicro: 33_333_333n }, fee(175));
    // Book cash: 33.333333 × 0.40 = 13.3333332 → 13.333334 (rounded up); the fee on top.
    expect(f).toMatchObject({ bookCashMicro: 13_333_334n, feeMicro: 233_334n, cashMicro: 13_566_668n, priceMicro: 400_000n });
  });

  test('when a buy of 10.20 dollars at 0.50 pays 400 bps, then each share costs 0.52 all-in and the fee comes out of the amount', () => {
    const f = filled(book([[0.5, 1000]]), { side: 'BUY', sizedBy: 'amount', sizeMicro: toMicro(10.2) }, fee(400));
    // floor(10.20 / 0.52) = 19.615384 shares; fee 0.04 × 0.50 × 19.615384 = 0.39230768 → 0.392308; the book gets the rest.
    expect(f).toMatchObject({ sharesMicro: 19_615_384n, feeMicro: 392_308n, bookCashMicro: 9_807_692n, cashMicro: 10_200_000n, priceMicro: 500_000n });
  });

  test('when a sale of 10 shares at 0.70 pays 200 bps, then the fee is on the distance to 1 (0.30): 0.06, proceeds 6.94', () => {
    const f = filled(book([[0.7, 1000]]), { side: 'SELL', sizedBy: 'shares', sizeMicro: toMicro(10) }, fee(200));
    expect(f).toMatchObject({ bookCashMicro: 7_000_000n, feeMicro: 60_000n, cashMicro: 6_940_000n });
  });

  test('when the fee is independently recomputed from the levels taken, then it agrees to the micro-dollar', () => {
    fc.assert(
      fc.property(arbBook(), fc.integer({ min: 0, max: 10_000 }), fc.bigInt({ min: 1n, max: 2_000n * MICRO }), (levels, bps, size) => {
        const r = walkBook(levels, { side: 'BUY', sizedBy: 'shares', sizeMicro: size, partial: true }, fee(bps));
        if (r.kind !== 'fill') return;
        // In floating point with a margin, then exactly: the fee is the smallest micro-dollar count covering Σ.
        const exact = r.fill.levels.reduce(
          (s, l) => s + l.sharesMicro * BigInt(bps) * (l.priceMicro < MICRO - l.priceMicro ? l.priceMicro : MICRO - l.priceMicro),
          0n,
        );
        expect(r.fill.feeMicro * 10_000n * MICRO).toBeGreaterThanOrEqual(exact);
        expect((r.fill.feeMicro - 1n) * 10_000n * MICRO).toBeLessThan(exact);
        expect(r.fill.cashMicro).toBe(r.fill.bookCashMicro + r.fill.feeMicro);
      }),
    );
  });
});

/** A side of a book: 1 to 6 levels, strictly worse one after another (asks ascending when `asks`). */
function arbBook(asks = true) {
  return fc
    .array(fc.tuple(fc.integer({ min: 1, max: 40_000 }), fc.bigInt({ min: 1n, max: 500n * MICRO })), { minLength: 1, maxLength: 6 })
    .chain((steps) => fc.integer({ min: 1_000, max: 600_000 }).map((start) => ({ steps, start })))
    .map(({ steps, start }) => {
      let p = BigInt(start);
      return steps
        .map(([step, size]) => {
          const level = { priceMicro: p, sizeMicro: size };
          p = asks ? p + BigInt(step) : p - BigInt(step);
          return level;
        })
        .filter((l) => l.priceMicro > 0n && l.priceMicro < MICRO);
    })
    .filter((ls) => ls.length > 0);
}

describe('walkBook: properties', () => {
  const intents = fc.oneof(
    fc.record({ side: fc.constant<'BUY'>('BUY'), sizedBy: fc.constant<'amount'>('amount'), sizeMicro: fc.bigInt({ min: 1n, max: 2_000n * MICRO }) }),
    fc.record({ side: fc.constant<'BUY'>('BUY'), sizedBy: fc.constant<'shares'>('shares'), sizeMicro: fc.bigInt({ min: 1n, max: 2_000n * MICRO }) }),
  );

  test('the average price lies between the best level and the worst level reached, and the levels taken are the top of the book', () => {
    fc.assert(
      fc.property(arbBook(), intents, fc.boolean(), fc.integer({ min: 0, max: 500 }), (levels, intent, partial, bps) => {
        const r = walkBook(levels, { ...intent, partial }, { rateBps: bps });
        if (r.kind !== 'fill') return;
        const f = r.fill;
        expect(f.bestMicro).toBe(levels[0]!.priceMicro);
        expect(f.priceMicro).toBeGreaterThanOrEqual(f.bestMicro);
        expect(f.priceMicro).toBeLessThanOrEqual(f.worstMicro);
        // Every level before the last one taken is taken whole.
        f.levels.slice(0, -1).forEach((l, i) => expect(l).toEqual({ priceMicro: levels[i]!.priceMicro, sharesMicro: levels[i]!.sizeMicro }));
        expect(f.sharesMicro).toBe(f.levels.reduce((s, l) => s + l.sharesMicro, 0n));
      }),
    );
    fc.assert(
      fc.property(arbBook(false), fc.bigInt({ min: 1n, max: 2_000n * MICRO }), (levels, size) => {
        const r = walkBook(levels, { side: 'SELL', sizedBy: 'shares', sizeMicro: size, partial: true });
        if (r.kind !== 'fill') return;
        expect(r.fill.priceMicro).toBeLessThanOrEqual(r.fill.bestMicro);
        expect(r.fill.priceMicro).toBeGreaterThanOrEqual(r.fill.worstMicro);
      }),
    );
  });

  /** Walks `pieces` one after the other, each on the book less what the ones before took (the consumption memory). */
  function walkSplit(levels: BookLevel[], pieces: WalkIntent[], bps: number): { shares: bigint; cash: bigint } | null {
    let taken = 0n;
    let cash = 0n;
    for (const piece of pieces) {
      const r = walkBook(afterTaken(levels, taken), piece, { rateBps: bps });
      if (r.kind === 'too-small') continue;
      if (r.kind !== 'fill') return null;
      taken += r.fill.sharesMicro;
      cash += r.fill.cashMicro;
    }
    return { shares: taken, cash };
  }

  test('splitting a buy into pieces, each walking what the earlier ones left, never gets a better average than the whole', () => {
    fc.assert(
      fc.property(
        arbBook(),
        fc.constantFrom<'amount' | 'shares'>('amount', 'shares'),
        fc.array(fc.bigInt({ min: 1n, max: 300n * MICRO }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 0, max: 500 }),
        (levels, sizedBy, sizes, bps) => {
          const total = sizes.reduce((a, b) => a + b, 0n);
          const whole = walkBook(levels, { side: 'BUY', sizedBy, sizeMicro: total }, { rateBps: bps });
          const split = walkSplit(
            levels,
            sizes.map((s) => ({ side: 'BUY', sizedBy, sizeMicro: s })),
            bps,
          );
          if (whole.kind !== 'fill' || split === null || split.shares === 0n) return;
          // Average = cash / shares; split's ≥ whole's, cross-multiplied to stay exact.
          expect(split.cash * whole.fill.sharesMicro).toBeGreaterThanOrEqual(whole.fill.cashMicro * split.shares);
          if (sizedBy === 'amount') expect(split.shares).toBeLessThanOrEqual(whole.fill.sharesMicro);
          else expect(split.cash).toBeGreaterThanOrEqual(whole.fill.cashMicro);
        },
      ),
    );
  });

  test('splitting a sale never gets more than the whole, but for the half-up rounding of each piece (under a micro-dollar each)', () => {
    fc.assert(
      fc.property(
        arbBook(false),
        fc.array(fc.bigInt({ min: 1n, max: 300n * MICRO }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 0, max: 500 }),
        (levels, sizes, bps) => {
          const total = sizes.reduce((a, b) => a + b, 0n);
          const whole = walkBook(levels, { side: 'SELL', sizedBy: 'shares', sizeMicro: total }, { rateBps: bps });
          const split = walkSplit(
            levels,
            sizes.map((s) => ({ side: 'SELL', sizedBy: 'shares', sizeMicro: s })),
            bps,
          );
          if (whole.kind !== 'fill' || split === null) return;
          expect(split.shares).toBe(whole.fill.sharesMicro);
          expect(split.cash).toBeLessThanOrEqual(whole.fill.cashMicro + BigInt(sizes.length - 1));
        },
      ),
    );
  });
});
