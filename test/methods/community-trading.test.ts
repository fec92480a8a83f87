import { backends } from '../support/backends';
import { COMMUNITY_MIN_TRADERS } from '../../src/domain/track-record/record-rule';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { signedInPerson, sessionCookieOf, ManualClock, HOUR } from '../support/identity';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

describe.each(backends())('community market trading on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
  });
  afterAll(async () => t.close());

  type Person = { id: string; cookie: string; origin: string };
  const create = (p: Person, over: Record<string, unknown> = {}) =>
    t.api
      .post('/api/user-markets')
      .set('Cookie', p.cookie)
      .set('Origin', p.origin)
      .send({
        question: 'Which band headlines the harbour festival?',
        category: 'Culture',
        outcomes: ['Alpha', 'Beta', 'Gamma'],
        endDate: new Date(clock.now().getTime() + 48 * HOUR).toISOString(),
        ...over,
      });
  const resolve = (p: Person, id: string, outcome: string, reason?: string) =>
    t.api
      .post(`/api/user-markets/${id}/resolve`)
      .set('Cookie', p.cookie)
      .set('Origin', p.origin)
      .send(reason === undefined ? { outcome } : { outcome, reason });
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const balanceOf = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body.balance as number;
  const personBalance = async (p: Person) => (await t.api.get('/api/user/balance').set('Cookie', p.cookie)).body.balance as number;
  /** A person with both an API key and a browser session (creating needs the session, trading the key). */
  const agentWithSession = async () => {
    const a = await registerAgent(t, 'Creator');
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: a.email, password: 'password123' });
    return { id: a.id, apiKey: a.apiKey, cookie: sessionCookieOf(login)!, origin: t.config.BASE_URL! };
  };
  const audit = async () => expect((await auditLedger(t.services.db)).violations).toEqual([]);

  test('when a market is created, then the creator funds its market maker by a ledger entry and every outcome opens at 1/n with a token', async () => {
    const p = await signedInPerson(t);
    const res = await create(p, { liquidity: 120 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ liquidity: 120, poolCash: 120, volume: 0, tradeCount: 0, creatorTrades: false });
    expect(res.body.outcomeTokens.map((o: { outcome: string }) => o.outcome)).toEqual(['Alpha', 'Beta', 'Gamma']);
    const sum = res.body.outcomeTokens.reduce((a: number, o: { price: number }) => a + o.price, 0);
    expect(Math.abs(sum - 1)).toBeLessThanOrEqual(1e-6);
    expect(await personBalance(p)).toBe(880);
    const skewed = await create(p, { outcomes: ['Yes', 'No'], openingProbabilities: [0.7, 0.3] });
    expect(skewed.body.outcomeTokens.map((o: { price: number }) => o.price)).toEqual([0.7, 0.3]);
    await audit();
  });

  test.each([
    ['liquidity under 50', { liquidity: 49 }, 'VALIDATION_ERROR'],
    ['liquidity above the balance', { liquidity: 5000 }, 'INSUFFICIENT_BALANCE'],
    ['opening probabilities that do not sum to 1', { openingProbabilities: [0.5, 0.3, 0.3] }, 'VALIDATION_ERROR'],
  ])('when creating with %s, then 400 and nothing changes', async (_l, over, code) => {
    const p = await signedInPerson(t);
    const res = await create(p, over);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(await personBalance(p)).toBe(1000);
    expect((await t.api.get('/api/user-markets').query({ creator: p.id, status: 'all' })).body.markets).toEqual([]);
  });

  test('when agents quote and buy over REST, JSON-RPC and MCP, then each fill is priced on the last, the price moves, and limits refuse worse fills with nothing changed', async () => {
    const p = await signedInPerson(t);
    const m = (await create(p)).body;
    const alpha = m.outcomeTokens[0].tokenId as string;
    const a = await registerAgent(t);
    const quote = await t.api.post('/api/user-markets/quote').send({ side: 'BUY', tokenId: alpha, amount: 30 });
    expect(quote.status).toBe(200);
    expect(quote.body.priceBefore).toBeCloseTo(1 / 3, 6);
    expect(quote.body.priceAfter).toBeGreaterThan(quote.body.priceBefore);
    expect(quote.body.priceImpact).toBeCloseTo(quote.body.priceAfter - quote.body.priceBefore, 6);
    expect(quote.body.averagePrice).toBeGreaterThan(quote.body.priceBefore);
    expect(quote.body.averagePrice).toBeLessThan(quote.body.priceAfter);

    // A limit under the quoted average refuses, and nothing changes.
    const refused = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .send({ tokenId: alpha, amount: 30, maxAveragePrice: quote.body.averagePrice - 0.001 });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('PRICE_LIMIT_EXCEEDED');
    expect(await balanceOf(a.apiKey)).toBe(1000);

    const rest = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .set('Idempotency-Key', 'k1')
      .send({ tokenId: alpha, amount: 30, maxAveragePrice: quote.body.averagePrice });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ success: true, quantity: quote.body.quantity, totalCost: 30, outcome: 'Alpha', balance: 970 });
    const replay = await t.api
      .post('/api/user-markets/trade')
      .set(bearer(a.apiKey))
      .set('Idempotency-Key', 'k1')
      .send({ tokenId: alpha, amount: 30, maxAveragePrice: quote.body.averagePrice });
    expect(replay.body).toEqual(rest.body);
    expect(await balanceOf(a.apiKey)).toBe(970);

    const rpc = await rpcCall(t, 'buy_community_shares', { tokenId: alpha, amount: 30 }, bearer(a.apiKey));
    expect(rpc.result.quantity).toBeLessThan(rest.body.quantity); // priced on the state the first buy left
    const mcp = await mcpCall(t, 'buy_community_shares', { tokenId: m.outcomeTokens[1].tokenId, amount: 10 }, bearer(a.apiKey));
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toMatchObject({ outcome: 'Beta', totalCost: 10 });
    const mcpQuote = await mcpCall(t, 'quote_community_trade', { side: 'SELL', tokenId: alpha, quantity: 1 }, {});
    expect(mcpQuote.result.structuredContent.outcome).toBe('Alpha');

    const after = (await t.api.get(`/api/user-markets/${m.slug}`)).body;
    expect(after.outcomeTokens[0].price).toBeGreaterThan(after.outcomeTokens[1].price);
    expect(after.tradeCount).toBe(3);
    expect(after.volume).toBe(70);
    expect(after.poolCash).toBe(170);

    const pf = (await t.api.get('/api/positions').set(bearer(a.apiKey))).body;
    const alphaPos = pf.positions.find((x: { tokenId: string }) => x.tokenId === alpha);
    expect(alphaPos).toMatchObject({ outcome: 'YES', outcomeLabel: 'Alpha', marketSlug: m.slug, currentPrice: after.outcomeTokens[0].price });

    const history = await t.api.get('/api/price-history').query({ tokenId: alpha, interval: 'max' });
    expect(history.status).toBe(200);
    expect(history.body.source).toBe('community');
    expect(history.body.history.length).toBe(4); // the opening price and one point per trade
    expect(history.body.history[0].p).toBeCloseTo(1 / 3, 5);
    expect(history.body.history.at(-1).p).toBe(after.outcomeTokens[0].price);
    const rpcHistory = await rpcCall(t, 'get_price_history', { tokenId: alpha, interval: 'max' });
    expect(rpcHistory.result.history).toEqual(history.body.history);
    await audit();
  });

  test('when shares are sold back, then the seller gets what the rule pays (never more than they cost), with a min price limit', async () => {
    const p = await signedInPerson(t);
    const m = (await create(p, { outcomes: ['Yes', 'No'] })).body;
    const a = await registerAgent(t);
    const buy = (await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: m.outcomeTokens[0].tokenId, amount: 40 })).body;
    const halfQ = Math.floor(buy.quantity * 500_000) / 1e6;
    const q = await t.api.post('/api/user-markets/quote').send({ side: 'SELL', tokenId: m.outcomeTokens[0].tokenId, quantity: halfQ });
    const tooHigh = await t.api
      .post(`/api/user-markets/positions/${buy.positionId}/sell`)
      .set(bearer(a.apiKey))
      .send({ quantity: halfQ, minAveragePrice: q.body.averagePrice + 0.001 });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.code).toBe('PRICE_LIMIT_EXCEEDED');
    const half = await t.api
      .post(`/api/user-markets/positions/${buy.positionId}/sell`)
      .set(bearer(a.apiKey))
      .send({ quantity: halfQ, minAveragePrice: q.body.averagePrice });
    expect(half.status).toBe(200);
    expect(half.body.proceeds).toBe(q.body.amount);
    // The rest through the mirrored markets' sell_position: the same position, the same market maker.
    const rest = await t.api.post(`/api/positions/${buy.positionId}/sell`).set(bearer(a.apiKey)).send({});
    expect(rest.body).toMatchObject({ success: true, isClosed: true });
    expect(half.body.proceeds + rest.body.proceeds).toBeLessThanOrEqual(40);
    const m2 = (await t.api.get(`/api/user-markets/${m.id}`)).body;
    expect(m2.outcomeTokens.map((o: { price: number }) => o.price)).toEqual([0.5, 0.5]);
    await audit();
  });

  test('when the endDate passes, then buys and sells are refused with MARKET_CLOSED and nothing changes', async () => {
    const p = await signedInPerson(t);
    const m = (await create(p, { outcomes: ['Yes', 'No'], endDate: new Date(clock.now().getTime() + HOUR).toISOString() })).body;
    const a = await registerAgent(t);
    const buy = (await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: m.outcomeTokens[0].tokenId, amount: 10 })).body;
    clock.advance(HOUR + 1000);
    try {
      const late = await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: m.outcomeTokens[0].tokenId, amount: 10 });
      expect(late.status).toBe(400);
      expect(late.body.code).toBe('MARKET_CLOSED');
      const sell = await t.api.post(`/api/positions/${buy.positionId}/sell`).set(bearer(a.apiKey)).send({});
      expect(sell.body.code).toBe('MARKET_CLOSED');
      expect(await balanceOf(a.apiKey)).toBe(990);
    } finally {
      clock.advance(0);
    }
  });

  test('when the creator resolves, then winners get 1 a share, losers 0, the track record counts it, and the pool remainder returns to the creator', async () => {
    const p = await agentWithSession();
    const m = (await create(p, { liquidity: 100 })).body;
    const [alpha, beta] = m.outcomeTokens.map((o: { tokenId: string }) => o.tokenId);
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const ba = (await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: alpha, amount: 50 })).body;
    await t.api.post('/api/user-markets/trade').set(bearer(b.apiKey)).send({ tokenId: beta, amount: 20 });
    // The creator trades their own market too (with their API key): shown on the market.
    await t.api.post('/api/user-markets/trade').set(bearer(p.apiKey)).send({ tokenId: beta, amount: 5 });
    expect((await t.api.get(`/api/user-markets/${m.id}`)).body.creatorTrades).toBe(true);
    const poolBefore = (await t.api.get(`/api/user-markets/${m.id}`)).body.poolCash as number;
    const creatorBefore = await personBalance(p);
    clock.advance(48 * HOUR + 1000); // past its end date: an outcome may be declared
    const done = await resolve(p, m.id, 'Alpha');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'resolved', resolvedOutcome: 'Alpha', poolCash: 0 });
    expect(await balanceOf(a.apiKey)).toBeCloseTo(950 + ba.quantity, 6);
    expect(await balanceOf(b.apiKey)).toBe(980);
    // The creator gets back what the pool held less the winners' payout (plus nothing for their losing shares).
    expect(await personBalance(p)).toBeCloseTo(creatorBefore + poolBefore - ba.quantity, 6);
    const pa = (await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions[0];
    expect(pa).toMatchObject({ isClosed: true, quantity: 0 });
    expect(pa.realizedPnl).toBeCloseTo(ba.quantity - 50, 6);
    const notes = await t.services.db.query<{ title: string }>("SELECT title FROM notifications WHERE user_id = $1 AND type = 'resolution'", [a.id]);
    expect(notes.map((n) => n.title)).toEqual(['Your position won']);
    const trades = await t.api.get('/api/trades').set(bearer(a.apiKey));
    expect(trades.body.trades.map((x: { kind: string }) => x.kind)).toContain('settlement');
    // Reputation: a community market counts in no forecasting record (issue 49 item 3): its settlement is not scored.
    const rep = (await t.api.get(`/api/agents/${a.id}/reputation`)).body;
    expect(rep.forecasting.settledPositions).toBe(0);
    expect(rep.recentSettled).toEqual([]);
    const after = await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: alpha, amount: 1 });
    expect(after.body.code).toBe('MARKET_CLOSED');
    await audit();
  });

  test('when the creator resolves VOID, then every holder is paid back what their shares cost and the creator gets the subsidy back', async () => {
    const p = await signedInPerson(t);
    const m = (await create(p, { outcomes: ['Yes', 'No'] })).body;
    const a = await registerAgent(t);
    await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: m.outcomeTokens[0].tokenId, amount: 25 });
    await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: m.outcomeTokens[1].tokenId, amount: 5 });
    const done = await resolve(p, m.id, 'void', 'The festival was cancelled.');
    expect(done.body).toMatchObject({ resolvedOutcome: 'VOID', poolCash: 0 });
    expect(await balanceOf(a.apiKey)).toBe(1000);
    expect(await personBalance(p)).toBe(1000);
    await audit();
  });
});

/** Community fills count against the same per-account trade limit as mirrored ones, and feed the same track record. */
describe.each(backends())('community market trades, limits and the track record on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { RATE_LIMIT_TRADE_PER_MIN: 3 } });
  });
  afterAll(async () => t.close());

  test('when an agent buys past its trade limit, then 429 RATE_LIMITED with nothing changed; its fills show on the boards and earn XP', async () => {
    const p = await signedInPerson(t);
    const m = (
      await t.api
        .post('/api/user-markets')
        .set('Cookie', p.cookie)
        .set('Origin', p.origin)
        .send({
          question: 'Which ferry leaves first tomorrow?',
          category: 'Travel',
          outcomes: ['North', 'South'],
          endDate: new Date(Date.now() + 48 * HOUR).toISOString(),
        })
    ).body;
    const north = m.outcomeTokens[0].tokenId as string;
    // Traders before it, so the market has had COMMUNITY_MIN_TRADERS besides its creator once the agent buys (record-rule.ts).
    for (let i = 1; i < COMMUNITY_MIN_TRADERS; i++) {
      const f = await registerAgent(t);
      expect(
        (
          await t.api
            .post('/api/user-markets/trade')
            .set({ Authorization: `Bearer ${f.apiKey}` })
            .send({ tokenId: north, amount: 1 })
        ).status,
      ).toBe(200);
    }
    const a = await registerAgent(t);
    const auth = { Authorization: `Bearer ${a.apiKey}` };
    const xpBefore = (await t.api.get(`/api/user/stats`).query({ userId: a.id }).set(auth)).body;
    for (let i = 0; i < 3; i++) expect((await t.api.post('/api/user-markets/trade').set(auth).send({ tokenId: north, amount: 5 })).status).toBe(200);
    const balance = (await t.api.get('/api/user/balance').set(auth)).body.balance as number;
    const limited = await t.api.post('/api/user-markets/trade').set(auth).send({ tokenId: north, amount: 5 });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await t.api.get('/api/user/balance').set(auth)).body.balance).toBe(balance);
    expect((await t.api.get(`/api/user-markets/${m.id}`)).body.tradeCount).toBe(COMMUNITY_MIN_TRADERS - 1 + 3);

    const board = await t.api.get('/api/leaderboard').query({ period: 'alltime', metric: 'trades', audience: 'bots' }).set(auth);
    expect(board.status).toBe(200);
    expect(board.body.leaderboard.find((r: { user: { id: string } }) => r.user.id === a.id)).toMatchObject({ value: 3, isCurrentUser: true });
    const stats = (await t.api.get(`/api/user/stats`).query({ userId: a.id }).set(auth)).body;
    expect(stats.level.xp).toBeGreaterThan(xpBefore.level.xp);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
});
