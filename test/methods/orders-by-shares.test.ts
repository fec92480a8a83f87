import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { toMicro } from '../../src/domain/money/micro';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('a limit BUY sized by shares over HTTP on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 440000, ask_micro = 600000, price_micro = 520000, price_at = now() WHERE market_id = $1`, [
      m.id,
    ]);
  });

  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const get = async (key: string, id: string) => (await t.api.get(`/api/orders/${id}`).set(bearer(key))).body.order;

  test('place → resting partial fill → amend → cancel: it reserves shares × limit, each step keeps the reservation exact, cancel releases the rest', async () => {
    const a = await registerAgent(t);
    // Nothing within the limit yet: 100 shares at 0.50 rest, reserving $50.
    prices.book(m.yes, [[0.44, 100]], [[0.6, 1000]]);
    const placed = await place(a.apiKey, { limitPrice: 0.5, shares: 100 });
    expect(placed.status).toBe(200);
    const id = placed.body.order.id;
    expect(placed.body.order).toMatchObject({ state: 'open', shares: 100, amount: null, size: 100, reservedCash: 50, filledShares: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 50, available: 950 });

    // The book moves: 40 at 0.45 and 50 at 0.48 within the limit. The resting order takes those 90 shares for $42 and
    // frees what they reserved ($45): 10 shares stay, reserving $5; $3 returns to available.
    prices.book(
      m.yes,
      [[0.44, 100]],
      [
        [0.45, 40],
        [0.48, 50],
        [0.55, 1000],
      ],
    );
    await t.services.priceChanges.emit([{ tokenId: m.yes, bidMicro: toMicro(0.44), askMicro: toMicro(0.45), asOf: new Date(), source: 'polymarket' }]);
    expect(await get(a.apiKey, id)).toMatchObject({
      state: 'partially_filled',
      shares: 100,
      filledShares: 90,
      filledCash: 42,
      filledSize: 90,
      reservedCash: 5,
    });
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 5, available: 953 });
    const fill = (await t.services.events.after(a.id, 0n, 100)).find((e) => e.type === 'order.partially_filled')!;
    expect((fill.data as { fill: unknown }).fill).toEqual({ shares: 90, price: 0.466667, cash: 42 });
    const positions = (await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions;
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ quantity: 90 });

    // Amended in its own unit: 120 shares in all at 0.40 leaves 30 unfilled, reserving $12 (nothing within 0.40 shows).
    const amended = await t.api.post(`/api/orders/${id}/replace`).set(bearer(a.apiKey)).send({ shares: 120, limitPrice: 0.4 });
    expect(amended.status).toBe(200);
    expect(amended.body.order).toMatchObject({ state: 'partially_filled', shares: 120, amount: null, limitPrice: 0.4, filledShares: 90, reservedCash: 12 });
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 12, available: 946 });
    // Not in dollars: an order sized by shares is amended by shares.
    const wrongUnit = await t.api.post(`/api/orders/${id}/replace`).set(bearer(a.apiKey)).send({ amount: 60 });
    expect([wrongUnit.status, wrongUnit.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 12, available: 946 });

    const cancelled = await t.api.post(`/api/orders/${id}/cancel`).set(bearer(a.apiKey));
    expect(cancelled.body.order).toMatchObject({ state: 'cancelled', reservedCash: 0, filledShares: 90 });
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 0, available: 958 });
  });

  test('its reservation is the worst case rounded up to the micro-dollar; what fills now at a lower price costs less', async () => {
    const a = await registerAgent(t);
    prices.book(m.yes, [[0.3, 100]], [[0.9, 1000]]);
    // 3.333333 shares × 0.333333 = 1.111109888889: $1.111110 reserved.
    const odd = (await place(a.apiKey, { limitPrice: 0.333333, shares: 3.333333 })).body.order;
    expect(odd).toMatchObject({ state: 'open', reservedCash: 1.11111 });
    // 10 shares at limit 0.5 against an ask of 0.40 without a short book: all 10 now for $4, nothing reserved.
    prices.book(m.yes, [[0.3, 100]], [[0.4, 1000]]);
    const now = (await place(a.apiKey, { limitPrice: 0.5, shares: 10, timeInForce: 'IOC' })).body.order;
    expect(now).toMatchObject({ state: 'filled', shares: 10, filledShares: 10, filledCash: 4, avgPrice: 0.4, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 996, reserved: 1.11111, available: 994.88889 });
  });

  test('place_orders takes shares BUYs as place_order does', async () => {
    const a = await registerAgent(t);
    prices.book(m.yes, [[0.44, 100]], [[0.6, 1000]]);
    const res = await t.api
      .post('/api/orders/batch')
      .set(bearer(a.apiKey))
      .send({
        orders: [
          { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, shares: 20 },
          { tokenId: m.yes, side: 'BUY', limitPrice: 0.25, amount: 20 },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { order: { shares: number | null; amount: number | null; reservedCash: number } }) => r.order)).toMatchObject([
      { shares: 20, amount: null, reservedCash: 10 },
      { shares: null, amount: 20, reservedCash: 20 },
    ]);
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 30, available: 970 });
  });
});
