import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('replace_order on $name', (backend) => {
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
  });

  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const replace = (key: string, id: string, body: Record<string, unknown>) => t.api.post(`/api/orders/${id}/replace`).set(bearer(key)).send(body);
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const order = async (key: string, id: string) => (await t.api.get(`/api/orders/${id}`).set(bearer(key))).body.order;
  const reservedShares = async (userId: string) =>
    (await t.services.db.query<{ r: bigint }>('SELECT COALESCE(SUM(reserved_micro), 0)::bigint AS r FROM positions WHERE user_id = $1', [userId]))[0]!.r;

  test('when a resting buy is amended up, down and in price, then it keeps its id and reserves exactly its new size each time', async () => {
    const a = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100, clientOrderId: 'amend-1' })).body.order;
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 100, available: 900 });

    const up = await replace(a.apiKey, o.id, { size: 150 });
    expect(up.status).toBe(200);
    expect(up.body.order).toMatchObject({ id: o.id, clientOrderId: 'amend-1', state: 'open', limitPrice: 0.5, size: 150, reservedCash: 150 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 150, available: 850 });

    const down = await replace(a.apiKey, o.id, { size: 40, limitPrice: 0.55 });
    expect(down.body.order).toMatchObject({ id: o.id, state: 'open', limitPrice: 0.55, size: 40, reservedCash: 40 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 40, available: 960 });

    // An amend to the terms it already has changes nothing and writes no event.
    const same = await replace(a.apiKey, o.id, { size: 40 });
    expect(same.body.order).toEqual(down.body.order);
    const events = (await t.services.events.after(a.id, 0n, 200)).filter((e) => e.type.startsWith('order.'));
    expect(events.map((e) => e.type)).toEqual(['order.accepted', 'order.replaced', 'order.replaced']);
    expect(events[2]!.data).toMatchObject({ id: o.id, limitPrice: 0.55, size: 40 });
    expect((await t.api.get('/api/orders?state=open').set(bearer(a.apiKey))).body.orders).toHaveLength(1);
  });

  test('when the new size is more than available cash covers, then the amend is refused and the order and balance stay exactly as they were', async () => {
    const a = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    await place(a.apiKey, { limitPrice: 0.4, size: 850 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 950, available: 50 });
    const before = await order(a.apiKey, o.id);

    const refused = await replace(a.apiKey, o.id, { size: 150.000001 });
    expect([refused.status, refused.body.code]).toEqual([400, 'INSUFFICIENT_BALANCE']);
    expect(await order(a.apiKey, o.id)).toEqual(before);
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 950, available: 50 });
    expect((await t.services.events.after(a.id, 0n, 200)).filter((e) => e.type === 'order.replaced')).toHaveLength(0);

    // Exactly what is available (its own 100 freed plus 50) is covered.
    expect((await replace(a.apiKey, o.id, { size: 150 })).body.order).toMatchObject({ size: 150, reservedCash: 150 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 1000, available: 0 });
  });

  test('when an amended buy now crosses the ask, then it fills as a new order would and its reservation is spent, not left behind', async () => {
    const a = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const res = await replace(a.apiKey, o.id, { limitPrice: 0.7, size: 50 });
    expect(res.status).toBe(200);
    // 50 dollars at the ask, 0.625: 80 shares.
    expect(res.body.order).toMatchObject({ id: o.id, state: 'filled', size: 50, filledCash: 50, filledShares: 80, avgFillPrice: 0.625, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 950, reserved: 0, available: 950 });
    const types = (await t.services.events.after(a.id, 0n, 200)).filter((e) => e.type.startsWith('order.')).map((e) => e.type);
    expect(types).toEqual(['order.accepted', 'order.replaced', 'order.filled']);
    const positions = (await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions;
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ tokenId: m.yes, quantity: 80 });
  });

  test('when a partly filled order is amended against a published book, then size counts the filled part, the crossing part fills and the rest reserves exactly', async () => {
    const a = await registerAgent(t);
    prices.book(m.yes, [[0.44, 100]], [[0.45, 40]]);
    // 40 shares at 0.45 ($18) fill now; $82 rests reserved.
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    expect(o).toMatchObject({ state: 'partially_filled', filledCash: 18, reservedCash: 82 });

    const atFilled = await replace(a.apiKey, o.id, { size: 18 });
    expect([atFilled.status, atFilled.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await order(a.apiKey, o.id)).toMatchObject({ size: 100, reservedCash: 82 });

    const smaller = await replace(a.apiKey, o.id, { size: 50 });
    expect(smaller.body.order).toMatchObject({ state: 'partially_filled', size: 50, filledCash: 18, reservedCash: 32 });
    expect(await balance(a.apiKey)).toEqual({ balance: 982, reserved: 32, available: 950 });

    // The book refills: 100 shares at 0.47. An amend up to 0.48 takes 32 dollars' worth at 0.47 and fills whole.
    prices.book(m.yes, [[0.44, 100]], [[0.47, 100]]);
    const crossed = await replace(a.apiKey, o.id, { limitPrice: 0.48 });
    expect(crossed.body.order).toMatchObject({ state: 'filled', size: 50, filledCash: 50, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 950, reserved: 0, available: 950 });
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when a resting sell is amended, then its shares reservation follows exactly; more than the unreserved shares is refused with nothing changed', async () => {
    const a = await registerAgent(t);
    // 160 shares at 0.625 for $100.
    await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 });
    const o = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 100 })).body.order;
    expect(await reservedShares(a.id)).toBe(100_000_000n);

    const short = await replace(a.apiKey, o.id, { size: 160.000001 });
    expect([short.status, short.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await order(a.apiKey, o.id)).toMatchObject({ size: 100, reservedShares: 100 });
    expect(await reservedShares(a.id)).toBe(100_000_000n);

    expect((await replace(a.apiKey, o.id, { size: 160 })).body.order).toMatchObject({ size: 160, reservedShares: 160 });
    expect(await reservedShares(a.id)).toBe(160_000_000n);

    // Down to the bid (0.60): it sells now, 160 shares for 96 dollars.
    const sold = await replace(a.apiKey, o.id, { limitPrice: 0.6 });
    expect(sold.body.order).toMatchObject({ state: 'filled', filledShares: 160, filledCash: 96, reservedShares: 0 });
    expect(await reservedShares(a.id)).toBe(0n);
    expect(await balance(a.apiKey)).toEqual({ balance: 996, reserved: 0, available: 996 });
  });

  test('when the input is wrong or the order is not an open one of yours, then a stable error answers and nothing changes', async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const before = await order(a.apiKey, o.id);

    const neither = await replace(a.apiKey, o.id, {});
    expect([neither.status, neither.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const unknown = await replace(a.apiKey, o.id, { limitPrice: 0.4, price: 0.4 });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(unknown.body.error).toContain('price');
    const outOfRange = await replace(a.apiKey, o.id, { limitPrice: 1.5 });
    expect([outOfRange.status, outOfRange.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const tooFine = await replace(a.apiKey, o.id, { size: 10.0000001 });
    expect([tooFine.status, tooFine.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const theirs = await replace(b.apiKey, o.id, { size: 10 });
    expect([theirs.status, theirs.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await replace(a.apiKey, 'not-an-order', { size: 10 })).status).toBe(404);
    expect((await t.api.post(`/api/orders/${o.id}/replace`).send({ size: 10 })).status).toBe(401);
    expect(await order(a.apiKey, o.id)).toEqual(before);
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 100, available: 900 });

    await t.api.post(`/api/orders/${o.id}/cancel`).set(bearer(a.apiKey));
    const closed = await replace(a.apiKey, o.id, { size: 10 });
    expect([closed.status, closed.body.code]).toEqual([409, 'CONFLICT']);
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when an amend is retried with its Idempotency-Key, then it is applied once and the first answer replays', async () => {
    const a = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const first = await replace(a.apiKey, o.id, { size: 120 }).set('Idempotency-Key', 'amend-k1');
    // Meanwhile the order changes again; the retry still answers what the first call did, and changes nothing.
    await replace(a.apiKey, o.id, { size: 130 });
    const again = await replace(a.apiKey, o.id, { size: 120 }).set('Idempotency-Key', 'amend-k1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await order(a.apiKey, o.id)).toMatchObject({ size: 130, reservedCash: 130 });
    expect((await t.services.events.after(a.id, 0n, 200)).filter((e) => e.type === 'order.replaced')).toHaveLength(2);
  });

  test('when called over JSON-RPC and MCP, then each amends and answers the same shape', async () => {
    const a = await registerAgent(t);
    const o = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const rpc = await rpcCall(t, 'replace_order', { id: o.id, size: 60 }, bearer(a.apiKey));
    expect(rpc.result.order).toMatchObject({ id: o.id, size: 60, reservedCash: 60 });
    const mcp = await mcpCall(t, 'replace_order', { id: o.id, limitPrice: 0.45 }, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent.order).toMatchObject({ id: o.id, size: 60, limitPrice: 0.45, reservedCash: 60 });
    const bad = await mcpCall(t, 'replace_order', { id: o.id, size: 60, sise: 1 }, bearer(a.apiKey));
    expect(bad.result.isError).toBe(true);
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 60, available: 940 });
  });
});
