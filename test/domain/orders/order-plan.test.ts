import fc from 'fast-check';
import { planAmend, planPlacement, type AmendedOrder, type NewOrder } from '../../../src/domain/orders/order-plan';
import { copyDepth, sharesShown } from '../../../src/domain/orders/order-rules';
import type { Depth } from '../../../src/domain/trading/price-service';
import { AppError } from '../../../src/errors/app-error';

const M = 1_000_000n;
const book = (asks: Array<[bigint, bigint]>, bids: Array<[bigint, bigint]> = []): Depth => ({
  asks: asks.map(([priceMicro, sizeMicro]) => ({ priceMicro, sizeMicro })),
  bids: bids.map(([priceMicro, sizeMicro]) => ({ priceMicro, sizeMicro })),
});
const buy = (limit: bigint, size: bigint, timeInForce: NewOrder['timeInForce']): NewOrder => ({ side: 'BUY', limitMicro: limit, sizeMicro: size, timeInForce });

describe('the placement plan (pure: the order and the book alone)', () => {
  test('without a price, a GTC or GTD order rests whole; an IOC is cancelled and a FOK rejected, each with its reason', () => {
    expect(planPlacement(buy(500_000n, 100n * M, 'GTC'), null)).toEqual({ kind: 'rest', restMicro: 100n * M });
    expect(planPlacement(buy(500_000n, 100n * M, 'GTD'), null)).toEqual({ kind: 'rest', restMicro: 100n * M });
    expect(planPlacement(buy(500_000n, 100n * M, 'IOC'), null)).toEqual({ kind: 'end', state: 'cancelled', reason: 'IOC: nothing could fill at the limit' });
    expect(planPlacement(buy(500_000n, 100n * M, 'FOK'), null)).toEqual({
      kind: 'end',
      state: 'rejected',
      reason: 'FOK: the order could not fill whole at the limit',
    });
  });

  test('when the ask crosses without published depth, the whole order fills at the ask', () => {
    const plan = planPlacement(buy(600_000n, 100n * M, 'GTC'), { bidMicro: 390_000n, askMicro: 400_000n });
    expect(plan).toEqual({ kind: 'fill', take: { sizeMicro: 100n * M, priceMicro: 400_000n }, left: undefined });
  });

  test('when the book shows 30 shares at 0.40 and 1000 at 0.70 for a 100 dollar buy limited at 0.50: GTC fills 12 dollars and rests 88, IOC cancels the rest, FOK is rejected', () => {
    const depth = book([
      [400_000n, 30n * M],
      [700_000n, 1000n * M],
    ]);
    const quote = { bidMicro: 390_000n, askMicro: 400_000n, depth };
    // 30 shares × 0.40 = 12 dollars, at exactly 0.40 a share; the 0.70 level is beyond the limit.
    const take = { sizeMicro: 12n * M, priceMicro: 400_000n };
    const gtc = planPlacement(buy(500_000n, 100n * M, 'GTC'), quote);
    expect(gtc).toMatchObject({ kind: 'fill-rest', take, restMicro: 88n * M });
    expect(planPlacement(buy(500_000n, 100n * M, 'IOC'), quote)).toMatchObject({
      kind: 'fill-cancel',
      take,
      reason: 'IOC: the rest could not fill at the limit',
    });
    expect(planPlacement(buy(500_000n, 100n * M, 'FOK'), quote)).toMatchObject({ kind: 'end', state: 'rejected' });
    // The plan consumed its own copy: the quote's book still shows every share, and `left` is what the fill leaves.
    expect(depth.asks[0]!.sizeMicro).toBe(30n * M);
    expect(gtc.kind === 'fill-rest' && sharesShown(gtc.left!.asks)).toBe(1000n * M);
  });

  test('when the book shows too little for one micro-share at the limit, nothing fills now and a GTC order rests whole', () => {
    const thin = { bidMicro: 1n, askMicro: 999_999n, depth: book([[999_999n, 1n]]) };
    expect(planPlacement(buy(M, 10n * M, 'GTC'), thin)).toEqual({ kind: 'rest', restMicro: 10n * M });
  });

  test('any plan keeps the sizes whole: what fills plus what rests is the order, a fill never pays above the limit, and the quote is never consumed', () => {
    const level = fc.tuple(fc.bigInt({ min: 1n, max: M }), fc.bigInt({ min: 0n, max: 500n * M }));
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: M }),
        fc.bigInt({ min: 1n, max: 1000n * M }),
        fc.constantFrom('GTC' as const, 'GTD' as const, 'IOC' as const, 'FOK' as const),
        fc.array(level, { maxLength: 4 }),
        (limit, size, tif, levels) => {
          const sorted = [...levels].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
          const depth = book(sorted);
          const shown = copyDepth(depth)!;
          const quote = { bidMicro: 1n, askMicro: sorted[0]?.[0] ?? 0n, depth };
          let plan;
          try {
            plan = planPlacement(buy(limit, size, tif), quote);
          } catch (e) {
            expect(e).toBeInstanceOf(AppError);
            return;
          }
          expect(depth).toEqual(shown);
          const filled = 'take' in plan ? plan.take.sizeMicro : 0n;
          if ('take' in plan) expect(plan.take.priceMicro <= limit).toBe(true);
          if (plan.kind === 'fill') expect(filled).toBe(size);
          if (plan.kind === 'rest' || plan.kind === 'fill-rest') expect(filled + plan.restMicro).toBe(size);
          if (tif === 'FOK') expect(['fill', 'end']).toContain(plan.kind);
          if (tif === 'IOC') expect(['rest', 'fill-rest']).not.toContain(plan.kind);
        },
      ),
    );
  });
});

describe('the amend plan (pure: the order, its new terms and the book)', () => {
  const resting = (over: Partial<AmendedOrder> = {}): AmendedOrder => ({
    side: 'BUY',
    limitMicro: 500_000n,
    sizeMicro: 100n * M,
    filledSizeMicro: 0n,
    timeInForce: 'GTC',
    ...over,
  });
  const quote = { bidMicro: 590_000n, askMicro: 600_000n };

  test('when nothing changes, then there is nothing to do; omitted terms stay as they are', () => {
    expect(planAmend(resting(), {}, quote)).toBeNull();
    expect(planAmend(resting(), { limitMicro: 500_000n, sizeMicro: 100n * M }, quote)).toBeNull();
    expect(planAmend(resting(), { sizeMicro: 150n * M }, quote)).toEqual({
      limitMicro: 500_000n,
      sizeMicro: 150n * M,
      plan: { kind: 'rest', restMicro: 150n * M },
    });
  });

  test('when the order partly filled, then the new size counts the filled part and only the unfilled rest is planned', () => {
    const part = resting({ filledSizeMicro: 18n * M });
    expect(planAmend(part, { sizeMicro: 50n * M }, quote)).toMatchObject({ sizeMicro: 50n * M, plan: { kind: 'rest', restMicro: 32n * M } });
    expect(() => planAmend(part, { sizeMicro: 18n * M }, quote)).toThrow(AppError);
    expect(() => planAmend(part, { sizeMicro: 10n * M }, null)).toThrow(/above the 18 already filled/);
  });

  test('when the new limit crosses, then the rest fills as a new order of that size would, whole without depth and no more than the book shows with it', () => {
    expect(planAmend(resting({ filledSizeMicro: 10n * M }), { limitMicro: 650_000n }, quote)).toEqual({
      limitMicro: 650_000n,
      sizeMicro: 100n * M,
      plan: { kind: 'fill', take: { sizeMicro: 90n * M, priceMicro: 600_000n }, left: undefined },
    });
    const depth = book([[600_000n, 50n * M]]);
    expect(planAmend(resting(), { limitMicro: 650_000n }, { ...quote, depth })).toMatchObject({
      plan: { kind: 'fill-rest', take: { sizeMicro: 30n * M, priceMicro: 600_000n }, restMicro: 70n * M },
    });
    const sell = resting({ side: 'SELL', limitMicro: 700_000n, sizeMicro: 40n * M });
    expect(planAmend(sell, { limitMicro: 580_000n }, quote)).toMatchObject({ plan: { kind: 'fill', take: { sizeMicro: 40n * M, priceMicro: 590_000n } } });
  });

  test('any amend of a resting order: its plan fills and rests exactly the new unfilled rest, never at a price worse than the new limit', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: M }),
        fc.bigInt({ min: 1n, max: 1000n * M }),
        fc.bigInt({ min: 0n, max: 1000n * M }),
        fc.bigInt({ min: 1n, max: M }),
        fc.bigInt({ min: 1n, max: 1000n * M }),
        fc.constantFrom('BUY' as const, 'SELL' as const),
        (limit, size, filled, newLimit, newSize, side) => {
          const o = resting({ side, limitMicro: limit, sizeMicro: size + filled, filledSizeMicro: filled });
          let amend;
          try {
            amend = planAmend(o, { limitMicro: newLimit, sizeMicro: newSize }, quote);
          } catch (e) {
            expect(e).toBeInstanceOf(AppError);
            expect(newSize <= filled || side === 'BUY').toBe(true);
            return;
          }
          if (amend === null) return expect([newLimit, newSize]).toEqual([limit, size + filled]);
          const rest = newSize - filled;
          const plan = amend.plan;
          const taken = 'take' in plan ? plan.take.sizeMicro : 0n;
          if ('take' in plan) expect(side === 'BUY' ? plan.take.priceMicro <= newLimit : plan.take.priceMicro >= newLimit).toBe(true);
          if (plan.kind === 'rest' || plan.kind === 'fill-rest') expect(taken + plan.restMicro).toBe(rest);
          else expect(plan.kind === 'fill' && taken === rest).toBe(true);
        },
      ),
    );
  });
});
