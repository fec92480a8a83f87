import { describeOnPostgres } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, seedMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { AppError } from '../../../src/errors/app-error';

// PGlite runs transactions one at a time, so races only exist on PostgreSQL.
describeOnPostgres('concurrent orders on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend as never, { prices });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  test('when a price-change fill and a cancel of the same resting order race, then exactly one wins and the reservation leaves once', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.62);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000, price_at = now() WHERE token_id = $1`, [
      m.yes,
    ]);
    const { orders } = t.services;
    let fills = 0;
    let cancels = 0;
    for (let i = 0; i < 20; i += 1) {
      const o = await orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, timeInForce: 'GTC' }, new Date());
      // The book moves through the limit; the fill and the owner's cancel arrive together.
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 480000, ask_micro = 500000, price_micro = 490000 WHERE token_id = $1`, [m.yes]);
      const [filled, cancelled] = await Promise.allSettled([orders.fillResting(o.id, new Date()), orders.cancel(a.id, o.id, new Date())]);
      expect(filled.status).toBe('fulfilled');
      const didFill = filled.status === 'fulfilled' && filled.value;
      const didCancel = cancelled.status === 'fulfilled';
      if (!didCancel) expect((cancelled as PromiseRejectedResult).reason).toMatchObject({ code: 'CONFLICT' } satisfies Partial<AppError>);
      expect(Number(didFill) + Number(didCancel)).toBe(1);
      const final = await orders.get(a.id, o.id);
      expect(final.state).toBe(didFill ? 'filled' : 'cancelled');
      expect(final.reservedCash).toBe(0);
      if (didFill) fills += 1;
      else cancels += 1;
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000 WHERE token_id = $1`, [m.yes]);
    }
    const cash = await t.services.accounts.cash(a.id);
    expect(cash.reserved).toBe(0);
    expect(cash.balance).toBe(1000 - 10 * fills);
    expect(fills + cancels).toBe(20);
  });

  test('when a partial fill from a price change and a cancel race, then the fill takes its part or nothing and the cancel releases exactly the rest', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.62);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000, price_at = now() WHERE token_id = $1`, [
      m.yes,
    ]);
    const { orders, priceChanges } = t.services;
    let spent = 0;
    for (let i = 0; i < 20; i += 1) {
      const o = await orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, timeInForce: 'GTC' }, new Date());
      // A book with $4 at 0.50 (8 shares), fresh each round so it is a new book.
      prices.book(m.yes, [[0.48, 10]], [[0.5, 8 + i / 1000]]);
      const change = [{ tokenId: m.yes, bidMicro: 480_000n, askMicro: 500_000n, asOf: new Date(), source: 'polymarket' as const }];
      const [, cancelled] = await Promise.allSettled([priceChanges.emit(change), orders.cancel(a.id, o.id, new Date())]);
      expect(cancelled.status).toBe('fulfilled'); // a partial fill leaves the order open: the cancel always finds it
      const final = await orders.get(a.id, o.id);
      expect(final.state).toBe('cancelled');
      expect(final.reservedCash).toBe(0);
      expect([0, 4 + Math.round((i / 1000) * 0.5 * 1e6) / 1e6]).toContain(final.filledCash);
      spent += final.filledCash;
      prices.set(m.yes, 0.6, 0.62);
    }
    const cash = await t.services.accounts.cash(a.id);
    expect(cash.reserved).toBe(0);
    expect(cash.balance).toBeCloseTo(1000 - spent, 6);
  });

  test('when one change crosses several orders and their owners cancel meanwhile, then each order is filled or cancelled, never both', async () => {
    const owners = await Promise.all([0, 1, 2, 3].map(() => registerAgent(t)));
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.62);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000, price_at = now() WHERE token_id = $1`, [
      m.yes,
    ]);
    const { orders, priceChanges } = t.services;
    for (let round = 0; round < 10; round += 1) {
      const placed = await Promise.all(
        owners.map((o) => orders.place(o.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, timeInForce: 'GTC' }, new Date())),
      );
      const change = [{ tokenId: m.yes, bidMicro: 480_000n, askMicro: 500_000n, asOf: new Date(), source: 'simulated' as const }];
      const cancels = placed.filter((_, i) => i % 2 === round % 2).map((p, i) => orders.cancel(owners[(round % 2) + 2 * i]!.id, p.id, new Date()));
      const results = await Promise.allSettled([priceChanges.emit(change), ...cancels]);
      for (const r of results.slice(1)) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'CONFLICT' });
      for (const [i, p] of placed.entries()) {
        const final = await orders.get(owners[i]!.id, p.id);
        expect(['filled', 'cancelled']).toContain(final.state);
        expect(final.reservedCash).toBe(0);
        expect(final.filledCash).toBe(final.state === 'filled' ? 10 : 0);
      }
    }
    for (const o of owners) {
      const cash = await t.services.accounts.cash(o.id);
      const filled = (await orders.list(o.id, { state: 'filled', limit: 100 })).orders.length;
      expect(cash).toMatchObject({ reserved: 0, balance: 1000 - 10 * filled });
    }
  });
  test('when a price-change fill and an amend of the same resting order race, then the fill sees the old terms or the new, never a mix, and the reservation stays exact', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.62);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000, price_at = now() WHERE token_id = $1`, [
      m.yes,
    ]);
    const { orders } = t.services;
    for (let i = 0; i < 20; i += 1) {
      const o = await orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, timeInForce: 'GTC' }, new Date());
      // The book moves through the limit (0.50); at the same moment the owner amends to 20 dollars, half of the rounds
      // also lowering the limit below the new ask so the amended order no longer crosses.
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 480000, ask_micro = 500000, price_micro = 490000 WHERE token_id = $1`, [m.yes]);
      prices.set(m.yes, 0.48, 0.5);
      const lower = i % 2 === 0;
      const [filled, amended] = await Promise.allSettled([
        orders.fillResting(o.id, new Date()),
        orders.replace(a.id, o.id, { size: 20, ...(lower ? { limitPrice: 0.45 } : {}) }, new Date()),
      ]);
      expect(filled.status).toBe('fulfilled');
      const didFill = filled.status === 'fulfilled' && filled.value;
      if (amended.status === 'rejected') expect(amended.reason).toMatchObject({ code: 'CONFLICT' } satisfies Partial<AppError>);
      const final = await orders.get(a.id, o.id);
      if (amended.status === 'rejected') {
        // The fill came first and took the old order whole.
        expect(didFill).toBe(true);
        expect(final).toMatchObject({ state: 'filled', size: 10, filledCash: 10, reservedCash: 0 });
      } else if (lower) {
        // The amend came first: 0.45 no longer crosses, so the order rests whole at its new terms.
        expect(final).toMatchObject({ state: 'open', size: 20, limitPrice: 0.45, filledCash: 0, reservedCash: 20 });
      } else {
        // The amend came first and crossed: it filled as a new order would (or the fill did, at the new size).
        expect(final).toMatchObject({ state: 'filled', size: 20, filledCash: 20, reservedCash: 0 });
      }
      await orders.cancelAll(a.id, new Date());
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 620000, price_micro = 610000 WHERE token_id = $1`, [m.yes]);
      prices.set(m.yes, 0.6, 0.62);
    }
    const cash = await t.services.accounts.cash(a.id);
    expect(cash.reserved).toBe(0);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
  test('when a resting sell fills from a price change while its owner closes the position, then the shares leave once: by the fill or by the close', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    const { orders, trading } = t.services;
    for (let i = 0; i < 10; i += 1) {
      prices.set(m.yes, 0.5, 0.5);
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 500000, ask_micro = 500000, price_micro = 500000, price_at = now() WHERE token_id = $1`, [
        m.yes,
      ]);
      // 20 shares for $10, 12 of them offered at 0.60.
      const bought = await trading.buy(a.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 }, new Date());
      const o = await orders.place(a.id, { tokenId: m.yes, side: 'SELL', limitPrice: 0.6, size: 12, timeInForce: 'GTC' }, new Date());
      await t.services.db.query(`UPDATE market_tokens SET bid_micro = 600000, ask_micro = 610000, price_micro = 605000 WHERE token_id = $1`, [m.yes]);
      prices.set(m.yes, 0.6, 0.61);
      const [filled, closed] = await Promise.allSettled([orders.fillResting(o.id, new Date()), trading.close(a.id, bought.positionId, new Date())]);
      expect(filled.status).toBe('fulfilled');
      expect(closed.status).toBe('fulfilled');
      const final = await orders.get(a.id, o.id);
      const didFill = filled.status === 'fulfilled' && filled.value;
      expect(final.state).toBe(didFill ? 'filled' : 'cancelled');
      expect(final.reservedShares).toBe(0);
      const sold = closed.status === 'fulfilled' ? closed.value.quantitySold : 0;
      // Whichever came first, the 20 shares left exactly once: 12 by the fill and 8 by the close, or 20 by the close.
      expect(sold).toBe(didFill ? 8 : 20);
      const pos = await t.services.db.query<{ q: bigint; r: bigint; closed: boolean }>(
        'SELECT quantity_micro AS q, reserved_micro AS r, is_closed AS closed FROM positions WHERE id = $1',
        [bought.positionId],
      );
      expect(pos[0]).toEqual({ q: 0n, r: 0n, closed: true });
    }
    const cash = await t.services.accounts.cash(a.id);
    expect(cash.reserved).toBe(0);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
});
