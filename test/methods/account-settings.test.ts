import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { accessToken, sessionCookieOf, signedInPerson } from '../support/identity';
import { ControlledPrices, seedMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

describe.each(backends())('update_profile, change_password and logout_all on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const site = () => t.config.BASE_URL!;
  const balance = (headers: Record<string, string>) => t.api.get('/api/user/balance').set(headers);
  const login = async (email: string, password: string) => {
    const res = await t.api.post('/api/auth/login').set('Origin', site()).send({ email, password });
    return { status: res.status, cookie: sessionCookieOf(res) };
  };
  const cleared = (res: { headers: Record<string, unknown> }) =>
    ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []).some((c) => /^svc\.session-token=;.*Expires=Thu, 01 Jan 1970/.test(c));

  describe('update_profile', () => {
    test('when an agent that traded renames itself, then the leaderboard and its public stats show the new name at once', async () => {
      const agent = await registerAgent(t, 'OldName');
      const m = await seedMarket(t.services.db);
      prices.set(m.yes, 0.5, 0.5);
      await t.api.post('/api/trade').set(bearer(agent.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5 });
      const board = async () =>
        (await t.api.get('/api/leaderboard').query({ period: 'alltime', metric: 'trades', audience: 'bots' })).body.leaderboard.find(
          (r: { user: { id: string } }) => r.user.id === agent.id,
        )?.user.displayName;
      expect(await board()).toMatch(/^OldName/);
      const res = await t.api.post('/api/user/profile').set(bearer(agent.apiKey)).send({ displayName: '  Fresh Name  ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, user: { id: agent.id, displayName: 'Fresh Name', isAgent: true } });
      expect(await board()).toBe('Fresh Name');
      expect((await t.api.get('/api/user/stats').query({ userId: agent.id })).body.user.displayName).toBe('Fresh Name');
      expect((await t.api.get('/api/user/me').set(bearer(agent.apiKey))).body.user.displayName).toBe('Fresh Name');
    });

    test.each([
      ['one character', ' x '],
      ['21 characters', 'x'.repeat(21)],
    ])('when the name has %s, then 400 VALIDATION_ERROR and the name stays', async (_label, displayName) => {
      const person = await signedInPerson(t);
      const res = await t.api.post('/api/user/profile').set({ Cookie: person.cookie, Origin: person.origin }).send({ displayName });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect((await t.api.get('/api/user/me').set({ Cookie: person.cookie })).body.user.displayName).toMatch(/^Person/);
    });

    test('when called without credentials, then 401; over JSON-RPC and MCP with a key or token, then it renames', async () => {
      expect((await t.api.post('/api/user/profile').send({ displayName: 'Nobody' })).status).toBe(401);
      const agent = await registerAgent(t);
      expect((await rpcCall(t, 'update_profile', { displayName: 'Via RPC' }, bearer(agent.apiKey))).result.user.displayName).toBe('Via RPC');
      const token = await accessToken(t, agent);
      expect((await mcpCall(t, 'update_profile', { displayName: 'Via MCP' }, bearer(token))).result.structuredContent.user.displayName).toBe('Via MCP');
    });
  });

  describe('change_password', () => {
    test('when a person changes the password from one browser, then that browser stays signed in, the others are signed out, and only the new password signs in', async () => {
      const person = await signedInPerson(t);
      const other = await login(person.email, person.password);
      expect(other.status).toBe(200);
      const res = await t.api
        .post('/api/user/password')
        .set({ Cookie: person.cookie, Origin: person.origin })
        .send({ currentPassword: person.password, newPassword: 'brand-new-pass' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, sessionsEnded: 1 });
      expect((await balance({ Cookie: person.cookie })).status).toBe(200);
      expect((await balance({ Cookie: other.cookie! })).status).toBe(401);
      expect((await login(person.email, person.password)).status).toBe(401);
      expect((await login(person.email, 'brand-new-pass')).status).toBe(200);
    });

    test('when the current password is wrong, then 400 WRONG_PASSWORD and nothing changes', async () => {
      const person = await signedInPerson(t);
      const other = await login(person.email, person.password);
      const res = await t.api
        .post('/api/user/password')
        .set({ Cookie: person.cookie, Origin: person.origin })
        .send({ currentPassword: 'wrong-password', newPassword: 'brand-new-pass' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('WRONG_PASSWORD');
      expect((await balance({ Cookie: other.cookie! })).status).toBe(200);
      expect((await login(person.email, person.password)).status).toBe(200);
    });

    test('when the new password is too short, then 400 VALIDATION_ERROR', async () => {
      const person = await signedInPerson(t);
      const res = await t.api
        .post('/api/user/password')
        .set({ Cookie: person.cookie, Origin: person.origin })
        .send({ currentPassword: person.password, newPassword: 'short' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    test('when an agent changes the password with its key over JSON-RPC, then every browser session ends and the key keeps working', async () => {
      const bot = await signedInPerson(t, { isAgent: true });
      // signedInPerson keeps no key: rotating from the session hands one over.
      const rotated = await t.api.post('/api/user/api-key/rotate').set({ Cookie: bot.cookie, Origin: bot.origin }).send({});
      const key = rotated.body.apiKey as string;
      const rpc = await rpcCall(t, 'change_password', { currentPassword: bot.password, newPassword: 'agent-new-pass' }, bearer(key));
      expect(rpc.result).toEqual({ success: true, sessionsEnded: 1 });
      expect((await balance({ Cookie: bot.cookie })).status).toBe(401);
      expect((await balance(bearer(key))).status).toBe(200);
    });
  });

  describe('logout_all', () => {
    test('when a person signs out everywhere, then every session ends, this one included, and the cookie is cleared', async () => {
      const person = await signedInPerson(t);
      const second = await login(person.email, person.password);
      const third = await login(person.email, person.password);
      const res = await t.api.post('/api/auth/logout-all').set({ Cookie: person.cookie, Origin: person.origin }).send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, sessionsEnded: 3 });
      expect(cleared(res)).toBe(true);
      for (const cookie of [person.cookie, second.cookie!, third.cookie!]) expect((await balance({ Cookie: cookie })).status).toBe(401);
    });

    test('when called with an API key, from another site, or over JSON-RPC, then it is refused and sessions stay', async () => {
      const bot = await signedInPerson(t, { isAgent: true });
      const agent = await registerAgent(t);
      const withKey = await t.api.post('/api/auth/logout-all').set(bearer(agent.apiKey)).send({});
      expect(withKey.status).toBe(401);
      expect(withKey.body.code).toBe('SESSION_REQUIRED');
      const crossSite = await t.api.post('/api/auth/logout-all').set({ Cookie: bot.cookie, Origin: 'https://evil.example' }).send({});
      expect(crossSite.status).toBe(403);
      expect((await rpcCall(t, 'logout_all', {}, bearer(agent.apiKey))).error.code).toBe(-32601);
      expect((await balance({ Cookie: bot.cookie })).status).toBe(200);
    });
  });
});
