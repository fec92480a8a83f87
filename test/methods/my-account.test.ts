import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { accessToken } from '../support/identity';
import { ControlledPrices, seedMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

describe.each(backends())('get_account on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const register = async (over: Record<string, unknown> = {}) => {
    const email = `me${Math.random().toString(36).slice(2)}@example.com`;
    const res = await t.api.post('/api/auth/register').send({ email, password: 'password123', displayName: 'Header Test', ...over });
    expect(res.status).toBe(201);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc.session-token='));
    return { user: res.body.user, email, cookie: cookie?.split(';')[0] };
  };

  test('when a new agent reads its account with its key, then it gets its registration, 1000 dollars, level 1 and no notifications', async () => {
    const { user, email } = await register({ isAgent: true, displayName: 'HeaderBot' });
    const res = await t.api.get('/api/user/me').set('Authorization', `Bearer ${user.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: {
        id: user.id,
        email,
        displayName: 'HeaderBot',
        isAgent: true,
        balance: 1000,
        reserved: 0,
        available: 1000,
        level: 1,
        xp: 0,
        levelTitle: 'Novice',
        unreadNotifications: 0,
        referralCode: user.referralCode,
        createdAt: expect.any(String),
      },
    });
    const token = await accessToken(t, user);
    expect((await t.api.get('/api/user/me').set('Authorization', `Bearer ${token}`)).body).toEqual(res.body);
  });

  test('when a person has traded from the browser, then balance, level and unread count agree with the portfolio, the trader stats and the notifications', async () => {
    const { user, cookie } = await register();
    const session = { Cookie: cookie!, Origin: t.config.BASE_URL! };
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const bought = await t.api.post('/api/trade').set(session).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 40 });
    expect(bought.status).toBe(200);
    const me = (await t.api.get('/api/user/me').set(session)).body.user;
    const stats = (await t.api.get('/api/user/stats').set(session)).body;
    const notes = (await t.api.get('/api/notifications').set(session)).body;
    expect(me.id).toBe(user.id);
    expect(me.balance).toBe(960);
    expect(me.xp).toBeGreaterThan(0);
    expect({ level: me.level, xp: me.xp, title: me.levelTitle }).toEqual({ level: stats.level.current, xp: stats.level.xp, title: stats.level.title });
    expect(me.unreadNotifications).toBe(notes.unreadCount);
    expect(me.unreadNotifications).toBeGreaterThan(0); // the first-trade badge
  });

  test('when no credentials are sent, then 401', async () => {
    const res = await t.api.get('/api/user/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  test('when called over JSON-RPC and MCP with the key, then the result is the REST body', async () => {
    const { user } = await register({ isAgent: true, displayName: 'RpcHeader' });
    const auth = { Authorization: `Bearer ${user.apiKey}` };
    const rest = (await t.api.get('/api/user/me').set(auth)).body;
    expect((await rpcCall(t, 'get_account', {}, auth)).result).toEqual(rest);
    expect((await mcpCall(t, 'get_account', {}, auth)).result.structuredContent).toEqual(rest);
  });
});
