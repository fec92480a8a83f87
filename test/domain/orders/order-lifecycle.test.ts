import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, resolveMarket, seedMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';

describe.each(backends())('an order ending without a fill on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => t.close());

  test('when a resting sell order holds shares and the market resolves before the orders are swept, settlement cancels it, releases its shares and pays the whole position', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const bought = await t.services.trading.buy(a.id, { marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 }, new Date());
    expect(bought.quantity).toBe(200);
    const order = await t.services.orders.place(a.id, { tokenId: m.yes, side: 'SELL', limitPrice: 0.9, size: 150, timeInForce: 'GTC' }, new Date());
    expect(order).toMatchObject({ state: 'open', reservedShares: 150 });

    // Settlement runs straight after the resolution, with no after-sync sweep of closed markets' orders first.
    await resolveMarket(t.services.db, m.id, 'YES');
    expect(await t.services.settlement.runOnce(new Date())).toBe(1);

    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'cancelled', reason: 'market resolved', reservedShares: 0 });
    const pos = await t.services.db.query<{ is_closed: boolean; reserved_micro: bigint; settled_micro: bigint }>(
      'SELECT is_closed, reserved_micro, settled_micro FROM positions WHERE id = $1',
      [bought.positionId],
    );
    expect(pos[0]).toEqual({ is_closed: true, reserved_micro: 0n, settled_micro: 200_000_000n });
    // 1000 − 100 spent + 200 winning shares at 1 dollar.
    expect(await t.services.accounts.cash(a.id)).toEqual({ balance: 1100, reserved: 0, available: 1100 });
    const events = await t.services.db.query<{ type: string }>('SELECT type FROM account_events WHERE user_id = $1 ORDER BY seq', [a.id]);
    // The order ends first, in the settlement's own transaction: its event comes before the settlement's.
    const types = events.map((e) => e.type);
    expect(types.indexOf('order.cancelled')).toBeGreaterThan(-1);
    expect(types.indexOf('order.cancelled')).toBeLessThan(types.indexOf('settlement'));
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when the market resolves with a resting buy order open, settlement leaves it to the sweep, which cancels it and releases its cash', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.6, 0.6);
    const order = await t.services.orders.place(a.id, { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 300, timeInForce: 'GTC' }, new Date());
    expect(await t.services.accounts.cash(a.id)).toEqual({ balance: 1000, reserved: 300, available: 700 });
    await resolveMarket(t.services.db, m.id, 'NO');
    await t.services.settlement.runOnce(new Date());
    expect((await t.services.orders.get(a.id, order.id)).state).toBe('open');
    expect(await t.services.orders.afterSync(new Date())).toMatchObject({ cancelled: 1 });
    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'cancelled', reason: 'market resolved', reservedCash: 0 });
    expect(await t.services.accounts.cash(a.id)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });
});
