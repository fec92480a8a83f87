import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

// The ledger keeps dollars and shares in micro-units: a finer number is refused, never rounded into a trade.
describe.each(backends())('amounts and quantities finer than the ledger on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let agent: { id: string; apiKey: string };
  let positionId: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    agent = await registerAgent(t);
    const first = await buy({ amount: 10 });
    expect(first.status).toBe(200);
    positionId = first.body.positionId;
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  function buy(over: Record<string, unknown>) {
    return t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 1, ...over });
  }
  const rpc = (method: string, params: Record<string, unknown>) =>
    t.api
      .post('/api/a2a')
      .set('Content-Type', 'application/json')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .send({ jsonrpc: '2.0', id: 1, method, params });
  const ledger = async () =>
    (
      await t.services.db.query<{ balance: bigint; trades: bigint; shares: bigint }>(
        `SELECT (SELECT balance_micro FROM cash_balances WHERE user_id = $1) AS balance, (SELECT count(*) FROM trades WHERE user_id = $1) AS trades,
                (SELECT sum(quantity_micro) FROM positions WHERE user_id = $1) AS shares`,
        [agent.id],
      )
    )[0];

  test.each([0.1234567, 999999.9999999, 12.3456789, 1e-7])(
    'when a buy asks for %p dollars over REST, then 400 VALIDATION_ERROR and nothing changes',
    async (amount) => {
      const before = await ledger();
      const res = await buy({ amount });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body.details)).toContain('amount');
      expect(await ledger()).toEqual(before);
    },
  );

  test('when a buy asks for exactly 6 decimals, then it trades that amount exactly', async () => {
    const res = await buy({ amount: 0.123456 });
    expect(res.status).toBe(200);
    expect(res.body.totalCost).toBe(0.123456);
  });

  test('when a sell asks for 7 decimals of shares over REST, then 400 VALIDATION_ERROR and nothing is sold', async () => {
    const before = await ledger();
    const res = await t.api.post(`/api/positions/${positionId}/sell`).set('Authorization', `Bearer ${agent.apiKey}`).send({ quantity: 1.0000001 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(await ledger()).toEqual(before);
  });

  test.each([
    ['paper_trade', () => ({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 0.1234567 })],
    ['sell_position', () => ({ id: positionId, quantity: 2.5000001 })],
    ['quote_trade', () => ({ tokenId: m.yes, side: 'BUY', amount: 0.1234567 })],
  ])('when %s gets a number finer than micro-units over JSON-RPC, then the VALIDATION_ERROR code and nothing changes', async (method, params) => {
    const before = await ledger();
    const res = await rpc(method, params());
    expect(res.body.error).toMatchObject({ code: -32602, data: { code: 'VALIDATION_ERROR' } });
    expect(await ledger()).toEqual(before);
  });
});
