import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { accessToken, sessionCookieOf } from '../support/identity';
import { ControlledPrices, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

type Row = { user: { id: string; displayName: string } };

describe.each(backends())('delete_account on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

  /** An agent that registered, bought and sold in one market, holds a position in a market of its own, and signed in from a browser. */
  async function tradingAgent() {
    const email = `del${Math.random().toString(36).slice(2)}@example.com`;
    const reg = await t.api.post('/api/auth/register').send({ email, password: 'password123', displayName: 'Doomed', isAgent: true, agentDescription: 'bye' });
    expect(reg.status).toBe(201);
    const { id, apiKey } = reg.body.user;
    const buy = (x: SeededMarket, amount: number) =>
      t.api.post('/api/trade').set(bearer(apiKey)).send({ marketId: x.id, marketSlug: x.slug, tokenId: x.yes, outcome: 'YES', amount });
    const first = await buy(m, 100);
    expect(first.status).toBe(200);
    prices.set(m.yes, 0.6, 0.6);
    expect((await t.api.post(`/api/positions/${first.body.positionId}/sell`).set(bearer(apiKey)).send({})).status).toBe(200);
    prices.set(m.yes, 0.5, 0.5);
    const open = await seedMarket(t.services.db);
    prices.set(open.yes, 0.5, 0.5);
    expect((await buy(open, 50)).status).toBe(200);
    const token = await accessToken(t, { id, apiKey });
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email, password: 'password123' });
    const cookie = sessionCookieOf(login)!;
    return { id, apiKey, email, token, cookie, open, session: { Cookie: cookie, Origin: t.config.BASE_URL! } };
  }

  const boardIds = async (query: Record<string, string>) =>
    ((await t.api.get('/api/leaderboard').query({ period: 'alltime', limit: '100', ...query })).body.leaderboard as Row[]).map((r) => r.user.id);

  test('when an account is deleted with its password, then its key, OAuth token and session all get 401 at once, the cookie is cleared, and the books still balance', async () => {
    const a = await tradingAgent();
    // The key was just used, so the authenticator remembers it: deletion must forget it.
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).status).toBe(200);
    for (const metric of ['trades', 'volume', 'pnl']) expect(await boardIds({ metric, audience: 'bots' })).toContain(a.id);
    expect(await boardIds({ metric: 'trades', audience: 'everyone' })).toContain(a.id);

    const res = await t.api.post('/api/user/delete').set(a.session).send({ password: 'password123' });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const cleared = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc.session-token='));
    expect(cleared).toMatch(/svc\.session-token=;.*Expires=Thu, 01 Jan 1970/);

    for (const headers of [bearer(a.apiKey), bearer(a.token), { Cookie: a.cookie }]) {
      const next = await t.api.get('/api/user/balance').set(headers);
      expect(next.status).toBe(401);
    }
    expect((await rpcCall(t, 'get_balance', {}, bearer(a.apiKey))).error.data.code).toBe('UNAUTHORIZED');
    expect((await mcpCall(t, 'get_balance', {}, bearer(a.token))).error.data.code).toBe('UNAUTHORIZED');
    const relogin = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: a.email, password: 'password123' });
    expect(relogin.status).toBe(401);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when an account is deleted, then its personal data is gone, its email can register again, and its trades and ledger stay', async () => {
    const a = await tradingAgent();
    const [before] = await t.services.db.query<{ trades: bigint; ledger: bigint }>(
      `SELECT (SELECT count(*) FROM trades WHERE user_id = $1) AS trades,
         (SELECT count(*) FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND ('cash:' || $1::text) IN (debit_account, credit_account)) AS ledger`,
      [a.id],
    );
    expect((await t.api.post('/api/user/delete').set(bearer(a.apiKey)).send({ password: 'password123' })).status).toBe(200);
    const [row] = await t.services.db.query<Record<string, unknown>>(
      `SELECT email, display_name, agent_description, api_key_hash, referral_code, deleted_at,
         (SELECT count(*) FROM sessions WHERE user_id = u.id) AS sessions, (SELECT count(*) FROM access_tokens WHERE user_id = u.id) AS tokens,
         (SELECT count(*) FROM notifications WHERE user_id = u.id) AS notifications,
         (SELECT count(*) FROM trades WHERE user_id = u.id) AS trades, (SELECT count(*) FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND ('cash:' || u.id::text) IN (debit_account, credit_account)) AS ledger
       FROM users u WHERE id = $1`,
      [a.id],
    );
    expect(row).toMatchObject({
      email: `deleted-${a.id}@deleted.invalid`,
      display_name: 'Deleted trader',
      agent_description: null,
      api_key_hash: null,
      referral_code: `deleted:${a.id}`,
    });
    expect(row!.deleted_at).not.toBeNull();
    expect([row!.sessions, row!.tokens, row!.notifications].map(Number)).toEqual([0, 0, 0]);
    expect([Number(row!.trades), Number(row!.ledger)]).toEqual([Number(before!.trades), Number(before!.ledger)]);

    const again = await t.api.post('/api/auth/register').send({ email: a.email.toUpperCase(), password: 'password456', displayName: 'Reborn', isAgent: true });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(a.id);
    expect((await t.api.get('/api/user/balance').set(bearer(again.body.user.apiKey))).body.balance).toBe(1000);
  });

  test('when an account is deleted, then it is on no leaderboard and its public profile is 404, even after a held position settles', async () => {
    const a = await tradingAgent();
    expect((await t.api.get('/api/user/stats').query({ userId: a.id })).status).toBe(200);
    expect((await t.api.post('/api/user/delete').set(bearer(a.token)).send({ password: 'password123' })).status).toBe(200);

    await resolveMarket(t.services.db, a.open.id, 'YES');
    expect(await t.services.settlement.runOnce(new Date())).toBeGreaterThanOrEqual(1);
    const [settled] = await t.services.db.query<{ n: bigint }>(`SELECT count(*) AS n FROM trades WHERE user_id = $1 AND side = 'SETTLE'`, [a.id]);
    expect(Number(settled!.n)).toBe(1);

    for (const period of ['weekly', 'monthly', 'alltime']) {
      for (const metric of ['pnl', 'volume', 'trades', 'accuracy']) {
        for (const audience of ['all', 'bots', 'everyone']) expect(await boardIds({ period, metric, audience })).not.toContain(a.id);
      }
    }
    for (const path of [`/api/user/stats?userId=${a.id}`, `/api/agents/${a.id}/reputation`]) {
      const res = await t.api.get(path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when the password is wrong, then 400 WRONG_PASSWORD and nothing changes', async () => {
    const a = await tradingAgent();
    const res = await t.api.post('/api/user/delete').set(bearer(a.apiKey)).send({ password: 'not-the-password' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WRONG_PASSWORD');
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).status).toBe(200);
    expect((await t.api.get('/api/user/balance').set({ Cookie: a.cookie })).status).toBe(200);
    expect((await t.api.get('/api/user/me').set(bearer(a.token))).body.user.email).toBe(a.email);
  });

  test.each([
    ['no credentials', {}, { password: 'password123' }, 401, 'UNAUTHORIZED'],
    ['no password', 'key', {}, 400, 'VALIDATION_ERROR'],
  ])('when called with %s, then %d %s', async (_label, auth, body, status, code) => {
    const headers = auth === 'key' ? bearer((await tradingAgent()).apiKey) : {};
    const res = await t.api.post('/api/user/delete').set(headers).send(body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
  });

  test('when a session write comes from another site, then it is refused and the account stays', async () => {
    const a = await tradingAgent();
    const res = await t.api.post('/api/user/delete').set({ Cookie: a.cookie, Origin: 'https://evil.example' }).send({ password: 'password123' });
    expect(res.status).toBe(403);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).status).toBe(200);
  });

  test('when deleted over JSON-RPC or MCP, then the account is gone the same way', async () => {
    const a = await tradingAgent();
    const rpc = await rpcCall(t, 'delete_account', { password: 'password123' }, bearer(a.apiKey));
    expect(rpc.result.success).toBe(true);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).status).toBe(401);
    const b = await tradingAgent();
    const wrong = await mcpCall(t, 'delete_account', { password: 'nope' }, bearer(b.apiKey));
    expect(wrong.error?.data?.code ?? wrong.result?.structuredContent?.code).toBe('WRONG_PASSWORD');
    const mcp = await mcpCall(t, 'delete_account', { password: 'password123' }, bearer(b.token));
    expect(mcp.result.structuredContent.success).toBe(true);
    expect((await t.api.get('/api/user/balance').set(bearer(b.apiKey))).status).toBe(401);
  });
});
