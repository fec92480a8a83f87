import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('cancel_all_orders on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let other: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    other = await seedMarket(t.services.db);
    for (const token of [m.yes, other.yes]) await moveQuote(t.services.db, prices, token, 0.6, 0.625);
  });

  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const reservedShares = async (userId: string) =>
    (await t.services.db.query<{ r: bigint }>('SELECT COALESCE(SUM(reserved_micro), 0)::bigint AS r FROM positions WHERE user_id = $1', [userId]))[0]!.r;
  const cancelAll = (key: string, body: Record<string, unknown> = {}) => t.api.post('/api/orders/cancel-all').set(bearer(key)).send(body);

  test('when an account has resting buys and sells, then cancel-all releases exactly the reserved cash and shares, and a repeat cancels nothing', async () => {
    const a = await registerAgent(t);
    // 160 shares at 0.625 for $100.
    const bought = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 });
    expect(bought.status).toBe(200);
    const buy1 = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const buy2 = (await place(a.apiKey, { tokenId: other.yes, limitPrice: 0.4, size: 50.5 })).body.order;
    const sell = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 120 })).body.order;
    const filled = (await place(a.apiKey, { limitPrice: 0.7, size: 10 })).body.order;
    expect(filled.state).toBe('filled');
    const before = await balance(a.apiKey);
    expect(before).toEqual({ balance: 890, reserved: 150.5, available: 739.5 });
    expect(await reservedShares(a.id)).toBe(120_000_000n);
    // Another account's order is not touched.
    const b = await registerAgent(t);
    const theirs = (await place(b.apiKey, { limitPrice: 0.5, size: 10 })).body.order;

    const res = await cancelAll(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ cancelled: [buy1.id, buy2.id, sell.id], count: 3 });
    expect(await balance(a.apiKey)).toEqual({ balance: 890, reserved: 0, available: 890 });
    expect(await reservedShares(a.id)).toBe(0n);
    for (const id of [buy1.id, buy2.id, sell.id]) {
      expect((await t.api.get(`/api/orders/${id}`).set(bearer(a.apiKey))).body.order).toMatchObject({
        state: 'cancelled',
        reservedCash: 0,
        reservedShares: 0,
        reason: 'cancelled by the owner',
      });
    }
    expect((await t.api.get(`/api/orders/${theirs.id}`).set(bearer(b.apiKey))).body.order.state).toBe('open');
    const events = (await t.services.events.after(a.id, 0n, 200)).filter((e) => e.type === 'order.cancelled');
    expect(events).toHaveLength(3);

    expect((await cancelAll(a.apiKey)).body).toEqual({ cancelled: [], count: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 890, reserved: 0, available: 890 });
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test("when a marketId is given, then only that market's orders are cancelled; the others keep resting and reserving", async () => {
    const a = await registerAgent(t);
    const here = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const there = (await place(a.apiKey, { tokenId: other.yes, limitPrice: 0.5, size: 30 })).body.order;
    const res = await cancelAll(a.apiKey, { marketId: m.id });
    expect(res.body).toEqual({ cancelled: [here.id], count: 1 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 30, available: 970 });
    expect((await t.api.get(`/api/orders/${there.id}`).set(bearer(a.apiKey))).body.order).toMatchObject({ state: 'open', reservedCash: 30 });
    // The slug names the market too.
    expect((await cancelAll(a.apiKey, { marketId: `${other.id}-slug` })).body).toEqual({ cancelled: [there.id], count: 1 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    const unknown = await cancelAll(a.apiKey, { marketId: 'no-such-market' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await t.api.post('/api/orders/cancel-all').send({})).status).toBe(401);
  });

  test('when a resting order was partly filled against a published book, then cancel-all releases exactly the rest it still reserves', async () => {
    const a = await registerAgent(t);
    prices.book(m.yes, [[0.44, 100]], [[0.45, 40]]);
    // 40 shares at 0.45 ($18) fill now; $82 rests reserved.
    const part = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    expect(part).toMatchObject({ state: 'partially_filled', filledCash: 18, reservedCash: 82 });
    expect(await balance(a.apiKey)).toEqual({ balance: 982, reserved: 82, available: 900 });
    expect((await cancelAll(a.apiKey)).body).toEqual({ cancelled: [part.id], count: 1 });
    expect(await balance(a.apiKey)).toEqual({ balance: 982, reserved: 0, available: 982 });
    expect((await t.api.get(`/api/orders/${part.id}`).set(bearer(a.apiKey))).body.order).toMatchObject({ state: 'cancelled', filledCash: 18, reservedCash: 0 });
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when called over JSON-RPC and MCP, then each cancels and answers the same shape', async () => {
    const a = await registerAgent(t);
    const one = (await place(a.apiKey, { limitPrice: 0.5, size: 10 })).body.order;
    expect((await rpcCall(t, 'cancel_all_orders', {}, bearer(a.apiKey))).result).toEqual({ cancelled: [one.id], count: 1 });
    const two = (await place(a.apiKey, { tokenId: other.yes, limitPrice: 0.5, size: 10 })).body.order;
    const mcp = await mcpCall(t, 'cancel_all_orders', { marketId: other.id }, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toEqual({ cancelled: [two.id], count: 1 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });
});
