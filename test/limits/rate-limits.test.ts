import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';

/**
 * Limits per the issue: registration 5/min per IP, other API 30/min per IP, trades and sells 120/min per
 * account. Authenticated calls count per account (an agent behind a shared address keeps its own budget);
 * anonymous ones per IP. Here the limits are set low; TRUST_PROXY 1 lets a test speak from many addresses
 * through X-Forwarded-For, as a deployment behind one proxy does.
 */
const LIMITS = { RATE_LIMIT_REGISTER_PER_MIN: 2, RATE_LIMIT_API_PER_MIN: 3, RATE_LIMIT_TRADE_PER_MIN: 4, RATE_LIMIT_SELL_PER_MIN: 2 };
const MCP_ACCEPT = 'application/json, text/event-stream';

let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter % 250}`;

function expect429(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, cls: string, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('RATE_LIMITED');
  expect(typeof res.body.error).toBe('string');
  expect(res.body.hint).toMatch(/^Retry after \d+ seconds\.$/);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.body.retryAfterSeconds).toBe(retryAfter);
  expect(res.headers['ratelimit']).toBe(`"${cls}";r=0;t=${retryAfter}`);
  expect(res.headers['ratelimit-policy']).toBe(`"${cls}";q=${limit};w=60`);
}

describe.each(backends())('rate limits on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { ...LIMITS, TRUST_PROXY: 1 } });
  });
  afterAll(async () => t.close());

  let n = 0;
  /** A fresh agent, registered from its own address so registrations never use up a test's budget. */
  const agentFrom = async (): Promise<{ id: string; apiKey: string }> => {
    n += 1;
    const res = await t.api
      .post('/api/auth/register')
      .set('X-Forwarded-For', `198.18.${Math.floor(n / 250)}.${n % 250}`)
      .send({ email: `rl${n}-${Date.now()}@example.com`, password: 'password123', displayName: `Rl${n}`, isAgent: true });
    expect(res.status).toBe(201);
    return res.body.user;
  };
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const trade = (key: string, ip: string) =>
    t.api
      .post('/api/trade')
      .set({ ...bearer(key), 'X-Forwarded-For': ip })
      .send({ marketId: 'no-such-market', marketSlug: 'no-such-market', tokenId: 'no-such-token', outcome: 'YES', amount: 1 });
  const sell = (key: string, ip: string) =>
    t.api
      .post('/api/positions/00000000-0000-4000-8000-000000000000/sell')
      .set({ ...bearer(key), 'X-Forwarded-For': ip })
      .send({});
  const rpc = (body: unknown, headers: Record<string, string>) =>
    t.api
      .post('/api/a2a')
      .set({ 'Content-Type': 'application/json', ...headers })
      .send(body as object);
  const rpcCall = (method: string, params: Record<string, unknown> = {}, id = 1) => ({ jsonrpc: '2.0', id, method, params });
  const mcpCall = (name: string, headers: Record<string, string>, args: Record<string, unknown> = {}) =>
    t.api
      .post('/mcp')
      .set({ Accept: MCP_ACCEPT, 'Content-Type': 'application/json', ...headers })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  describe('on REST', () => {
    test('when an address registers more than the limit, then 429 with a JSON body, Retry-After and the IETF RateLimit headers; another address may register', async () => {
      const ip = freshIp();
      const register = (from: string) =>
        t.api
          .post('/api/auth/register')
          .set('X-Forwarded-For', from)
          .send({ email: `r${Math.random().toString(36).slice(2)}@example.com`, password: 'password123', displayName: 'Reg' });
      expect((await register(ip)).status).toBe(201);
      expect((await register(ip)).status).toBe(201);
      const res = await register(ip);
      expect429(res, 'register', 2);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect((await register(freshIp())).status).toBe(201);
    });

    test('when an anonymous address calls other API endpoints more than the limit, then 429; another address is served', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) expect((await t.api.get('/api/a2a').set('X-Forwarded-For', ip)).status).toBe(200);
      expect429(await t.api.get('/api/a2a').set('X-Forwarded-For', ip), 'api', 3);
      expect((await t.api.get('/api/a2a').set('X-Forwarded-For', freshIp())).status).toBe(200);
    });

    test('when the address is exhausted by anonymous calls, then an agent behind it still has its own per-account budget', async () => {
      const ip = freshIp();
      for (let i = 0; i < 4; i++) await t.api.get('/api/a2a').set('X-Forwarded-For', ip);
      expect((await t.api.get('/api/a2a').set('X-Forwarded-For', ip)).status).toBe(429);
      const [a, b] = [await agentFrom(), await agentFrom()];
      for (let i = 0; i < 3; i++) expect((await t.api.get('/api/user/balance').set({ ...bearer(a.apiKey), 'X-Forwarded-For': ip })).status).toBe(200);
      expect429(await t.api.get('/api/user/balance').set({ ...bearer(a.apiKey), 'X-Forwarded-For': ip }), 'api', 3);
      expect((await t.api.get('/api/user/balance').set({ ...bearer(b.apiKey), 'X-Forwarded-For': ip })).status).toBe(200);
    });

    test('when an agent trades past its per-account limit, then 429 "trade"; its other calls and other agents on the same address are unaffected', async () => {
      const ip = freshIp();
      const [a, b] = [await agentFrom(), await agentFrom()];
      for (let i = 0; i < 4; i++) expect((await trade(a.apiKey, ip)).status).not.toBe(429);
      expect429(await trade(a.apiKey, ip), 'trade', 4);
      expect((await trade(b.apiKey, ip)).status).not.toBe(429);
      // Trades have their own budget: they did not use up the api class.
      expect((await t.api.get('/api/user/balance').set({ ...bearer(a.apiKey), 'X-Forwarded-For': ip })).status).toBe(200);
    });

    test('when an agent sells past its per-account limit, then 429 "sell"', async () => {
      const a = await agentFrom();
      const ip = freshIp();
      for (let i = 0; i < 2; i++) expect((await sell(a.apiKey, ip)).status).not.toBe(429);
      expect429(await sell(a.apiKey, ip), 'sell', 2);
    });

    test('when bad credentials are tried, then each failure counts against the address, so guessing is throttled', async () => {
      const ip = freshIp();
      const bad = { Authorization: 'Bearer svc_00000000000000000000000000000000', 'X-Forwarded-For': ip };
      for (let i = 0; i < 3; i++) expect((await t.api.get('/api/user/balance').set(bad)).status).toBe(401);
      expect429(await t.api.get('/api/user/balance').set(bad), 'api', 3);
    });

    test('when a client prepends its own X-Forwarded-For entries, then with TRUST_PROXY=1 only the proxy-added hop counts', async () => {
      const real = freshIp();
      for (let i = 0; i < 3; i++) expect((await t.api.get('/api/a2a').set('X-Forwarded-For', `10.0.0.${i}, ${real}`)).status).toBe(200);
      expect((await t.api.get('/api/a2a').set('X-Forwarded-For', `10.9.9.9, ${real}`)).status).toBe(429);
    });

    test('when IPv6 addresses share a /56 prefix, then they share one counter; another /56 has its own', async () => {
      const call = (ip: string) => t.api.get('/api/a2a').set('X-Forwarded-For', ip);
      expect((await call('2001:db8:abcd:1200::1')).status).toBe(200);
      expect((await call('2001:db8:abcd:12ff::2')).status).toBe(200);
      expect((await call('2001:db8:abcd:1234:5678::3')).status).toBe(200);
      expect((await call('2001:db8:abcd:1201::4')).status).toBe(429);
      expect((await call('2001:db8:abcd:1300::1')).status).toBe(200);
    });
  });

  describe('on JSON-RPC (POST /api/a2a)', () => {
    test('when a single call is over the limit, then HTTP 429 with Retry-After and a JSON-RPC error carrying RATE_LIMITED', async () => {
      const a = await agentFrom();
      const headers = { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() };
      for (let i = 0; i < 3; i++) expect((await rpc(rpcCall('get_balance'), headers)).body.result).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      const res = await rpc(rpcCall('get_balance'), headers);
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['ratelimit-policy']).toBe('"api";q=3;w=60');
      expect(res.body.error.code).toBe(-32029);
      expect(res.body.error.data).toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429, hint: expect.stringMatching(/^Retry after \d+ seconds\.$/) });
      expect(res.body.error.data.retryAfterSeconds).toBe(Number(res.headers['retry-after']));
    });

    test('when a batch holds more calls than the limit allows, then each call counts and the excess calls answer RATE_LIMITED', async () => {
      const a = await agentFrom();
      const res = await rpc(
        [1, 2, 3, 4, 5].map((id) => rpcCall('get_balance', {}, id)),
        { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() },
      );
      expect(res.status).toBe(200);
      const byId = new Map<number, { result?: unknown; error?: { data: { code: string } } }>(res.body.map((r: { id: number }) => [r.id, r]));
      expect([1, 2, 3].map((id) => byId.get(id)!.result)).toEqual([
        { balance: 1000, reserved: 0, available: 1000 },
        { balance: 1000, reserved: 0, available: 1000 },
        { balance: 1000, reserved: 0, available: 1000 },
      ]);
      expect([4, 5].map((id) => byId.get(id)!.error!.data.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    });

    test('when a call inside a batch is rate limited, then its error data carries retryAfterSeconds, since the batch answers 200 with no Retry-After', async () => {
      const a = await agentFrom();
      const res = await rpc(
        [1, 2, 3, 4].map((id) => rpcCall('get_balance', {}, id)),
        { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() },
      );
      expect(res.status).toBe(200);
      expect(res.headers['retry-after']).toBeUndefined();
      const limited = res.body.find((r: { id: number }) => r.id === 4);
      expect(limited.error.data).toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429 });
      const wait = limited.error.data.retryAfterSeconds;
      expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true);
      expect(limited.error.data.hint).toBe(`Retry after ${wait} seconds.`);
    });

    test('when registrations come over REST and JSON-RPC from one address, then they share the register limit', async () => {
      const ip = freshIp();
      const body = () => ({ email: `x${Math.random().toString(36).slice(2)}@example.com`, password: 'password123', displayName: 'Both', isAgent: true });
      expect((await t.api.post('/api/auth/register').set('X-Forwarded-For', ip).send(body())).status).toBe(201);
      expect((await rpc(rpcCall('register_account', body()), { 'X-Forwarded-For': ip })).body.result.success).toBe(true);
      const third = await rpc(rpcCall('register_account', body()), { 'X-Forwarded-For': ip });
      expect(third.status).toBe(429);
      expect(third.body.error.data.code).toBe('RATE_LIMITED');
    });

    test('when an agent trades over JSON-RPC past its limit, then RATE_LIMITED', async () => {
      const a = await agentFrom();
      const headers = { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() };
      const params = { marketId: 'm', marketSlug: 'm', tokenId: 't', outcome: 'YES', amount: 1 };
      for (let i = 0; i < 4; i++) expect((await rpc(rpcCall('paper_trade', params), headers)).body.error?.data?.code).not.toBe('RATE_LIMITED');
      expect((await rpc(rpcCall('paper_trade', params), headers)).body.error.data.code).toBe('RATE_LIMITED');
    });
  });

  describe('on MCP (POST /mcp tools/call)', () => {
    test('when tool calls go over the limit, then the tool result is an error with code RATE_LIMITED and a retry hint', async () => {
      const a = await agentFrom();
      const headers = { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() };
      for (let i = 0; i < 3; i++) {
        const ok = await mcpCall('get_balance', headers);
        expect(ok.status).toBe(200);
        expect(ok.body.result.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      }
      const res = await mcpCall('get_balance', headers);
      expect(res.status).toBe(200);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.structuredContent).toMatchObject({ code: 'RATE_LIMITED', hint: expect.stringMatching(/^Retry after \d+ seconds\.$/) });
      // A tool result has no header of its own: the wait is in the error body, and in the text block that mirrors it.
      const wait = res.body.result.structuredContent.retryAfterSeconds;
      expect(Number.isInteger(wait) && wait >= 1 && wait <= 60).toBe(true);
      expect(res.body.result.structuredContent.hint).toBe(`Retry after ${wait} seconds.`);
      expect(JSON.parse(res.body.result.content[0].text).retryAfterSeconds).toBe(wait);
    });

    test('when one agent calls over REST, JSON-RPC and MCP, then all three draw on one per-account budget', async () => {
      const a = await agentFrom();
      const headers = { ...bearer(a.apiKey), 'X-Forwarded-For': freshIp() };
      expect((await t.api.get('/api/user/balance').set(headers)).status).toBe(200);
      expect((await rpc(rpcCall('get_balance'), headers)).status).toBe(200);
      expect((await mcpCall('get_balance', headers)).body.result.structuredContent).toEqual({ balance: 1000, reserved: 0, available: 1000 });
      expect429(await t.api.get('/api/user/balance').set(headers), 'api', 3);
    });

    test('when anonymous public tool calls exceed the per-IP limit, then RATE_LIMITED', async () => {
      const headers = { 'X-Forwarded-For': freshIp() };
      for (let i = 0; i < 3; i++) expect((await mcpCall('agent_getCard', headers)).body.result.isError).toBeFalsy();
      expect((await mcpCall('agent_getCard', headers)).body.result.structuredContent.code).toBe('RATE_LIMITED');
    });
  });
});

describe.each(backends())('without TRUST_PROXY on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: LIMITS });
  });
  afterAll(async () => t.close());

  test('when a client sends a different X-Forwarded-For each time, then it is ignored and the socket address is limited', async () => {
    for (let i = 0; i < 3; i++) expect((await t.api.get('/api/a2a').set('X-Forwarded-For', `10.1.1.${i}`)).status).toBe(200);
    expect((await t.api.get('/api/a2a').set('X-Forwarded-For', '10.1.1.99')).status).toBe(429);
  });
});
