import fc from 'fast-check';
import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { AppError } from '../../../src/errors/app-error';
import { toMicro } from '../../../src/domain/money/micro';

/** Each order with what the ledger says it holds (its pending transfers less posts and voids), as cash of a BUY or shares of a SELL. */
const HELD_ORDERS = `(SELECT o.*, CASE WHEN o.side = 'BUY' THEN (SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = o.id) ELSE 0 END AS reserved_cash_micro, CASE WHEN o.side = 'SELL' THEN (SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = o.id) ELSE 0 END AS reserved_shares_micro FROM orders o)`;

type Op =
  | { kind: 'place'; side: 'BUY' | 'SELL'; byShares: boolean; token: 0 | 1; limit: number; size: number; tif: 'GTC' | 'GTD' | 'IOC' | 'FOK'; ttlS: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'replace'; pick: number; limit: number | null; size: number | null }
  | { kind: 'price'; token: 0 | 1; bid: number; spread: number; via: 'sync' | 'change'; depth: number | null }
  | { kind: 'trade'; token: 0 | 1; amount: number }
  | { kind: 'time'; s: number }
  | { kind: 'close' }
  | { kind: 'resolve' };

const cents = (lo: number, hi: number) => fc.integer({ min: lo, max: hi }).map((n) => n / 100);
const token = fc.constantFrom(0 as const, 1 as const);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      byShares: fc.boolean(), // a BUY sized by shares rather than amount
      token,
      limit: cents(1, 99),
      size: fc.integer({ min: 1, max: 400_000_000 }).map((n) => n / 1e6),
      tif: fc.constantFrom('GTC' as const, 'GTD' as const, 'IOC' as const, 'FOK' as const),
      ttlS: fc.integer({ min: 1, max: 120 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      pick: fc.nat(),
      limit: fc.option(cents(1, 99), { nil: null }),
      size: fc.option(
        fc.integer({ min: 1, max: 400_000_000 }).map((n) => n / 1e6),
        { nil: null },
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('price' as const),
      token,
      bid: cents(1, 97),
      spread: cents(0, 2),
      // A sync batch (afterSync's sweep) or a single price change; a change may carry a book showing `depth` shares a side.
      via: fc.constantFrom('sync' as const, 'change' as const),
      depth: fc.option(fc.integer({ min: 1, max: 300 }), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('trade' as const), token, amount: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('time' as const), s: fc.integer({ min: 1, max: 90 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'close' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resolve' as const }) },
);

describe.each(backends())('order invariants on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const quote = (tokenId: string, bid: number, ask: number, at: number) => moveQuote(t.services.db, prices, tokenId, bid, ask, new Date(at));

  test('any sequence of place, cancel, amend, price change, trade, close, expiry and resolution keeps available >= 0, each reservation released once, the audit green', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 20 }), async (ops) => {
        const agent = await registerAgent(t);
        const m: SeededMarket = await seedMarket(t.services.db);
        const tokens = [m.yes, m.no];
        let now = Date.now();
        await quote(m.yes, 0.5, 0.51, now);
        await quote(m.no, 0.48, 0.49, now);
        let resolved = false;
        const placed: string[] = [];
        const { orders, trading } = t.services;
        for (const op of ops) {
          try {
            if (op.kind === 'place') {
              const o = await orders.place(
                agent.id,
                {
                  tokenId: tokens[op.token]!,
                  side: op.side,
                  ...(op.side === 'BUY' && op.byShares ? { sizedBy: 'shares' as const } : {}),
                  limitPrice: op.limit,
                  size: op.size,
                  timeInForce: op.tif,
                  ...(op.tif === 'GTD' ? { expiresAt: new Date(now + op.ttlS * 1000).toISOString() } : {}),
                },
                new Date(now),
              );
              placed.push(o.id);
            } else if (op.kind === 'cancel' && placed.length) {
              await orders.cancel(agent.id, placed[op.pick % placed.length]!, new Date(now));
            } else if (op.kind === 'replace' && placed.length) {
              const change = { ...(op.limit === null ? {} : { limitPrice: op.limit }), ...(op.size === null ? {} : { size: op.size }) };
              await orders.replace(agent.id, placed[op.pick % placed.length]!, change, new Date(now));
            } else if (op.kind === 'price') {
              const ask = Math.min(op.bid + op.spread, 0.99);
              await quote(tokens[op.token]!, op.bid, ask, now);
              if (op.via === 'sync') await orders.afterSync(new Date(now));
              else {
                const level = (p: number) => [{ priceMicro: toMicro(p), sizeMicro: toMicro(op.depth ?? 0) }];
                await t.services.priceChanges.emit([
                  {
                    tokenId: tokens[op.token]!,
                    bidMicro: toMicro(op.bid),
                    askMicro: toMicro(ask),
                    asOf: new Date(now),
                    source: op.depth === null ? 'simulated' : 'polymarket',
                    ...(op.depth === null ? {} : { depth: { bids: level(op.bid), asks: level(ask) } }),
                  },
                ]);
              }
            } else if (op.kind === 'trade') {
              await trading.buy(
                agent.id,
                { marketId: m.id, marketSlug: m.slug, tokenId: tokens[op.token]!, outcome: op.token === 0 ? 'YES' : 'NO', amount: op.amount },
                new Date(now),
              );
            } else if (op.kind === 'close') {
              // close_position's path: each open position sold whole, its resting sells cancelled in the same step.
              for (const p of await trading.openPositions(agent.id)) {
                try {
                  await trading.close(agent.id, p.id, new Date(now));
                } catch (err) {
                  if (!(err instanceof AppError) || err.status >= 500) throw err;
                }
              }
            } else if (op.kind === 'time') {
              now += op.s * 1000;
              await orders.afterSync(new Date(now));
            } else if (op.kind === 'resolve' && !resolved) {
              resolved = true;
              await resolveMarket(t.services.db, m.id, 'YES');
              await orders.afterSync(new Date(now));
              await t.services.settlement.runOnce(new Date(now));
            }
          } catch (err) {
            // Refusals (short cash or shares, closed market, not open) are expected; anything else is a defect.
            if (!(err instanceof AppError) || err.status >= 500) throw err;
          }
          const cash = await t.services.accounts.cash(agent.id);
          expect(cash.available).toBeGreaterThanOrEqual(0);
          expect(toMicro(cash.reserved) + toMicro(cash.available)).toBe(toMicro(cash.balance));
          const short = await t.services.db.query<{ n: bigint }>(
            'SELECT count(*) AS n FROM positions WHERE user_id = $1 AND (quantity_micro - reserved_micro < 0 OR reserved_micro < 0)',
            [agent.id],
          );
          expect(short[0]!.n).toBe(0n); // no position's available shares below zero
          // Reserved cash is the sum of what the open orders hold by the ledger (pending transfers less posts and voids),
          // each exactly the reservation of its unfilled size: the size itself, or for a BUY sized by shares its unfilled
          // shares × limit rounded up.
          const held = await t.services.db.query<{ sum: bigint; bad: bigint }>(
            `SELECT coalesce(sum(reserved_cash_micro), 0)::bigint AS sum,
               count(*) FILTER (WHERE CASE WHEN side = 'SELL' THEN reserved_shares_micro <> size_micro - filled_size_micro
                 WHEN sized_by = 'amount' THEN reserved_cash_micro <> size_micro - filled_size_micro
                 ELSE reserved_cash_micro <> ceil((size_micro - filled_size_micro)::numeric * limit_price_micro / 1000000)::bigint END) AS bad
             FROM ${HELD_ORDERS} o WHERE user_id = $1 AND state IN ('open', 'partially_filled')`,
            [agent.id],
          );
          expect(toMicro(cash.reserved)).toBe(held[0]!.sum);
          expect(held[0]!.bad).toBe(0n);
        }
        // Every order that left the open states holds nothing; the open ones hold exactly what the account and positions reserve.
        const held = await t.services.db.query<{ n: bigint }>(
          `SELECT count(*) AS n FROM ${HELD_ORDERS} o WHERE user_id = $1 AND state NOT IN ('open', 'partially_filled') AND (reserved_cash_micro <> 0 OR reserved_shares_micro <> 0)`,
          [agent.id],
        );
        expect(held[0]!.n).toBe(0n);
        const report = await auditLedger(t.services.db);
        expect(report.violations).toEqual([]);
        // Each order's log: accepted once, first; at most one ending (filled, cancelled, expired, rejected), last, and
        // exactly one once it left the open states — its reservation left once.
        const log = await t.services.events.after(agent.id, 0n, 1000);
        const byOrder = new Map<string, string[]>();
        for (const e of log) {
          const id = e.type.startsWith('order.') ? (e.data as { id: string }).id : undefined;
          if (id) byOrder.set(id, [...(byOrder.get(id) ?? []), e.type]);
        }
        const states = await t.services.db.query<{ id: string; state: string }>('SELECT id, state FROM orders WHERE user_id = $1', [agent.id]);
        for (const { id, state } of states) {
          const seen = byOrder.get(id) ?? [];
          expect(seen[0]).toBe('order.accepted');
          const endings = seen.filter((x) => ['order.filled', 'order.cancelled', 'order.expired', 'order.rejected'].includes(x));
          expect(endings.length).toBe(state === 'open' || state === 'partially_filled' ? 0 : 1);
          if (endings.length) expect(seen[seen.length - 1]).toBe(endings[0]);
        }
      }),
      { numRuns: backend.name === 'pglite' ? 25 : 15 },
    );
  });
});
