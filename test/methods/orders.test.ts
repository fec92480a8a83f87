import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('orders on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => {
    const report = await auditLedger(t.services.db);
    expect(report.violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await quote(m.yes, 0.6, 0.625);
    await quote(m.no, 0.37, 0.4);
  });

  const quote = (token: string, bid: number, ask: number) => moveQuote(t.services.db, prices, token, bid, ask);
  const sync = (at = new Date()) => t.services.orders.afterSync(at);
  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const order = async (key: string, id: string) => (await t.api.get(`/api/orders/${id}`).set(bearer(key))).body.order;
  const buy = (key: string, amount: number) =>
    t.api.post('/api/trade').set(bearer(key)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount });

  test('when a buy limit is below the ask, then it rests reserving its cash and available = balance − reserved', async () => {
    const a = await registerAgent(t);
    const res = await place(a.apiKey, { limitPrice: 0.5, size: 100 });
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({ state: 'open', side: 'BUY', limitPrice: 0.5, size: 100, reservedCash: 100, filledShares: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 100, available: 900 });
    const me = await t.api.get('/api/user/me').set(bearer(a.apiKey));
    expect(me.body.user).toMatchObject({ balance: 1000, reserved: 100, available: 900 });
    const open = await t.api.get('/api/orders?state=open').set(bearer(a.apiKey));
    expect(open.body.orders.map((o: { id: string }) => o.id)).toEqual([res.body.order.id]);
  });

  test('when paper_trade needs more than the available cash, then INSUFFICIENT_BALANCE and nothing changes', async () => {
    const a = await registerAgent(t);
    await place(a.apiKey, { limitPrice: 0.5, size: 600 });
    const refused = await buy(a.apiKey, 400.000001);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 600, available: 400 });
    expect((await buy(a.apiKey, 400)).status).toBe(200);
    const again = await place(a.apiKey, { limitPrice: 0.5, size: 1 });
    expect(again.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance(a.apiKey)).toEqual({ balance: 600, reserved: 600, available: 0 });
  });

  test('when a buy limit reaches the ask, then it fills now at the ask, never at the limit', async () => {
    const a = await registerAgent(t);
    const res = await place(a.apiKey, { limitPrice: 0.7, size: 100 });
    expect(res.body.order).toMatchObject({ state: 'filled', filledShares: 160, filledCash: 100, avgFillPrice: 0.625, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 900, reserved: 0, available: 900 });
    const pf = await t.api.get('/api/positions').set(bearer(a.apiKey));
    expect(pf.body.positions[0]).toMatchObject({ tokenId: m.yes, quantity: 160 });
    const trades = await t.api.get('/api/trades').set(bearer(a.apiKey));
    expect(trades.body.trades).toHaveLength(1);
  });

  test('when IOC or FOK cannot fill, then IOC is cancelled and FOK rejected with nothing changed', async () => {
    const a = await registerAgent(t);
    const ioc = await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'IOC' });
    const fok = await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'FOK' });
    expect(ioc.body.order).toMatchObject({ state: 'cancelled', reservedCash: 0, filledShares: 0 });
    expect(fok.body.order).toMatchObject({ state: 'rejected', reservedCash: 0, filledShares: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    const fokFill = await place(a.apiKey, { limitPrice: 0.625, size: 100, timeInForce: 'FOK' });
    expect(fokFill.body.order).toMatchObject({ state: 'filled', filledShares: 160 });
  });

  test('when a clientOrderId repeats, then the first order is returned and nothing more is reserved', async () => {
    const a = await registerAgent(t);
    const first = await place(a.apiKey, { limitPrice: 0.5, size: 100, clientOrderId: 'c-1' });
    const second = await place(a.apiKey, { limitPrice: 0.4, size: 300, clientOrderId: 'c-1' });
    expect(second.body.order.id).toBe(first.body.order.id);
    expect(second.body.order.size).toBe(100);
    expect(await balance(a.apiKey)).toMatchObject({ reserved: 100 });
    const b = await registerAgent(t);
    const other = await place(b.apiKey, { limitPrice: 0.5, size: 100, clientOrderId: 'c-1' });
    expect(other.body.order.id).not.toBe(first.body.order.id);
  });

  test('when the price falls through a resting buy, then it fills at the new ask and its reservation is consumed once', async () => {
    const a = await registerAgent(t);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    await sync();
    expect((await order(a.apiKey, o.id)).state).toBe('open');
    await quote(m.yes, 0.38, 0.4);
    expect(await sync()).toMatchObject({ filled: 1 });
    expect(await order(a.apiKey, o.id)).toMatchObject({ state: 'filled', filledShares: 250, filledCash: 100, avgFillPrice: 0.4, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 900, reserved: 0, available: 900 });
    expect(await sync()).toMatchObject({ filled: 0 });
    expect((await t.api.post(`/api/orders/${o.id}/cancel`).set(bearer(a.apiKey))).status).toBe(409);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when the mirrored price that crosses is older than PRICE_MAX_AGE_S, then nothing fills', async () => {
    const a = await registerAgent(t);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    await quote(m.yes, 0.38, 0.4);
    await t.services.db.query(`UPDATE market_tokens SET price_at = now() - interval '1 hour' WHERE token_id = $1`, [m.yes]);
    expect(await sync()).toMatchObject({ filled: 0 });
    expect(await order(a.apiKey, o.id)).toMatchObject({ state: 'open', reservedCash: 100 });
  });

  test('when a resting order is cancelled, then its cash is released and a second cancel is a 409', async () => {
    const a = await registerAgent(t);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    const c = await t.api.post(`/api/orders/${o.id}/cancel`).set(bearer(a.apiKey));
    expect(c.status).toBe(200);
    expect(c.body.order).toMatchObject({ state: 'cancelled', reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    const again = await t.api.post(`/api/orders/${o.id}/cancel`).set(bearer(a.apiKey));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    const b = await registerAgent(t);
    expect((await t.api.get(`/api/orders/${o.id}`).set(bearer(b.apiKey))).status).toBe(404);
    expect((await t.api.post(`/api/orders/${o.id}/cancel`).set(bearer(b.apiKey))).status).toBe(404);
  });

  test('when a sell rests, then its shares are reserved, sell_position cannot sell them, and a rising bid fills it', async () => {
    const a = await registerAgent(t);
    const bought = await buy(a.apiKey, 100); // 160 shares
    const { order: o } = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.8, size: 100 })).body;
    expect(o).toMatchObject({ state: 'open', reservedShares: 100 });
    const all = await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({});
    expect(all.status).toBe(400);
    const part = await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 60.000001 });
    expect(part.status).toBe(400);
    const more = await place(a.apiKey, { side: 'SELL', limitPrice: 0.8, size: 60.000001 });
    expect(more.status).toBe(400);
    await quote(m.yes, 0.85, 0.86);
    expect(await sync()).toMatchObject({ filled: 1 });
    expect(await order(a.apiKey, o.id)).toMatchObject({ state: 'filled', filledShares: 100, filledCash: 85, reservedShares: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 985, reserved: 0, available: 985 });
  });

  test('when a GTD order passes expiresAt, then the sync expires it and releases its cash', async () => {
    const a = await registerAgent(t);
    const at = new Date(Date.now() + 60_000);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'GTD', expiresAt: at.toISOString() })).body;
    expect(o.expiresAt).toBe(at.toISOString());
    await sync(new Date(at.getTime() - 1000));
    expect((await order(a.apiKey, o.id)).state).toBe('open');
    await sync(new Date(at.getTime() + 1000));
    expect(await order(a.apiKey, o.id)).toMatchObject({ state: 'expired', reservedCash: 0 });
    expect(await balance(a.apiKey)).toMatchObject({ reserved: 0, available: 1000 });
    const noExpiry = await place(a.apiKey, { limitPrice: 0.5, size: 1, timeInForce: 'GTD' });
    expect(noExpiry.status).toBe(400);
    expect(noExpiry.body.code).toBe('VALIDATION_ERROR');
  });

  test('when the market resolves, then resting orders are cancelled and release cash and shares before settlement', async () => {
    const a = await registerAgent(t);
    await buy(a.apiKey, 100);
    const buyOrder = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body.order;
    const sellOrder = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 50 })).body.order;
    await resolveMarket(t.services.db, m.id, 'YES');
    await sync();
    await t.services.settlement.runOnce(new Date());
    expect(await order(a.apiKey, buyOrder.id)).toMatchObject({ state: 'cancelled', reason: 'market resolved' });
    expect(await order(a.apiKey, sellOrder.id)).toMatchObject({ state: 'cancelled', reservedShares: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1060, reserved: 0, available: 1060 });
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when the market sync runs, then its after-sync hook closes the resting orders of a resolved market', async () => {
    const a = await registerAgent(t);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    await resolveMarket(t.services.db, m.id, 'NO');
    const outcome = await t.services.marketSync.runOnce({ force: true });
    expect(outcome.status).toBe('ran');
    expect(await order(a.apiKey, o.id)).toMatchObject({ state: 'cancelled', reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
  });

  test('when an account is deleted, then its resting orders are cancelled and their cash released', async () => {
    const a = await registerAgent(t);
    const { order: o } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    expect((await t.api.post('/api/user/delete').set(bearer(a.apiKey)).send({ password: 'password123' })).status).toBe(200);
    let state = '';
    for (let i = 0; i < 50 && state !== 'cancelled'; i += 1) {
      const rows = await t.services.db.query<{ state: string }>('SELECT state FROM orders WHERE id = $1', [o.id]);
      state = rows[0]!.state;
      if (state !== 'cancelled') await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('cancelled');
    const u = await t.services.db.query<{ reserved_micro: bigint }>('SELECT reserved_micro FROM cash_balances WHERE user_id = $1', [a.id]);
    expect(u[0]!.reserved_micro).toBe(0n);
  });

  test('when a reservation disagrees with the open orders, then the ledger audit reports it', async () => {
    const a = await registerAgent(t);
    await buy(a.apiKey, 100);
    await place(a.apiKey, { limitPrice: 0.5, size: 100 });
    await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 10 });
    const db = t.services.db;
    await db.query('UPDATE cash_balances SET reserved_micro = reserved_micro - 1 WHERE user_id = $1', [a.id]);
    await db.query('UPDATE positions SET reserved_micro = reserved_micro + 1 WHERE user_id = $1', [a.id]);
    const report = await auditLedger(db);
    expect(report.violations).toEqual(
      // What the orders hold is the ledger's answer (their pending transfers): each maintained reserved balance must equal it.
      expect.arrayContaining([
        `account ${a.id}: cash 900000000 reserved 99999999, but its transfers give 900000000 reserved 100000000`,
        expect.stringMatching(/^position .*: 160000000 shares reserved 10000001, but its transfers give 160000000 reserved 10000000$/),
      ]),
    );
    await db.query('UPDATE cash_balances SET reserved_micro = reserved_micro + 1 WHERE user_id = $1', [a.id]);
    await db.query('UPDATE positions SET reserved_micro = reserved_micro - 1 WHERE user_id = $1', [a.id]);
    expect((await auditLedger(db)).violations).toEqual([]);
  });

  test('when orders span pages, then the cursor walks them newest first with none missed or repeated', async () => {
    const a = await registerAgent(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await place(a.apiKey, { limitPrice: 0.1, size: 1 })).body.order.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/api/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await t.api.get(path).set(bearer(a.apiKey));
      expect(res.status).toBe(200);
      seen.push(...res.body.orders.map((o: { id: string }) => o.id));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect((await t.api.get('/api/orders?cursor=nonsense').set(bearer(a.apiKey))).status).toBe(400);
  });

  test('when called over JSON-RPC and MCP, then the results match REST', async () => {
    const a = await registerAgent(t);
    const rpc = await rpcCall(t, 'place_order', { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, clientOrderId: 'rpc-1' }, bearer(a.apiKey));
    expect(rpc.result.order).toMatchObject({ state: 'open', reservedCash: 10 });
    const id = rpc.result.order.id as string;
    const rest = (await t.api.get(`/api/orders/${id}`).set(bearer(a.apiKey))).body;
    expect((await rpcCall(t, 'get_order', { id }, bearer(a.apiKey))).result).toEqual(rest);
    expect((await mcpCall(t, 'get_order', { id }, bearer(a.apiKey))).result.structuredContent).toEqual(rest);
    const mcp = await mcpCall(t, 'place_order', { tokenId: m.yes, side: 'BUY', limitPrice: 0.5, size: 10, clientOrderId: 'rpc-1' }, bearer(a.apiKey));
    expect(mcp.result.structuredContent.order.id).toBe(id);
    const listed = await mcpCall(t, 'list_orders', { state: 'open' }, bearer(a.apiKey));
    expect(listed.result.structuredContent.orders).toHaveLength(1);
    const cancelled = await mcpCall(t, 'cancel_order', { id }, bearer(a.apiKey));
    expect(cancelled.result.structuredContent.order.state).toBe('cancelled');
    const twice = await rpcCall(t, 'cancel_order', { id }, bearer(a.apiKey));
    expect(twice.error.data.code).toBe('CONFLICT');
  });
});
