import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

describe.each(backends())('trading on $name', (backend) => {
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
    prices.set(m.yes, 0.6, 0.625);
    prices.set(m.no, 0.37, 0.4);
  });

  const buy = (key: string, over: Record<string, unknown> = {}) =>
    t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${key}`)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100, ...over });

  async function snapshot(userId: string) {
    const [rows] = await Promise.all([
      t.services.db.query<{ balance: bigint; ledger: bigint; positions: bigint; trades: bigint }>(
        `SELECT (SELECT balance_micro FROM cash_balances WHERE user_id = $1) AS balance,
                (SELECT count(*) FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND ('cash:' || $1::text) IN (debit_account, credit_account)) AS ledger,
                (SELECT count(*) FROM positions WHERE user_id = $1) AS positions,
                (SELECT count(*) FROM trades WHERE user_id = $1) AS trades`,
        [userId],
      ),
    ]);
    return rows[0];
  }

  test('when an agent buys 100 dollars at an ask of 0.625, then it gets exactly 160 shares and 900 remains', async () => {
    const a = await registerAgent(t);
    const res = await buy(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, quantity: 160, price: 0.625, totalCost: 100, balance: 900 });
    expect(typeof res.body.positionId).toBe('string');
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.body.balance).toBe(900);
  });

  test('when a second buy extends the position, then one position holds both with the weighted average price', async () => {
    const a = await registerAgent(t);
    const first = await buy(a.apiKey, { amount: 100 });
    prices.set(m.yes, 0.45, 0.5);
    const second = await buy(a.apiKey, { amount: 50 });
    expect(second.body.positionId).toBe(first.body.positionId);
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    expect(pf.status).toBe(200);
    expect(pf.body.positions).toHaveLength(1);
    const p = pf.body.positions[0];
    expect(p.quantity).toBe(260); // 160 + 100
    expect(p.avgPrice).toBe(0.576923); // 150 / 260, floored to the micro-dollar
    expect(p.isClosed).toBe(false);
    expect(pf.body.balance).toBe(850);
    expect(pf.body.totals.cash).toBe(850);
  });

  test('when the balance is short, then 400 INSUFFICIENT_BALANCE and nothing changes', async () => {
    const a = await registerAgent(t);
    const before = await snapshot(a.id);
    const res = await buy(a.apiKey, { amount: 1000.000001 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await snapshot(a.id)).toEqual(before);
  });

  test('when no live price is available, then 503 PRICE_UNAVAILABLE and nothing changes', async () => {
    const a = await registerAgent(t);
    prices.down(m.yes);
    const before = await snapshot(a.id);
    const res = await buy(a.apiKey);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('PRICE_UNAVAILABLE');
    expect(await snapshot(a.id)).toEqual(before);
  });

  test.each([
    ['a token of another market', 400, 'VALIDATION_ERROR', async () => ({ tokenId: (await seedMarket(t.services.db)).yes })],
    ['the NO token with outcome YES', 400, 'VALIDATION_ERROR', async () => ({ tokenId: m.no })],
    ['a wrong slug', 400, 'VALIDATION_ERROR', async () => ({ marketSlug: 'not-the-slug' })],
    ['an unknown market', 404, 'NOT_FOUND', async () => ({ marketId: 'no-such-market' })],
    ['an amount of 0', 400, 'VALIDATION_ERROR', async () => ({ amount: 0 })],
    ['an amount above 1,000,000', 400, 'VALIDATION_ERROR', async () => ({ amount: 1_000_001 })],
    ['outcome MAYBE', 400, 'VALIDATION_ERROR', async () => ({ outcome: 'MAYBE' })],
  ])('when buying with %s, then %i %s and nothing changes', async (_label, status, code, over) => {
    const a = await registerAgent(t);
    const before = await snapshot(a.id);
    const res = await buy(a.apiKey, await over());
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await snapshot(a.id)).toEqual(before);
  });

  test('when the market is resolved, then a buy is refused with MARKET_CLOSED', async () => {
    const a = await registerAgent(t);
    await t.services.db.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [m.id]);
    const res = await buy(a.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('MARKET_CLOSED');
  });

  describe('after the token was remembered by an earlier buy', () => {
    test('when its market then closes, then the next buy is refused with MARKET_CLOSED and nothing changes', async () => {
      const a = await registerAgent(t);
      expect((await buy(a.apiKey, { amount: 10 })).status).toBe(200);
      await t.services.db.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [m.id]);
      const before = await snapshot(a.id);
      const res = await buy(a.apiKey, { amount: 10 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('MARKET_CLOSED');
      expect(res.body.error).toMatch(/closed/);
      expect(await snapshot(a.id)).toEqual(before);
    });

    test('when its market resolves and the price goes away, then MARKET_CLOSED (not PRICE_UNAVAILABLE)', async () => {
      const a = await registerAgent(t);
      expect((await buy(a.apiKey, { amount: 10 })).status).toBe(200);
      await t.services.db.query(`UPDATE markets SET status = 'resolved', winner = 'YES' WHERE id = $1`, [m.id]);
      prices.down(m.yes);
      const res = await buy(a.apiKey, { amount: 10 });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('MARKET_CLOSED');
      expect(res.body.error).toMatch(/resolved/);
    });

    test('when the venue renames the market slug, then the new slug is accepted and the old one refused', async () => {
      const a = await registerAgent(t);
      expect((await buy(a.apiKey, { amount: 10 })).status).toBe(200);
      await t.services.db.query(`UPDATE markets SET slug = $2 WHERE id = $1`, [m.id, `${m.slug}-renamed`]);
      expect((await buy(a.apiKey, { amount: 10, marketSlug: `${m.slug}-renamed` })).status).toBe(200);
      const old = await buy(a.apiKey, { amount: 10 });
      expect(old.status).toBe(400);
      expect(old.body.code).toBe('VALIDATION_ERROR');
    });
  });

  test('when selling part at the bid, then proceeds = quantity × price and realizedPnl = (price − avgPrice) × quantity', async () => {
    const a = await registerAgent(t);
    const b = await buy(a.apiKey); // 160 shares for 100 → avg 0.625
    prices.set(m.yes, 0.7, 0.72);
    const res = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({ quantity: 40 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, quantitySold: 40, price: 0.7, proceeds: 28, realizedPnl: 3, isClosed: false, balance: 928 });
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    expect(pf.body.positions[0]).toMatchObject({ quantity: 120, avgPrice: 0.625, realizedPnl: 3, isClosed: false });
  });

  test('when selling with no quantity, then the whole position closes; selling again is 400 POSITION_CLOSED', async () => {
    const a = await registerAgent(t);
    const b = await buy(a.apiKey);
    prices.set(m.yes, 0.5, 0.52);
    const res = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ quantitySold: 160, proceeds: 80, realizedPnl: -20, isClosed: true, balance: 980 });
    const again = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({});
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('POSITION_CLOSED');
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    expect(pf.body.positions[0]).toMatchObject({ isClosed: true, quantity: 0, realizedPnl: -20 });
  });

  test('when selling more than held, then 400 and nothing changes', async () => {
    const a = await registerAgent(t);
    const b = await buy(a.apiKey);
    const before = await snapshot(a.id);
    const res = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({ quantity: 160.000001 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(await snapshot(a.id)).toEqual(before);
  });

  test("when an agent sells another account's position, then 404 exactly as for a missing one", async () => {
    const owner = await registerAgent(t);
    const thief = await registerAgent(t);
    const b = await buy(owner.apiKey);
    const res = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${thief.apiKey}`).send({});
    const missing = await t.api.post('/api/positions/00000000-0000-4000-8000-000000000000/sell').set('Authorization', `Bearer ${thief.apiKey}`).send({});
    const garbage = await t.api.post('/api/positions/not-a-uuid/sell').set('Authorization', `Bearer ${thief.apiKey}`).send({});
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(garbage.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    expect(res.body.error.replace(b.body.positionId, 'X')).toBe(missing.body.error.replace('00000000-0000-4000-8000-000000000000', 'X'));
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${owner.apiKey}`);
    expect(pf.body.positions[0].quantity).toBe(160);
  });

  test('when a sell finds no live price, then 503 and nothing is sold', async () => {
    const a = await registerAgent(t);
    const b = await buy(a.apiKey);
    prices.down(m.yes);
    const before = await snapshot(a.id);
    const res = await t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({});
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('PRICE_UNAVAILABLE');
    expect(await snapshot(a.id)).toEqual(before);
  });

  test('when a buy is retried with the same Idempotency-Key, then the original response comes back and one trade exists', async () => {
    const a = await registerAgent(t);
    const first = await buy(a.apiKey).set('Idempotency-Key', 'retry-1');
    const second = await buy(a.apiKey).set('Idempotency-Key', 'retry-1');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await snapshot(a.id))!.trades).toBe(1n);
    const conflict = await buy(a.apiKey, { amount: 5 }).set('Idempotency-Key', 'retry-1');
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');
    expect((await snapshot(a.id))!.trades).toBe(1n);
  });

  test('when a request with a key fails, then the key is released and a retry executes', async () => {
    const a = await registerAgent(t);
    prices.down(m.yes);
    expect((await buy(a.apiKey).set('Idempotency-Key', 'k-fail')).status).toBe(503);
    prices.set(m.yes, 0.6, 0.625);
    const retry = await buy(a.apiKey).set('Idempotency-Key', 'k-fail');
    expect(retry.status).toBe(200);
    expect((await snapshot(a.id))!.trades).toBe(1n);
  });

  test('idempotency keys are per account: another agent may use the same key', async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    expect((await buy(a.apiKey).set('Idempotency-Key', 'shared')).status).toBe(200);
    expect((await buy(b.apiKey).set('Idempotency-Key', 'shared')).status).toBe(200);
    expect((await snapshot(b.id))!.trades).toBe(1n);
  });

  test('when quoting, then the fill is previewed and nothing changes', async () => {
    const a = await registerAgent(t);
    const before = await snapshot(a.id);
    const q = await t.api.post('/api/trade/quote').set('Authorization', `Bearer ${a.apiKey}`).send({ side: 'BUY', tokenId: m.yes, amount: 100 });
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject({ side: 'BUY', price: 0.625, quantity: 160, amount: 100, marketId: m.id, outcome: 'YES' });
    const s = await t.api.post('/api/trade/quote').send({ side: 'SELL', tokenId: m.yes, quantity: 10 });
    expect(s.body).toMatchObject({ price: 0.6, quantity: 10, amount: 6 });
    expect(await snapshot(a.id)).toEqual(before);
  });

  test('when the market resolves, then open positions settle once: winners 1, losers 0, with a notification each', async () => {
    const a = await registerAgent(t);
    const yes = await buy(a.apiKey); // 160 YES for 100
    const no = await buy(a.apiKey, { tokenId: m.no, outcome: 'NO', amount: 40 }); // 100 NO for 40
    await resolveMarket(t.services.db, m.id, 'YES');
    expect(await t.services.settlement.runOnce(new Date())).toBe(2);
    expect(await t.services.settlement.runOnce(new Date())).toBe(0);
    await t.services.db.query(`DELETE FROM market_settlements WHERE event_id IN (SELECT id FROM market_events WHERE market_id = $1)`, [m.id]);
    expect(await t.services.settlement.runOnce(new Date())).toBe(0); // a repeated event pays nothing more
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    const byId = Object.fromEntries(pf.body.positions.map((p: { id: string }) => [p.id, p]));
    expect(byId[yes.body.positionId]).toMatchObject({ isClosed: true, quantity: 0, realizedPnl: 60 });
    expect(byId[no.body.positionId]).toMatchObject({ isClosed: true, quantity: 0, realizedPnl: -40 });
    expect(pf.body.balance).toBe(1000 - 140 + 160);
    const notes = await t.services.db.query<{ ref: string }>(`SELECT ref FROM notifications WHERE user_id = $1 AND type = 'resolution' ORDER BY ref`, [a.id]);
    expect(notes.map((n) => n.ref)).toEqual([yes.body.positionId, no.body.positionId].sort());
  });

  test('when a market is void, then each share pays 0.5', async () => {
    const a = await registerAgent(t);
    await buy(a.apiKey); // 160 shares
    await resolveMarket(t.services.db, m.id, 'VOID');
    await t.services.settlement.runOnce(new Date());
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.body.balance).toBe(980);
  });

  test('the portfolio lists positions newest first with mark, value and unrealized PnL', async () => {
    const a = await registerAgent(t);
    await buy(a.apiKey, { amount: 10 });
    const m2 = await seedMarket(t.services.db);
    prices.set(m2.no, 0.2, 0.25);
    await buy(a.apiKey, { marketId: m2.id, marketSlug: m2.slug, tokenId: m2.no, outcome: 'NO', amount: 10 });
    await t.services.db.query(`UPDATE market_tokens SET price_micro = 300000 WHERE token_id = $1`, [m2.no]);
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    expect(pf.body.positions.map((p: { marketId: string }) => p.marketId)).toEqual([m2.id, m.id]);
    expect(pf.body.positions[0]).toMatchObject({ quantity: 40, currentPrice: 0.3, marketValue: 12, unrealizedPnl: 2 });
    expect(pf.body.totals).toMatchObject({ cash: 980, marketValue: 12 + 8, equity: 1000, unrealizedPnl: 2 - 2 });
  });
});
