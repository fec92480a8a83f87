import fc from 'fast-check';
import { buyCost, openPool, prices, pricesMicro, sellProceeds, sharesForAmount, type Pool } from '../../../src/domain/community/lmsr';

const MICRO = 1_000_000n;

/** A random walk of buys and sells against one pool, with the pool's books kept the way the service keeps them. */
const step = fc.record({
  buy: fc.boolean(),
  outcome: fc.nat(9),
  amount: fc.bigInt({ min: 1n, max: 5_000n * MICRO }),
  fraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
});

const setup = fc.record({
  n: fc.integer({ min: 2, max: 10 }),
  subsidy: fc.bigInt({ min: 50n * MICRO, max: 10_000n * MICRO }),
  skew: fc.option(fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 10, maxLength: 10 }), { nil: undefined }),
});

function open(n: number, subsidy: bigint, skew?: number[]): { pool: Pool; offsets: bigint[] } {
  const opening = skew ? skew.slice(0, n).map((w, _i, all) => w / all.reduce((a, x) => a + x, 0)) : undefined;
  const pool = openPool(subsidy, n, opening);
  return { pool, offsets: pool.q.slice() };
}

describe('LMSR in micro-units', () => {
  test('when any sequence of buys and sells runs, the pool cash always covers what it owes the holders of any one outcome', () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 60 }), ({ n, subsidy, skew }, steps) => {
        const { pool, offsets } = open(n, subsidy, skew);
        let cash = subsidy;
        for (const s of steps) {
          const i = s.outcome % n;
          const held = pool.q[i]! - offsets[i]!;
          if (s.buy) {
            const shares = sharesForAmount(pool, i, s.amount);
            if (shares === 0n) continue;
            expect(buyCost(pool, i, shares)).toBeLessThanOrEqual(s.amount);
            cash += s.amount; // the buyer pays the whole amount
            pool.q[i] = pool.q[i]! + shares;
          } else if (held > 0n) {
            const shares = BigInt(Math.max(1, Math.floor(Number(held) * s.fraction)));
            cash -= sellProceeds(pool, i, shares);
            pool.q[i] = pool.q[i]! - shares;
          }
          for (let j = 0; j < n; j += 1) expect(cash).toBeGreaterThanOrEqual(pool.q[j]! - offsets[j]!);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('prices always sum to 1 within 1e-6, and the micro prices to exactly 1,000,000', () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 30 }), ({ n, subsidy, skew }, steps) => {
        const { pool } = open(n, subsidy, skew);
        for (const s of steps) {
          const i = s.outcome % n;
          if (s.buy) pool.q[i] = pool.q[i]! + sharesForAmount(pool, i, s.amount);
          const sum = prices(pool).reduce((a, x) => a + x, 0);
          expect(Math.abs(sum - 1)).toBeLessThanOrEqual(1e-6);
          expect(pricesMicro(pool).reduce((a, x) => a + x, 0n)).toBe(MICRO);
        }
      }),
    );
  });

  test('buying shares and selling the same shares back never returns more than the buy cost', () => {
    fc.assert(
      fc.property(
        setup,
        fc.array(step, { maxLength: 20 }),
        fc.bigInt({ min: 1n, max: 10_000n * MICRO }),
        fc.nat(9),
        ({ n, subsidy, skew }, steps, amount, o) => {
          const { pool } = open(n, subsidy, skew);
          for (const s of steps) if (s.buy) pool.q[s.outcome % n] = pool.q[s.outcome % n]! + sharesForAmount(pool, s.outcome % n, s.amount);
          const i = o % n;
          const shares = sharesForAmount(pool, i, amount);
          const cost = buyCost(pool, i, shares);
          pool.q[i] = pool.q[i]! + shares;
          expect(sellProceeds(pool, i, shares)).toBeLessThanOrEqual(cost);
          expect(cost).toBeLessThanOrEqual(amount);
        },
      ),
    );
  });

  test('a buy gets the most shares its amount pays for: one micro-share more would cost more than the amount', () => {
    fc.assert(
      fc.property(setup, fc.bigInt({ min: 1n, max: 100_000n * MICRO }), fc.nat(9), ({ n, subsidy, skew }, amount, o) => {
        const { pool } = open(n, subsidy, skew);
        const i = o % n;
        const shares = sharesForAmount(pool, i, amount);
        expect(buyCost(pool, i, shares)).toBeLessThanOrEqual(amount);
        expect(buyCost(pool, i, shares + 1n)).toBeGreaterThan(amount);
      }),
    );
  });

  test('the liquidity parameter keeps the worst-case loss b·ln(n) within the subsidy, and a uniform pool opens at 1/n', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10 }), fc.bigInt({ min: 50n * MICRO, max: 1_000_000n * MICRO }), (n, subsidy) => {
        const pool = openPool(subsidy, n);
        expect(Number(pool.b) * Math.log(n)).toBeLessThanOrEqual(Number(subsidy));
        for (const p of prices(pool)) expect(Math.abs(p - 1 / n)).toBeLessThan(1e-12);
      }),
    );
  });

  test('opening probabilities are the opening prices', () => {
    const pool = openPool(100n * MICRO, 3, [0.5, 0.3, 0.2]);
    const p = prices(pool);
    expect(p[0]).toBeCloseTo(0.5, 5);
    expect(p[1]).toBeCloseTo(0.3, 5);
    expect(p[2]).toBeCloseTo(0.2, 5);
  });
});
