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
});
