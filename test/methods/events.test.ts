import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

/** list_events: the polling fallback of the pushed events, on every surface. */
describe.each(backends())('list_events on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let agent: { id: string; apiKey: string };
  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
    agent = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    for (let i = 0; i < 2; i += 1) {
      const res = await t.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${agent.apiKey}`)
        .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 });
      expect(res.status).toBe(200);
    }
  });
  afterAll(() => t.close());
  const bearer = () => ({ Authorization: `Bearer ${agent.apiKey}` });

  test('when read over REST in pages, then every event comes once, in seq order (a number), and lastSeq carries on', async () => {
    // The log: the grant's balance, then per trade its trade and balance (the first also a First Trade notification).
    const first = await t.api.get('/api/user/events?limit=2').set(bearer());
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual([
      [1, 'balance'],
      [2, 'trade'],
    ]);
    expect(first.body).toMatchObject({ lastSeq: '2', hasMore: true });
    const rest = await t.api.get(`/api/user/events?afterSeq=${first.body.lastSeq}&limit=10`).set(bearer());
    expect(rest.body.events.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual([
      [3, 'balance'],
      [4, 'notification'],
      [5, 'trade'],
      [6, 'balance'],
    ]);
    expect(rest.body).toMatchObject({ lastSeq: '6', hasMore: false });
    const none = await t.api.get('/api/user/events?afterSeq=6').set(bearer());
    expect(none.body).toEqual({ events: [], nextCursor: '6', lastSeq: '6', hasMore: false });
  });

  test('when types are given (comma-separated or repeated), then only those types are listed', async () => {
    const comma = await t.api.get('/api/user/events?types=trade').set(bearer());
    expect(comma.body.events.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual([
      [2, 'trade'],
      [5, 'trade'],
    ]);
    const repeated = await t.api.get('/api/user/events?types=trade&types=balance&afterSeq=3').set(bearer());
    expect(repeated.body.events.map((e: { seq: number }) => e.seq)).toEqual([5, 6]);
  });

  test('when the input is bad or the caller unknown, then a clear error and nothing else', async () => {
    for (const q of ['afterSeq=-1', 'afterSeq=abc', 'limit=0', 'limit=501', 'types=fills']) {
      const res = await t.api.get(`/api/user/events?${q}`).set(bearer());
      expect([q, res.status, res.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
    expect((await t.api.get('/api/user/events')).status).toBe(401);
  });

  test('when called over JSON-RPC and MCP, then the answer is the same as over REST', async () => {
    const rest = (await t.api.get('/api/user/events?afterSeq=1&limit=2').set(bearer())).body;
    const rpc = await rpcCall(t, 'list_events', { afterSeq: '1', limit: 2 }, bearer());
    expect(rpc.result).toEqual(rest);
    const mcp = await mcpCall(t, 'list_events', { afterSeq: '1', limit: 2 }, bearer());
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toEqual(rest);
    const other = await registerAgent(t);
    const theirs = await rpcCall(t, 'list_events', {}, { Authorization: `Bearer ${other.apiKey}` });
    expect(theirs.result.events.map((e: { type: string }) => e.type)).toEqual(['balance']);
  });
});
