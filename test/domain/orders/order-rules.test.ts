import fc from 'fast-check';
import { afterTaken, copyDepth, crossingPrice, onPlacement, sharesShown, take } from '../../../src/domain/orders/order-rules';

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
    for (const tif of ['GTC', 'GTD', 'IOC', 'FOK'] as const) expect(onPlacement(tif, 10n, 10n)).toBe('fill');
    expect([onPlacement('GTC', 0n, 10n), onPlacement('GTD', 0n, 10n), onPlacement('IOC', 0n, 10n), onPlacement('FOK', 0n, 10n)]).toEqual([
      'rest',
      'rest',
      'cancel',
      'reject',
    ]);
  });

  test('when only part can fill, then GTC and GTD fill it and rest the rest, IOC cancels the rest, FOK is rejected', () => {
    expect([onPlacement('GTC', 4n, 10n), onPlacement('GTD', 4n, 10n), onPlacement('IOC', 4n, 10n), onPlacement('FOK', 4n, 10n)]).toEqual([
      'fill-rest',
      'fill-rest',
      'fill-cancel',
      'reject',
    ]);
  });

  test('without depth the whole remainder fills at the crossing price', () => {
    expect(take('BUY', 500_000n, 100_000_000n, { bidMicro: 380_000n, askMicro: 400_000n })).toEqual({ sizeMicro: 100_000_000n, priceMicro: 400_000n });
    expect(take('SELL', 500_000n, 7_000_000n, { bidMicro: 380_000n, askMicro: 400_000n })).toBeNull();
  });

  test('with depth a buy takes only the levels at or better than its limit, at their average price, and consumes them', () => {
    const depth = {
      bids: [],
      asks: [
        { priceMicro: 400_000n, sizeMicro: 10_000_000n }, // 10 shares = $4
        { priceMicro: 450_000n, sizeMicro: 20_000_000n }, // 20 shares = $9
        { priceMicro: 600_000n, sizeMicro: 1_000_000_000n }, // beyond the limit
      ],
    };
    const t = take('BUY', 500_000n, 100_000_000n, { bidMicro: 380_000n, askMicro: 400_000n, depth })!;
    expect(t.sizeMicro).toBe(13_000_000n);
    expect(t.priceMicro).toBe(433_334n); // $13 / 30 shares, rounded up
    expect(depth.asks.map((l) => l.sizeMicro)).toEqual([0n, 0n, 1_000_000_000n]);
    // The book is spent: a second order from the same change finds nothing at its limit.
    expect(take('BUY', 500_000n, 1_000_000n, { bidMicro: 380_000n, askMicro: 400_000n, depth })).toBeNull();
  });

  test('with depth a sell takes no more shares than the bids at or above its limit show', () => {
    const depth = {
      bids: [
        { priceMicro: 700_000n, sizeMicro: 5_000_000n },
        { priceMicro: 650_000n, sizeMicro: 5_000_000n },
        { priceMicro: 500_000n, sizeMicro: 50_000_000n },
      ],
      asks: [],
    };
    expect(take('SELL', 600_000n, 20_000_000n, { bidMicro: 700_000n, askMicro: 720_000n, depth })).toEqual({ sizeMicro: 10_000_000n, priceMicro: 675_000n });
  });

  test('with any book, a fill is never worse than the limit nor larger than the order', () => {
    const level = fc.record({ priceMicro: fc.bigInt({ min: 1n, max: 999_999n }), sizeMicro: fc.bigInt({ min: 0n, max: 10_000_000_000n }) });
    fc.assert(
      fc.property(
        fc.constantFrom('BUY' as const, 'SELL' as const),
        micro,
        fc.bigInt({ min: 1n, max: 1_000_000_000n }),
        fc.array(level, { maxLength: 6 }),
        (side, limit, size, raw) => {
          const levels = [...raw].sort((a, b) => (side === 'BUY' ? Number(a.priceMicro - b.priceMicro) : Number(b.priceMicro - a.priceMicro)));
          const best = levels[0]?.priceMicro ?? 0n;
          const depth = side === 'BUY' ? { bids: [], asks: levels } : { bids: levels, asks: [] };
          const t = take(side, limit, size, { bidMicro: best, askMicro: best, depth });
          if (t === null) return;
          expect(t.sizeMicro).toBeGreaterThan(0n);
          expect(t.sizeMicro <= size).toBe(true);
          expect(side === 'BUY' ? t.priceMicro <= limit : t.priceMicro >= limit).toBe(true);
        },
      ),
    );
  });

  test('any run of takes leaves the book as afterTaken() rebuilds it from the shares taken per side (what the DB records)', () => {
    const level = fc.record({ priceMicro: fc.bigInt({ min: 1n, max: 999_999n }), sizeMicro: fc.bigInt({ min: 1n, max: 50_000_000n }) });
    const sideOf = (dir: 1n | -1n) =>
      fc.array(level, { maxLength: 5 }).map((ls) => {
        const byPrice = new Map(ls.map((l) => [l.priceMicro, l]));
        return [...byPrice.values()].sort((a, b) => (a.priceMicro < b.priceMicro ? -Number(dir) : a.priceMicro > b.priceMicro ? Number(dir) : 0));
      });
    const order = fc.record({ side: fc.constantFrom('BUY' as const, 'SELL' as const), limit: micro, size: fc.bigInt({ min: 1n, max: 30_000_000n }) });
    fc.assert(
      fc.property(sideOf(-1n), sideOf(1n), fc.array(order, { maxLength: 8 }), (bids, asks, orders) => {
        const shown = { bids, asks };
        const book = copyDepth(shown)!;
        for (const o of orders) {
          take(o.side, o.limit, o.size, { bidMicro: book.bids[0]?.priceMicro ?? 0n, askMicro: book.asks[0]?.priceMicro ?? 0n, depth: book });
          const rebuilt = afterTaken(shown, sharesShown(shown.bids) - sharesShown(book.bids), sharesShown(shown.asks) - sharesShown(book.asks));
          expect(rebuilt).toEqual(book);
        }
      }),
    );
  });
});
