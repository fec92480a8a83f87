import { backends, describeOnPostgres, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { sessionCookieOf } from '../support/identity';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { verifyChain } from '../../src/domain/forecasts/forecast-rules';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

type Agent = { id: string; apiKey: string; email: string };

function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
    await moveQuote(t.services.db, prices, m.no, 0.38, 0.4);
  });

  const submit = (key: string, body: Record<string, unknown>) => t.api.post('/api/forecasts').set(bearer(key)).send(body);
  const list = (key: string, query: Record<string, unknown> = {}) => t.api.get('/api/forecasts').set(bearer(key)).query(query);
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body.balance as number;
  const buy = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10, ...body });
  const verify = async (a: Agent) => verifyChain(await t.services.forecasts.chain(a.id));

  /** A community market with three outcomes, created by an agent signed in with a browser session. */
  const communityMarket = async () => {
    const c = await registerAgent(t, 'Creator');
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: c.email, password: 'password123' });
    const res = await t.api
      .post('/api/user-markets')
      .set('Cookie', sessionCookieOf(login)!)
      .set('Origin', t.config.BASE_URL!)
      .send({
        question: 'Which band headlines the harbour festival?',
        category: 'Culture',
        outcomes: ['Alpha', 'Beta', 'Gamma'],
        endDate: new Date(Date.now() + 48 * 3600_000).toISOString(),
      });
    expect(res.status).toBe(200);
    return res.body as { id: string; outcomeTokens: Array<{ tokenId: string; price: number }> };
  };

  test('when a forecast is submitted, then it is stamped with the time and the market mid, chained, and the newest on a market is the one current', async () => {
    const a = await registerAgent(t);
    const first = await submit(a.apiKey, { marketId: m.id, probability: 0.7, rationale: 'Models agree.' });
    expect(first.status).toBe(200);
    expect(first.body.forecast).toMatchObject({
      userId: a.id,
      seq: 1,
      marketId: m.id,
      venue: 'mirrored',
      source: 'stated',
      probability: 0.7,
      probabilities: [0.7],
      mids: [0.61],
      rationale: 'Models agree.',
      current: true,
      marketClosed: false,
      prevHash: null,
    });
    expect(first.body.chain).toEqual({ userId: a.id, head: first.body.forecast.hash, length: 1 });
    await moveQuote(t.services.db, prices, m.yes, 0.7, 0.72);
    const second = await submit(a.apiKey, { marketId: m.id, probability: 0.8 });
    expect(second.body.forecast).toMatchObject({ seq: 2, mids: [0.71], rationale: null, prevHash: first.body.forecast.hash });
    const other = await seedMarket(t.services.db);
    await submit(a.apiKey, { marketId: other.id, probability: 0.25 });

    const mine = await list(a.apiKey);
    expect(mine.status).toBe(200);
    expect(mine.body.forecasts.map((f: { seq: number; current: boolean }) => [f.seq, f.current])).toEqual([
      [3, true],
      [2, true],
      [1, false],
    ]);
    expect(mine.body.chain).toEqual({ userId: a.id, head: mine.body.forecasts[0].hash, length: 3 });
    const onM = await list(a.apiKey, { marketId: m.id });
    expect(onM.body.forecasts.filter((f: { current: boolean }) => f.current).map((f: { seq: number }) => f.seq)).toEqual([2]);
    expect(await verify(a)).toEqual({ ok: true, head: mine.body.chain.head, length: 3 });
  });

  test('when forecasts are listed a page at a time, then the pages follow the chain newest first without a gap', async () => {
    const a = await registerAgent(t);
    for (const p of [0.1, 0.2, 0.3]) await submit(a.apiKey, { marketId: m.id, probability: p });
    const one = await list(a.apiKey, { limit: 2 });
    expect(one.body.forecasts.map((f: { seq: number }) => f.seq)).toEqual([3, 2]);
    const two = await list(a.apiKey, { limit: 2, cursor: one.body.nextCursor });
    expect(two.body.forecasts.map((f: { seq: number }) => f.seq)).toEqual([1]);
    expect(two.body.nextCursor).toBeNull();
    expect((await list(a.apiKey, { cursor: 'nope' })).body.code).toBe('VALIDATION_ERROR');
  });

  test("when another account lists a trader's forecasts, then those on an open market are hidden and those on a closed one shown", async () => {
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const closing = await seedMarket(t.services.db);
    await submit(a.apiKey, { marketId: m.id, probability: 0.9, rationale: 'secret' });
    await submit(a.apiKey, { marketId: closing.id, probability: 0.4 });
    const before = await list(b.apiKey, { userId: a.id });
    expect(before.status).toBe(200);
    expect(before.body.forecasts).toEqual([]);
    // The chain head commits to both without showing either.
    expect(before.body.chain).toMatchObject({ userId: a.id, length: 2 });
    expect((await list(b.apiKey, { userId: a.id, marketId: m.id })).body.forecasts).toEqual([]);

    await resolveMarket(t.services.db, closing.id, 'NO');
    const after = await list(b.apiKey, { userId: a.id });
    expect(after.body.forecasts.map((f: { marketId: string; marketClosed: boolean }) => [f.marketId, f.marketClosed])).toEqual([[closing.id, true]]);
    expect(JSON.stringify(after.body)).not.toContain('secret');
    // Over JSON-RPC and MCP the rule is the same.
    const rpc = await rpcCall(t, 'list_forecasts', { userId: a.id }, bearer(b.apiKey));
    expect(rpc.result.forecasts.map((f: { marketId: string }) => f.marketId)).toEqual([closing.id]);
    const mcp = await mcpCall(t, 'list_forecasts', { userId: a.id }, bearer(b.apiKey));
    expect(mcp.result.structuredContent.forecasts.map((f: { marketId: string }) => f.marketId)).toEqual([closing.id]);
    // The owner still sees both.
    expect((await list(a.apiKey)).body.forecasts).toHaveLength(2);
  });

  test('when the market is closed, unknown, or the probability is malformed, then the forecast is refused and nothing is recorded', async () => {
    const a = await registerAgent(t);
    const closed = await seedMarket(t.services.db, { status: 'closed' });
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ marketId: closed.id, probability: 0.5 }, 400, 'MARKET_CLOSED'],
      [{ marketId: 'no-such-market', probability: 0.5 }, 404, 'NOT_FOUND'],
      [{ marketId: m.id, probability: 0.1234567 }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, probability: 1.5 }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, probabilities: [0.5, 0.5] }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, probability: 0.5, rationale: 'x'.repeat(281) }, 400, 'VALIDATION_ERROR'],
      [{ marketId: m.id, probability: 0.5, rationale: 'bell\u0007' }, 400, 'VALIDATION_ERROR'],
      // A lone surrogate is not Unicode text: the record's canonical payload (RFC 8785) has no spelling for it.
      [{ marketId: m.id, probability: 0.5, rationale: 'half \ud800 a pair' }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await submit(a.apiKey, body);
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    expect((await list(a.apiKey)).body).toMatchObject({ forecasts: [], chain: { head: null, length: 0 } });
  });

  test('when submit_forecast and list_forecasts are called over JSON-RPC and MCP, then they answer as REST does', async () => {
    const a = await registerAgent(t);
    const rpc = await rpcCall(t, 'submit_forecast', { marketId: m.id, probability: 0.55 }, bearer(a.apiKey));
    expect(rpc.result.forecast).toMatchObject({ seq: 1, probability: 0.55, mids: [0.61] });
    const mcp = await mcpCall(t, 'submit_forecast', { marketId: m.id, probability: 0.65 }, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent.forecast).toMatchObject({ seq: 2, prevHash: rpc.result.forecast.hash });
    const closed = await seedMarket(t.services.db, { status: 'closed' });
    const refused = await rpcCall(t, 'submit_forecast', { marketId: closed.id, probability: 0.5 }, bearer(a.apiKey));
    expect(refused.error.data.code).toBe('MARKET_CLOSED');
    const mcpRefused = await mcpCall(t, 'submit_forecast', { marketId: closed.id, probability: 0.5 }, bearer(a.apiKey));
    expect(mcpRefused.result.isError).toBe(true);
    expect(mcpRefused.result.structuredContent.code).toBe('MARKET_CLOSED');
    const listed = await mcpCall(t, 'list_forecasts', {}, bearer(a.apiKey));
    expect(listed.result.structuredContent.chain).toEqual({ userId: a.id, head: mcp.result.structuredContent.forecast.hash, length: 2 });
  });

  test('when paper_trade carries a forecast, then it is recorded with the trade; when the trade is refused, nothing is', async () => {
    const a = await registerAgent(t);
    const res = await buy(a.apiKey, { forecast: 0.75 });
    expect(res.status).toBe(200);
    const [f] = (await list(a.apiKey)).body.forecasts;
    expect(f).toMatchObject({ source: 'paper_trade', marketId: m.id, probability: 0.75, mids: [0.61], seq: 1 });

    const short = await buy(a.apiKey, { amount: 5000, forecast: 0.8 });
    expect(short.body.code).toBe('INSUFFICIENT_BALANCE');
    const badForecast = await buy(a.apiKey, { forecast: 0.1234567 });
    expect(badForecast.body.code).toBe('VALIDATION_ERROR');
    await t.services.db.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [m.id]);
    expect((await buy(a.apiKey, { forecast: 0.8 })).body.code).toBe('MARKET_CLOSED');
    expect((await list(a.apiKey)).body.chain.length).toBe(1);
    expect(await balance(a.apiKey)).toBe(990);

    // Over JSON-RPC and MCP too.
    const open = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, open.yes, 0.5, 0.5);
    const args = { marketId: open.id, marketSlug: open.slug, tokenId: open.yes, outcome: 'YES', amount: 5 };
    expect((await rpcCall(t, 'paper_trade', { ...args, forecast: 0.6 }, bearer(a.apiKey))).result.success).toBe(true);
    expect((await mcpCall(t, 'paper_trade', { ...args, forecast: 0.65 }, bearer(a.apiKey))).result.structuredContent.success).toBe(true);
    expect((await list(a.apiKey, { marketId: open.id })).body.forecasts.map((x: { probability: number }) => x.probability)).toEqual([0.65, 0.6]);
    expect(await verify(a)).toMatchObject({ ok: true, length: 3 });
  });

  test('when a paper_trade with a forecast is retried with its idempotency key, then one trade and one forecast are recorded', async () => {
    const a = await registerAgent(t);
    const first = await buy(a.apiKey, { forecast: 0.7 }).set('Idempotency-Key', 'fc-1');
    const again = await buy(a.apiKey, { forecast: 0.7 }).set('Idempotency-Key', 'fc-1');
    expect(again.body).toEqual(first.body);
    expect((await list(a.apiKey)).body.chain.length).toBe(1);
  });

  test('when place_order carries a forecast, then it is recorded with the order; a refused, rejected or repeated order records none', async () => {
    const a = await registerAgent(t);
    const order = (body: Record<string, unknown>) =>
      t.api
        .post('/api/orders')
        .set(bearer(a.apiKey))
        .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', limitPrice: 0.5, size: 20, ...body });
    const resting = await order({ forecast: 0.66, clientOrderId: 'fc-order' });
    expect(resting.status).toBe(200);
    const repeat = await order({ forecast: 0.3, clientOrderId: 'fc-order' });
    expect(repeat.body.order.id).toBe(resting.body.order.id);
    expect((await order({ size: 5000, forecast: 0.1 })).body.code).toBe('INSUFFICIENT_BALANCE');
    const fok = await order({ timeInForce: 'FOK', limitPrice: 0.5, forecast: 0.2 });
    expect(fok.body.order.state).toBe('rejected');
    // An order that fills now: its forecast rides the engine's intent with the fill, recorded once.
    const crossing = await order({ timeInForce: 'IOC', limitPrice: 0.99, size: 10, forecast: 0.8 });
    expect(crossing.body.order.state).toBe('filled');
    const listed = (await list(a.apiKey)).body.forecasts;
    expect(listed.map((f: { source: string; probability: number }) => [f.source, f.probability])).toEqual([
      ['place_order', 0.8],
      ['place_order', 0.66],
    ]);
  });

  test('when buy_community_shares carries forecasts, then they are recorded with the pool prices; a mismatched count refuses the buy', async () => {
    const a = await registerAgent(t);
    const cm = await communityMarket();
    const alpha = cm.outcomeTokens[0]!.tokenId;
    const res = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: alpha, amount: 20, forecasts: [0.5, 0.3, 0.2] });
    expect(res.status).toBe(200);
    const [f] = (await list(a.apiKey)).body.forecasts;
    expect(f).toMatchObject({ source: 'buy_community_shares', venue: 'community', marketId: cm.id, probability: null, probabilities: [0.5, 0.3, 0.2] });
    const market = (await t.api.get(`/api/user-markets/${cm.id}`)).body;
    expect(f.mids).toEqual(market.outcomeTokens.map((o: { price: number }) => o.price));

    const before = await balance(a.apiKey);
    const wrong = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: alpha, amount: 20, forecasts: [0.5, 0.5] });
    expect(wrong.body.code).toBe('VALIDATION_ERROR');
    const notOne = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: alpha, amount: 20, forecasts: [0.5, 0.3, 0.3] });
    expect(notOne.body.code).toBe('VALIDATION_ERROR');
    expect(await balance(a.apiKey)).toBe(before);
    expect((await list(a.apiKey)).body.chain.length).toBe(1);

    const stated = await submit(a.apiKey, { marketId: cm.id, probabilities: [0.2, 0.2, 0.6] });
    expect(stated.body.forecast).toMatchObject({ venue: 'community', seq: 2, probabilities: [0.2, 0.2, 0.6] });
    expect((await submit(a.apiKey, { marketId: cm.id, probability: 0.2 })).body.code).toBe('VALIDATION_ERROR');
    expect(await verify(a)).toMatchObject({ ok: true, length: 2 });
  });

  test('when one stored forecast is altered in SQL, then its chain no longer verifies', async () => {
    const a = await registerAgent(t);
    for (const p of [0.3, 0.4, 0.5]) await submit(a.apiKey, { marketId: m.id, probability: p });
    expect(await verify(a)).toMatchObject({ ok: true, length: 3 });
    await t.services.db.query(`UPDATE forecasts SET probabilities_micro = ARRAY[900000]::bigint[] WHERE user_id = $1 AND seq = 2`, [a.id]);
    expect(await verify(a)).toMatchObject({ ok: false, seq: 2 });
  });
}

describe.each(backends())('forecasts on $name', suite);

describeOnPostgres('concurrent forecasts on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  test('when one account states many forecasts and trades at once, then its chain never forks', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.5, 0.5);
    const calls = Array.from({ length: 16 }, (_, i) =>
      i % 2
        ? t.api
            .post('/api/forecasts')
            .set(bearer(a.apiKey))
            .send({ marketId: m.id, probability: i / 100 })
        : t.api
            .post('/api/trade')
            .set(bearer(a.apiKey))
            .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 1, forecast: i / 100 }),
    );
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(await verifyChain(await t.services.forecasts.chain(a.id))).toMatchObject({ ok: true, length: 16 });
  });
});
