import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { toMicro } from '../../src/domain/money/micro';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('order events, idempotency, expiry and price changes on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    // No background sync: the only price changes are the ones each test makes.
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await quote(m.yes, 0.6, 0.625);
    await quote(m.no, 0.37, 0.4);
  });

  const quote = (token: string, bid: number, ask: number) => moveQuote(t.services.db, prices, token, bid, ask);
  const place = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.api
      .post('/api/orders')
      .set({ ...bearer(key), ...headers })
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  // After seq 1, the registration grant's balance event; notifications (first-trade badges) are not the orders' concern.
  const events = async (userId: string) => (await t.services.events.after(userId, 1n, 100)).filter((e) => e.type !== 'notification');
  const types = async (userId: string) => (await events(userId)).map((e) => e.type);
  /** A price change as the service sees one (a sync's changed token or a live quote that moved). */
  const priceChange = (tokenId: string, bid: number, ask: number) =>
    t.services.priceChanges.emit([{ tokenId, bidMicro: toMicro(bid), askMicro: toMicro(ask), asOf: new Date(), source: 'simulated' }]);

  test('when a buy rests and is cancelled, then order.accepted, balance, order.cancelled, balance are appended with the order as get_order shows it', async () => {
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    await t.api.post(`/api/orders/${order.id}/cancel`).set(bearer(a.apiKey)).expect(200);
    const log = await events(a.id);
    expect(log.map((e) => e.type)).toEqual(['order.accepted', 'balance', 'order.cancelled', 'balance']);
    expect(log[0]!.data).toMatchObject({ id: order.id, state: 'open', limitPrice: 0.5, size: 100 });
    expect(log[1]!.data).toEqual({ balance: 1000, reserved: 100, available: 900 });
    const got = (await t.api.get(`/api/orders/${order.id}`).set(bearer(a.apiKey))).body;
    expect(log[2]!.data).toEqual(got.order);
    expect(log[3]!.data).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect(log.map((e) => Number(e.seq))).toEqual([1, 2, 3, 4].map((i) => i + Number(log[0]!.seq) - 1));
  });

  test('when an order fills at once, then order.accepted then order.filled carry the fill shares, price and cash', async () => {
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.7, size: 100 })).body;
    const log = await events(a.id);
    const orderEvents = log.filter((e) => e.type.startsWith('order.'));
    expect(orderEvents.map((e) => e.type)).toEqual(['order.accepted', 'order.filled']);
    expect(orderEvents[1]!.data).toMatchObject({ id: order.id, state: 'filled', filledShares: 160, fill: { shares: 160, price: 0.625, cash: 100 } });
  });

  test('when IOC finds nothing and FOK cannot fill whole, then order.cancelled and order.rejected follow order.accepted', async () => {
    const a = await registerAgent(t);
    await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'IOC' });
    await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'FOK' });
    expect(await types(a.id)).toEqual(['order.accepted', 'order.cancelled', 'order.accepted', 'order.rejected']);
  });

  test('when a refused order changes nothing, then no event is appended', async () => {
    const a = await registerAgent(t);
    expect((await place(a.apiKey, { limitPrice: 0.5, size: 5000 })).body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await types(a.id)).toEqual([]);
  });

  test('when place_order repeats an Idempotency-Key, then the first order is returned and reserved once; another body with it is a 409', async () => {
    const a = await registerAgent(t);
    const first = await place(a.apiKey, { limitPrice: 0.5, size: 100 }, { 'Idempotency-Key': 'po-1' });
    const again = await place(a.apiKey, { limitPrice: 0.5, size: 100 }, { 'Idempotency-Key': 'po-1' });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 1000, reserved: 100, available: 900 });
    const other = await place(a.apiKey, { limitPrice: 0.45, size: 100 }, { 'Idempotency-Key': 'po-1' });
    expect(other.status).toBe(409);
    expect((await t.api.get('/api/orders').set(bearer(a.apiKey))).body.orders).toHaveLength(1);
  });

  test('when a GTD order reaches expiresAt, then the expiry ticker expires it within a second, releasing its cash with events', async () => {
    const a = await registerAgent(t);
    const expiresAt = new Date(Date.now() + 1200);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'GTD', expiresAt: expiresAt.toISOString() })).body;
    t.services.orderExpiry.start();
    try {
      let now = order;
      while (now.state === 'open' && Date.now() < expiresAt.getTime() + 3000) {
        await new Promise((r) => setTimeout(r, 50));
        now = (await t.api.get(`/api/orders/${order.id}`).set(bearer(a.apiKey))).body.order;
      }
      expect(now).toMatchObject({ state: 'expired', reservedCash: 0 });
      const lateMs = Date.parse(now.updatedAt) - expiresAt.getTime();
      expect(lateMs).toBeGreaterThanOrEqual(0);
      expect(lateMs).toBeLessThan(1000);
    } finally {
      await t.services.orderExpiry.stop();
    }
    expect(await types(a.id)).toEqual(['order.accepted', 'balance', 'order.expired', 'balance']);
  });

  test('when two expiry passes run at once, then each order expires once and its reservation leaves once', async () => {
    const a = await registerAgent(t);
    const soon = new Date(Date.now() + 60_000).toISOString();
    for (let i = 0; i < 3; i += 1) await place(a.apiKey, { limitPrice: 0.5, size: 10, timeInForce: 'GTD', expiresAt: soon });
    const later = new Date(Date.now() + 61_000);
    const [x, y] = await Promise.all([t.services.orders.expireDue(later), t.services.orders.expireDue(later)]);
    expect(x + y).toBe(3);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect((await types(a.id)).filter((e) => e === 'order.expired')).toHaveLength(3);
  });

  test('when a price change crosses a resting order, then it fills at once without waiting for a sync', async () => {
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    await priceChange(m.yes, 0.52, 0.55); // crosses nothing
    expect((await t.services.orders.get(a.id, order.id)).state).toBe('open');
    await priceChange(m.yes, 0.46, 0.48);
    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'filled', avgFillPrice: 0.48, filledCash: 100, reservedCash: 0 });
    // The fill's order event, then its trade's own events (the engine's consumers run once the trade is written), all in
    // the fill's one transaction.
    expect((await types(a.id)).slice(-3)).toEqual(['order.filled', 'trade', 'balance']);
  });

  test('when a price change arrives for a closed market or after expiresAt, then nothing fills', async () => {
    const a = await registerAgent(t);
    const gtd = (await place(a.apiKey, { limitPrice: 0.5, size: 10, timeInForce: 'GTD', expiresAt: new Date(Date.now() + 400).toISOString() })).body.order;
    await new Promise((r) => setTimeout(r, 500));
    await priceChange(m.yes, 0.46, 0.48);
    expect((await t.services.orders.get(a.id, gtd.id)).state).toBe('open'); // expiry, not a fill, ends it
    expect(await t.services.orders.expireDue(new Date())).toBe(1);
    const o = (await place(a.apiKey, { limitPrice: 0.3, size: 10 })).body.order;
    await t.services.db.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [m.id]);
    await priceChange(m.yes, 0.2, 0.25);
    expect((await t.services.orders.get(a.id, o.id)).state).toBe('open');
    await t.services.orders.cancelClosedMarkets(new Date());
  });
});
