import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('close_position on $name', (backend) => {
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
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.625);
    await moveQuote(t.services.db, prices, m.no, 0.375, 0.4);
    await moveQuote(t.services.db, prices, other.yes, 0.45, 0.5);
  });

  const trade = async (key: string, market: SeededMarket, outcome: 'YES' | 'NO', amount: number) => {
    const res = await t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: market.id, marketSlug: market.slug, tokenId: outcome === 'YES' ? market.yes : market.no, outcome, amount });
    expect(res.status).toBe(200);
    return res.body as { positionId: string; quantity: number };
  };
  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const close = (key: string, body: Record<string, unknown> = {}) => t.api.post('/api/positions/close').set(bearer(key)).send(body);
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  const openPositions = async (key: string) =>
    ((await t.api.get('/api/positions').set(bearer(key))).body.positions as Array<{ id: string; isClosed: boolean }>).filter((p) => !p.isClosed);

  test('when a market is named, then its YES and NO positions sell whole at the bid, its resting sells are cancelled in the same step, and nothing else moves', async () => {
    const a = await registerAgent(t);
    const yes = await trade(a.apiKey, m, 'YES', 100); // 160 shares at 0.625
    const no = await trade(a.apiKey, m, 'NO', 40); // 100 shares at 0.40
    const elsewhere = await trade(a.apiKey, other, 'YES', 50); // 100 shares at 0.50
    const sell = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 100 })).body.order;
    const buy = (await place(a.apiKey, { limitPrice: 0.5, size: 20 })).body.order;
    expect(await balance(a.apiKey)).toEqual({ balance: 810, reserved: 20, available: 790 });

    const res = await close(a.apiKey, { marketId: m.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [
        {
          ok: true,
          positionId: yes.positionId,
          marketId: m.id,
          tokenId: m.yes,
          outcome: 'YES',
          quantitySold: 160,
          price: 0.6,
          proceeds: 96,
          realizedPnl: -4,
          balance: 906,
          cancelledOrders: [sell.id],
        },
        {
          ok: true,
          positionId: no.positionId,
          marketId: m.id,
          tokenId: m.no,
          outcome: 'NO',
          quantitySold: 100,
          price: 0.375,
          proceeds: 37.5,
          realizedPnl: -2.5,
          balance: 943.5,
          cancelledOrders: [],
        },
      ],
      count: 2,
    });
    expect(await balance(a.apiKey)).toEqual({ balance: 943.5, reserved: 20, available: 923.5 });
    expect((await t.api.get(`/api/orders/${sell.id}`).set(bearer(a.apiKey))).body.order).toMatchObject({
      state: 'cancelled',
      reservedShares: 0,
      reason: 'position closed by the owner',
    });
    expect((await t.api.get(`/api/orders/${buy.id}`).set(bearer(a.apiKey))).body.order).toMatchObject({ state: 'open', reservedCash: 20 });
    expect((await openPositions(a.apiKey)).map((p) => p.id)).toEqual([elsewhere.positionId]);

    // The slug names the market too; then close-all takes what is left, and a repeat closes nothing.
    expect((await close(a.apiKey, { marketId: `${m.id}-slug` })).body).toEqual({ results: [], count: 0 });
    const all = await close(a.apiKey);
    expect(all.body).toMatchObject({ results: [{ ok: true, positionId: elsewhere.positionId, quantitySold: 100, proceeds: 45 }], count: 1 });
    expect(await openPositions(a.apiKey)).toEqual([]);
    expect((await close(a.apiKey)).body).toEqual({ results: [], count: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 988.5, reserved: 20, available: 968.5 });
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when one position cannot be sold now, then it stays exactly as it was, its resting sell keeps its shares, and the others still close', async () => {
    const a = await registerAgent(t);
    const yes = await trade(a.apiKey, m, 'YES', 100);
    const elsewhere = await trade(a.apiKey, other, 'YES', 50);
    const sell = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.9, size: 100 })).body.order;
    prices.down(m.yes);

    const res = await close(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.results[0]).toMatchObject({ ok: false, positionId: yes.positionId, marketId: m.id, error: { code: 'PRICE_UNAVAILABLE' } });
    expect(res.body.results[1]).toMatchObject({ ok: true, positionId: elsewhere.positionId, cancelledOrders: [] });
    expect((await openPositions(a.apiKey)).map((p) => p.id)).toEqual([yes.positionId]);
    expect((await t.api.get(`/api/orders/${sell.id}`).set(bearer(a.apiKey))).body.order).toMatchObject({ state: 'open', reservedShares: 100 });
    const held = await t.services.db.query<{ r: bigint }>('SELECT reserved_micro AS r FROM positions WHERE id = $1', [yes.positionId]);
    expect(held[0]!.r).toBe(100_000_000n);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when the input is wrong, then a stable error answers and nothing is sold', async () => {
    const a = await registerAgent(t);
    await trade(a.apiKey, m, 'YES', 100);
    const unknown = await close(a.apiKey, { marketId: 'no-such-market' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    const stray = await close(a.apiKey, { marketID: m.id });
    expect([stray.status, stray.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await t.api.post('/api/positions/close').send({})).status).toBe(401);
    expect(await openPositions(a.apiKey)).toHaveLength(1);
    expect(await balance(a.apiKey)).toEqual({ balance: 900, reserved: 0, available: 900 });
  });

  test('when called over JSON-RPC and MCP, then each closes and answers the same shape', async () => {
    const a = await registerAgent(t);
    const yes = await trade(a.apiKey, m, 'YES', 100);
    const rpc = await rpcCall(t, 'close_position', { marketId: m.id }, bearer(a.apiKey));
    expect(rpc.result).toMatchObject({ results: [{ ok: true, positionId: yes.positionId, proceeds: 96 }], count: 1 });
    const theirs = await trade(a.apiKey, other, 'YES', 50);
    const mcp = await mcpCall(t, 'close_position', {}, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toMatchObject({ results: [{ ok: true, positionId: theirs.positionId, proceeds: 45 }], count: 1 });
    expect(await balance(a.apiKey)).toEqual({ balance: 991, reserved: 0, available: 991 });
  });
});
