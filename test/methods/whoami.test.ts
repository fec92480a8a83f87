import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';

const ACCEPT = 'application/json, text/event-stream';
const LIMITS = { RATE_LIMIT_API_PER_MIN: 50, RATE_LIMIT_TRADE_PER_MIN: 7, RATE_LIMIT_REGISTER_PER_MIN: 20, TRUST_PROXY: 1 };

interface Standing {
  class: string;
  limit: number;
  remaining: number;
  resetsAt: string | null;
  countedBy: string;
}

// Issue 51 item 7: one method answers who and where a call is.
describe.each(backends())('whoami on $name', (backend) => {
  let t: TestApp;
  let agent: { id: string; apiKey: string };
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true, config: LIMITS });
    const res = await t.api
      .post('/api/auth/register')
      .set('X-Forwarded-For', '198.51.100.7')
      .send({ email: `who-${Date.now()}@example.com`, password: 'password123', displayName: 'Who', isAgent: true });
    agent = res.body.user;
  });
  afterAll(async () => t.close());

  const byClass = (limits: Standing[]) => Object.fromEntries(limits.map((l) => [l.class, l]));

  test('when an agent asks over REST, then it gets its account, live venue and feed, and each limit with what remains (this call counted)', async () => {
    const headers = { Authorization: `Bearer ${agent.apiKey}`, 'X-Forwarded-For': '198.51.100.8' };
    const first = await t.api.get('/api/whoami').set(headers);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      account: { userId: agent.id, isAgent: true, via: 'key' },
      replay: null,
      venue: 'live',
      feed: t.config.MARKET_FEED,
    });
    const limits = byClass(first.body.limits);
    expect(Object.keys(limits).sort()).toEqual(['api', 'comment', 'login', 'register', 'sell', 'trade']);
    expect(limits.api).toMatchObject({ limit: 50, remaining: 49, countedBy: 'account' });
    expect(limits.trade).toMatchObject({ limit: 7, remaining: 7, resetsAt: null, countedBy: 'account' });
    expect(limits.register).toMatchObject({ limit: 20, countedBy: 'ip' });
    // A refused trade still counts: whoami then shows one trade fewer.
    await t.api.post('/api/trade').set(headers).send({ marketId: 'no-such-market', outcome: 'YES', amount: 1 });
    const second = byClass((await t.api.get('/api/whoami').set(headers)).body.limits);
    expect(second.api!.remaining).toBe(48);
    expect(second.trade!.remaining).toBe(6);
    expect(Date.parse(second.trade!.resetsAt!)).toBeGreaterThan(Date.now());
  });

  test('when an anonymous caller asks, then it has no account and its limits are its address’s', async () => {
    const res = await t.api.get('/api/whoami').set('X-Forwarded-For', '198.51.100.9');
    expect(res.status).toBe(200);
    expect(res.body.account).toBeNull();
    const limits = byClass(res.body.limits);
    expect(limits.api).toMatchObject({ remaining: 49, countedBy: 'ip' });
  });

  test('when asked over JSON-RPC and MCP, then the answer is the same method’s (the tool is in the default set)', async () => {
    const headers = { Authorization: `Bearer ${agent.apiKey}` };
    const rpc = await t.api.post('/api/a2a').set(headers).send({ jsonrpc: '2.0', id: 1, method: 'whoami', params: {} });
    expect(rpc.body.result).toMatchObject({ account: { userId: agent.id }, venue: 'live' });
    const mcp = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    }).then((r) => r.json() as Promise<{ result: { structuredContent: Record<string, unknown> } }>);
    expect(mcp.result.structuredContent).toMatchObject({ account: { userId: agent.id }, venue: 'live', replay: null });
  });

  test('when a replay run’s key asks, then it names the run, the replay venue and its feed, and the run’s clock', async () => {
    const started = await t.api.post('/api/replays').set('Authorization', `Bearer ${agent.apiKey}`).send({ seed: 7, days: 3, mode: 'step' });
    expect(started.status).toBe(201);
    const res = await t.api.get('/api/whoami').set('Authorization', `Bearer ${started.body.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ replay: { runId: started.body.runId, state: 'running', mode: 'step' }, venue: 'replay', feed: 'simulated' });
    expect(res.body.account.userId).toBe(started.body.accountId);
    expect(res.body.clock).toBe(started.body.clock);
    // Its limits count under the run, not the live account's: the run's own budget, the live limit times
    // REPLAY_RATE_LIMIT_TIMES (src/limits/run-budget.ts), less this call.
    const runApi = LIMITS.RATE_LIMIT_API_PER_MIN * t.config.REPLAY_RATE_LIMIT_TIMES;
    expect(runApi).toBeGreaterThan(LIMITS.RATE_LIMIT_API_PER_MIN);
    expect(byClass(res.body.limits).api).toMatchObject({ limit: runApi, remaining: runApi - 1, countedBy: 'account' });
  });
});
