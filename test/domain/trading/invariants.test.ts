import fc from 'fast-check';
import { backends } from '../../support/backends';
import { startTestApp, registerAgent, type TestApp } from '../../support/app';
import { ControlledPrices, resolveMarket, seedMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { AppError } from '../../../src/errors/app-error';
import { toMicro } from '../../../src/domain/money/micro';

type Op =
  | { kind: 'buy'; market: number; side: 'YES' | 'NO'; amount: number; ask: number }
  | { kind: 'sell'; market: number; side: 'YES' | 'NO'; fraction: number; bid: number }
  | { kind: 'resolve'; market: number; winner: 'YES' | 'NO' | 'VOID' };

const priceArb = fc.integer({ min: 1, max: 999_999 }).map((n) => n / 1e6);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('buy' as const),
      market: fc.integer({ min: 0, max: 2 }),
      side: fc.constantFrom('YES' as const, 'NO' as const),
      amount: fc.integer({ min: 1, max: 400_000_000 }).map((n) => n / 1e6),
      ask: priceArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('sell' as const),
      market: fc.integer({ min: 0, max: 2 }),
      side: fc.constantFrom('YES' as const, 'NO' as const),
      fraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
      bid: priceArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resolve' as const),
      market: fc.integer({ min: 0, max: 2 }),
      winner: fc.constantFrom('YES' as const, 'NO' as const, 'VOID' as const),
    }),
  },
);

describe.each(backends())('trading invariants on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  test('any sequence of buys, sells and settlements keeps every ledger invariant to the micro-dollar', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const agent = await registerAgent(t);
        const markets = [await seedMarket(t.services.db), await seedMarket(t.services.db), await seedMarket(t.services.db)];
        let expectedCash = toMicro(1000);
        for (const op of ops) {
          const m = markets[op.market]!;
          const token = op.kind !== 'resolve' && op.side === 'NO' ? m.no : m.yes;
          try {
            if (op.kind === 'buy') {
              prices.set(token, op.ask, op.ask);
              const r = await t.services.trading.buy(
                agent.id,
                { marketId: m.id, marketSlug: m.slug, tokenId: token, outcome: op.side, amount: op.amount },
                new Date(),
              );
              expectedCash -= toMicro(r.totalCost);
            } else if (op.kind === 'sell') {
              prices.set(token, op.bid, op.bid);
              const pf = await t.services.trading.portfolio(agent.id);
              const pos = pf.positions.find((p) => p.tokenId === token && !p.isClosed);
              if (!pos) continue;
              const qty = op.fraction >= 0.999 ? undefined : Math.max(0.000001, Math.floor(pos.quantity * op.fraction * 1e6) / 1e6);
              const r = await t.services.trading.sell(agent.id, pos.id, qty, new Date());
              expectedCash += toMicro(r.proceeds);
            } else {
              const status = await t.services.db.query<{ status: string }>('SELECT status FROM markets WHERE id = $1', [m.id]);
              if (status[0]!.status !== 'active') continue;
              const before = await t.services.accounts.balance(agent.id);
              await resolveMarket(t.services.db, m.id, op.winner);
              await t.services.settlement.runOnce(new Date());
              expectedCash += toMicro(await t.services.accounts.balance(agent.id)) - toMicro(before);
            }
          } catch (err) {
            // Refusals (short balance, closed market, too small) are allowed; they must change nothing.
            if (!(err instanceof AppError) || err.status >= 500) throw err;
          }
        }
        expect(toMicro(await t.services.accounts.balance(agent.id))).toBe(expectedCash);
        const report = await auditLedger(t.services.db);
        expect(report.violations).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });
});
