import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('place_orders on $name', (backend) => {
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
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.625);
    await moveQuote(t.services.db, prices, m.no, 0.37, 0.4);
  });

  const batch = (key: string, orders: Array<Record<string, unknown>>) => t.api.post('/api/orders/batch').set(bearer(key)).send({ orders });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const buy = (body: Record<string, unknown>) => ({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });

  test('when one order of a batch is refused, then the others are placed and each result answers its own order, in input order', async () => {
    const a = await registerAgent(t);
    const res = await batch(a.apiKey, [
      buy({ limitPrice: 0.5, size: 100, clientOrderId: 'b-1' }),
      buy({ tokenId: 'no-such-token', limitPrice: 0.5, size: 10 }),
      buy({ limitPrice: 0.5, size: 10, timeInForce: 'GTD' }),
      buy({ tokenId: m.no, limitPrice: 0.45, size: 40 }),
      buy({ limitPrice: 0.5, size: 5000 }),
    ]);
    expect(res.status).toBe(200);
    const r = res.body.results;
    expect(r.map((x: { ok: boolean }) => x.ok)).toEqual([true, false, false, true, false]);
    expect(r[0].order).toMatchObject({ state: 'open', tokenId: m.yes, clientOrderId: 'b-1', reservedCash: 100 });
    expect(r[1].error).toMatchObject({ code: 'NOT_FOUND' });
    expect(r[2].error).toMatchObject({ code: 'VALIDATION_ERROR', error: 'expiresAt is required for a GTD order.' });
    // The NO buy's limit reaches the ask: it fills now, 100 shares at 0.40.
    expect(r[3].order).toMatchObject({ state: 'filled', tokenId: m.no, filledShares: 100, filledCash: 40 });
    // $5,000 is more than what is left once the earlier orders of the batch took theirs.
    expect(r[4].error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance(a.apiKey)).toEqual({ balance: 960, reserved: 100, available: 860 });
    const open = (await t.api.get('/api/orders?state=open').set(bearer(a.apiKey))).body.orders;
    expect(open.map((o: { id: string }) => o.id)).toEqual([r[0].order.id]);

    // A repeated batch with the same clientOrderId returns the first order and places nothing more for it.
    const again = await batch(a.apiKey, [buy({ limitPrice: 0.5, size: 100, clientOrderId: 'b-1' })]);
    expect(again.body.results[0].order.id).toBe(r[0].order.id);
    expect(await balance(a.apiKey)).toEqual({ balance: 960, reserved: 100, available: 860 });
  });

  test('when the batch is malformed as a whole, then VALIDATION_ERROR names the order and nothing is placed', async () => {
    const a = await registerAgent(t);
    const bad = await batch(a.apiKey, [buy({ limitPrice: 0.5, size: 10 }), buy({ limitPrice: 1.5, size: 10 })]);
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.body.details[0].path).toBe('orders.1.limitPrice');
    const unknownField = await batch(a.apiKey, [buy({ limitPrice: 0.5, size: 10, idempotencyKey: 'k-1' })]);
    expect(unknownField.body.code).toBe('VALIDATION_ERROR');
    expect((await batch(a.apiKey, [])).body.code).toBe('VALIDATION_ERROR');
    const tooMany = Array.from({ length: 21 }, () => buy({ limitPrice: 0.5, size: 1 }));
    expect((await batch(a.apiKey, tooMany)).body.code).toBe('VALIDATION_ERROR');
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect((await t.api.get('/api/orders').set(bearer(a.apiKey))).body.orders).toHaveLength(0);
  });

  test('when called over JSON-RPC and MCP, then each order is placed or refused on its own', async () => {
    const a = await registerAgent(t);
    const rpc = await rpcCall(
      t,
      'place_orders',
      { orders: [buy({ limitPrice: 0.5, size: 10 }), buy({ tokenId: 'nope', limitPrice: 0.5, size: 10 })] },
      bearer(a.apiKey),
    );
    expect(rpc.result.results[0]).toMatchObject({ ok: true, order: { state: 'open', reservedCash: 10 } });
    expect(rpc.result.results[1]).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const mcp = await mcpCall(t, 'place_orders', { orders: [{ tokenId: m.yes, side: 'BUY', limitPrice: 0.4, size: 20 }] }, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent.results[0]).toMatchObject({ ok: true, order: { state: 'open', timeInForce: 'GTC', reservedCash: 20 } });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 30, available: 970 });
  });
});

describe.each(backends())('place_orders rate limit on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false, config: { RATE_LIMIT_TRADE_PER_MIN: 3 } });
  });
  afterAll(async () => {
    await t.close();
  });

  test('when a batch holds more orders than the trade budget left, then each order pays one trade call and those beyond it are RATE_LIMITED', async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.625);
    const a = await registerAgent(t);
    const orders = Array.from({ length: 4 }, () => ({ tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 1 }));
    const res = await t.api.post('/api/orders/batch').set(bearer(a.apiKey)).send({ orders });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { ok: boolean; error?: { code: string } }) => (r.ok ? 'ok' : r.error!.code))).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 1000, reserved: 3, available: 997 });
  });
});
