import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { accessToken, DAY, HOUR, ManualClock, sessionCookieOf, signedInPerson } from '../support/identity';
import { createLogger } from '../../src/logger';
import { LOGIN_FAILURES_PER_ACCOUNT } from '../../src/limits/rate-limiter';

const EVIL = 'https://evil.example';

describe.each(backends())('identity: key rotation, sessions and CSRF on $name', (backend) => {
  let t: TestApp;
  let base: string;
  const clock = new ManualClock();
  const logLines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, log: createLogger('debug', {}, (line) => logLines.push(line)) });
    base = t.config.BASE_URL!;
  });
  afterAll(async () => t.close());

  const balance = (headers: Record<string, string>) => t.api.get('/api/user/balance').set(headers);
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const rotate = (headers: Record<string, string>) => t.api.post('/api/user/api-key/rotate').set(headers).send({});

  describe('API key rotation', () => {
    test('when an agent rotates with its key, then the new key is shown once, works, and the old key stops at once', async () => {
      const agent = await registerAgent(t);
      const res = await rotate(bearer(agent.apiKey));
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.apiKey).toMatch(/^svc_[0-9a-f]{32}$/);
      expect(res.body.apiKey).not.toBe(agent.apiKey);
      expect((await balance(bearer(res.body.apiKey))).status).toBe(200);
      const old = await balance(bearer(agent.apiKey));
      expect(old.status).toBe(401);
      expect(old.headers['www-authenticate']).toContain('error="invalid_token"');
      const again = await rotate(bearer(res.body.apiKey));
      expect(again.body.apiKey).not.toBe(res.body.apiKey);
    });

    test('when the key is rotated, then access tokens minted with the old key stop working too', async () => {
      const agent = await registerAgent(t);
      const token = await accessToken(t, agent);
      expect((await balance(bearer(token))).status).toBe(200);
      expect((await rotate(bearer(agent.apiKey))).status).toBe(200);
      expect((await balance(bearer(token))).status).toBe(401);
    });

    test('when a token minted with the old key is still in the table after rotation, then it is refused (tokens are bound to their key)', async () => {
      const agent = await registerAgent(t);
      const token = await accessToken(t, agent);
      const [{ api_key_hash }] = await t.services.db.query<{ api_key_hash: string }>('SELECT api_key_hash FROM users WHERE id = $1', [agent.id]);
      await t.services.accounts.rotateApiKey(agent.id); // the domain call alone: the token row stays
      const rows = await t.services.db.query('SELECT 1 FROM access_tokens WHERE user_id = $1 AND key_hash = $2', [agent.id, api_key_hash]);
      expect(rows.length).toBe(1);
      expect((await balance(bearer(token))).status).toBe(401);
    });

    test('when an OAuth access token tries to rotate the key, then 403 and the key is unchanged', async () => {
      const agent = await registerAgent(t);
      const res = await rotate(bearer(await accessToken(t, agent)));
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect((await balance(bearer(agent.apiKey))).status).toBe(200);
    });

    test('when an agent that lost its key signs in from the browser, then it can rotate from the session', async () => {
      const bot = await signedInPerson(t, { isAgent: true });
      const res = await rotate({ Cookie: bot.cookie, Origin: bot.origin });
      expect(res.status).toBe(200);
      expect((await balance(bearer(res.body.apiKey))).status).toBe(200);
    });

    test('when a person (no key) asks to rotate, then 403 FORBIDDEN', async () => {
      const person = await signedInPerson(t);
      const res = await rotate({ Cookie: person.cookie, Origin: person.origin });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  });

  describe('credential hygiene', () => {
    test.each([
      ['the query string as apiKey', (k: string) => t.api.get(`/api/user/balance?apiKey=${k}`)],
      ['the query string as access_token', (k: string) => t.api.get(`/api/user/balance?access_token=${k}`)],
      ['the query string even with a valid header', (k: string) => t.api.get(`/api/user/balance?api_key=${k}`).set(bearer(k))],
    ])('when a key is sent in %s, then 401 with a hint to use the header and rotate', async (_label, send) => {
      const agent = await registerAgent(t);
      const res = await send(agent.apiKey);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.body.error).toMatch(/only in the Authorization header/);
      expect(res.body.hint).toMatch(/rotate/);
    });

    test('when a key is put in a request body, then the call is refused and does nothing', async () => {
      const agent = await registerAgent(t);
      const res = await t.api.post('/api/user/api-key/rotate').set(bearer(agent.apiKey)).send({ apiKey: agent.apiKey });
      expect(res.status).toBe(401);
      expect((await balance(bearer(agent.apiKey))).status).toBe(200); // not rotated
    });

    test('when keys, tokens, passwords and session cookies were used, then no log line holds any of them', async () => {
      const person = await signedInPerson(t);
      const agent = await registerAgent(t);
      const token = await accessToken(t, agent);
      await balance(bearer(token));
      await t.api.get(`/api/user/balance?apiKey=${agent.apiKey}`);
      await t.api.post('/api/auth/logout').set({ Cookie: person.cookie, Origin: base }).send({});
      const logs = logLines.join('\n');
      expect(logLines.length).toBeGreaterThan(0);
      for (const secret of [agent.apiKey, token, person.password, person.cookie.split('=')[1]!]) expect(logs).not.toContain(secret);
    });

    test('session tokens are stored only as hashes', async () => {
      const person = await signedInPerson(t);
      const rows = await t.services.db.query<Record<string, unknown>>('SELECT * FROM sessions WHERE user_id = $1', [person.id]);
      expect(rows.length).toBe(1);
      expect(JSON.stringify(rows)).not.toContain(person.cookie.split('=')[1]!.slice(4));
    });
  });

  describe('browser sessions', () => {
    test('when a person registers, then they are signed in with an HttpOnly, SameSite=Lax, 30-day cookie; an agent gets no cookie', async () => {
      const res = await t.api.post('/api/auth/register').send({ email: `p${Date.now()}@example.com`, password: 'password123', displayName: 'Person' });
      const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc.session-token='))!;
      expect(setCookie).toMatch(/^svc\.session-token=sst_[0-9a-f]{64};/);
      expect(setCookie).toMatch(/; HttpOnly/i);
      expect(setCookie).toMatch(/; SameSite=Lax/i);
      expect(setCookie).toMatch(/; Path=\//i);
      expect(setCookie).toMatch(/; Max-Age=2592000/i);
      expect(setCookie).not.toMatch(/; Secure/i); // BASE_URL is http here
      expect((await balance({ Cookie: setCookie.split(';')[0]! })).status).toBe(200);
      const bot = await t.api
        .post('/api/auth/register')
        .send({ email: `b${Date.now()}@example.com`, password: 'password123', displayName: 'Bot', isAgent: true });
      expect(sessionCookieOf(bot)).toBeUndefined();
    });

    test('when a person signs in with email and password, then the cookie authenticates them', async () => {
      const person = await signedInPerson(t);
      const res = await t.api.post('/api/auth/login').send({ email: person.email.toUpperCase(), password: person.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, user: { id: person.id, displayName: expect.any(String), isAgent: false } });
      const cookie = sessionCookieOf(res)!;
      expect(cookie).toBeDefined();
      expect((await balance({ Cookie: cookie })).body).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    });

    test('when the password is wrong or the email unknown, then the same 401 answer either way', async () => {
      const person = await signedInPerson(t);
      const wrong = await t.api.post('/api/auth/login').send({ email: person.email, password: 'wrong-password' });
      const unknown = await t.api.post('/api/auth/login').send({ email: `nobody${Date.now()}@example.com`, password: 'wrong-password' });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(sessionCookieOf(wrong)).toBeUndefined();
    });

    test('when a browser signs in again with its old cookie, then the old session ends (a fresh token each sign-in)', async () => {
      const person = await signedInPerson(t);
      const res = await t.api.post('/api/auth/login').set({ Cookie: person.cookie, Origin: base }).send({ email: person.email, password: person.password });
      expect(res.status).toBe(200);
      expect(sessionCookieOf(res)).not.toBe(person.cookie);
      expect((await balance({ Cookie: person.cookie })).status).toBe(401);
    });

    test('when a person logs out, then the cookie is cleared and the session is revoked on the server', async () => {
      const person = await signedInPerson(t);
      const res = await t.api.post('/api/auth/logout').set({ Cookie: person.cookie, Origin: base }).send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).join()).toMatch(/svc\.session-token=;.*Expires=Thu, 01 Jan 1970/);
      // A copy of the cookie kept by an attacker is dead too.
      expect((await balance({ Cookie: person.cookie })).status).toBe(401);
      const again = await t.api.post('/api/auth/logout').set({ Cookie: person.cookie, Origin: base }).send({});
      expect(again.status).toBe(401);
      expect(again.body.code).toBe('SESSION_REQUIRED');
    });

    test('when a session-only operation is called with an API key, then 401 SESSION_REQUIRED with a hint to sign in', async () => {
      const agent = await registerAgent(t);
      const res = await t.api.post('/api/auth/logout').set(bearer(agent.apiKey)).send({});
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('SESSION_REQUIRED');
      expect(res.body.hint).toMatch(/POST \/api\/auth\/login/);
    });

    test('when the session is used within 30 days, then it slides; after 30 idle days it is refused', async () => {
      const person = await signedInPerson(t);
      const cookie = { Cookie: person.cookie };
      clock.advance(29 * DAY);
      const renewed = await balance(cookie);
      expect(renewed.status).toBe(200);
      expect(sessionCookieOf(renewed)).toBe(person.cookie); // same token, fresh Max-Age
      clock.advance(1 * HOUR);
      const soon = await balance(cookie);
      expect(soon.status).toBe(200);
      expect(sessionCookieOf(soon)).toBeUndefined(); // renewed at most once a day
      clock.advance(29 * DAY); // 58 days after sign-in, 29 after the last renewal
      expect((await balance(cookie)).status).toBe(200);
      clock.advance(31 * DAY);
      expect((await balance(cookie)).status).toBe(401);
    });
  });

  describe('CSRF: cookie-authenticated writes must come from BASE_URL', () => {
    test.each([
      ['no Origin or Referer', {}],
      ['another Origin', { Origin: EVIL }],
      ['an opaque Origin', { Origin: 'null' }],
      ['a Referer on another site', { Referer: `${EVIL}/page` }],
      ['the same host on another port', { Origin: 'http://localhost:4000' }],
    ])('when a cookie write comes with %s, then 403 FORBIDDEN and nothing happens', async (_label, headers) => {
      const person = await signedInPerson(t);
      const res = await t.api
        .post('/api/auth/logout')
        .set({ Cookie: person.cookie, ...headers })
        .send({});
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
      expect((await balance({ Cookie: person.cookie })).status).toBe(200); // still signed in
    });

    test('when a cookie write comes with a Referer on this site, then it is allowed', async () => {
      const person = await signedInPerson(t);
      const res = await t.api
        .post('/api/auth/logout')
        .set({ Cookie: person.cookie, Referer: `${base}/docs/accounts` })
        .send({});
      expect(res.status).toBe(200);
    });

    test('when a cookie read (GET) comes from another origin, then it is not a CSRF case and is served', async () => {
      const person = await signedInPerson(t);
      expect((await balance({ Cookie: person.cookie, Origin: EVIL })).status).toBe(200);
    });

    test('when a write carries an API key and a foreign Origin, then it is allowed (a browser never attaches the key by itself)', async () => {
      const agent = await registerAgent(t);
      expect((await rotate({ ...bearer(agent.apiKey), Origin: EVIL })).status).toBe(200);
    });

    test('when a page on another site posts a sign-in, then 403 (login CSRF); a non-browser client without Origin may sign in', async () => {
      const person = await signedInPerson(t);
      const cross = await t.api.post('/api/auth/login').set('Origin', EVIL).send({ email: person.email, password: person.password });
      expect(cross.status).toBe(403);
      expect(sessionCookieOf(cross)).toBeUndefined();
      expect((await t.api.post('/api/auth/login').send({ email: person.email, password: person.password })).status).toBe(200);
    });
  });
});

describe.each(backends())('session cookie over https on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { BASE_URL: 'https://paper.example' } });
  });
  afterAll(async () => t.close());

  test('when BASE_URL is https, then the session cookie is Secure', async () => {
    const res = await t.api.post('/api/auth/register').send({ email: `s${Date.now()}@example.com`, password: 'password123', displayName: 'Secure' });
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join();
    expect(setCookie).toMatch(/svc\.session-token=sst_[0-9a-f]{64};.*; Secure/i);
  });
});

describe.each(backends())('sign-in limits on $name', (backend) => {
  let t: TestApp;
  // TRUST_PROXY 1: the address is the last X-Forwarded-For hop, so a test can speak from many addresses.
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { TRUST_PROXY: 1, RATE_LIMIT_REGISTER_PER_MIN: 3 } });
  });
  afterAll(async () => t.close());

  let n = 0;
  const from = () => `198.51.100.${++n}`;
  const login = (email: string, password: string, ip = from()) => t.api.post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password });
  const register = async () => {
    const email = `limit${Date.now()}-${++n}@example.com`;
    const res = await t.api.post('/api/auth/register').set('X-Forwarded-For', from()).send({ email, password: 'password123', displayName: 'Limited' });
    expect(res.status).toBe(201);
    return email;
  };

  test('when an account has 10 failed sign-ins, even from 10 addresses, then the next attempt is 429 even with the right password; other accounts are unaffected', async () => {
    const victim = await register();
    const bystander = await register();
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++) expect((await login(victim, 'wrong-password')).status).toBe(401);
    const blocked = await login(victim, 'password123');
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    expect(blocked.body.hint).toMatch(/Retry after \d+ seconds/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(60); // the account window is 15 minutes
    expect((await login(bystander, 'password123')).status).toBe(200);
  });

  test('when the email does not exist, then failures are limited the same way (the 429 says nothing about existence)', async () => {
    const ghost = `ghost${Date.now()}@example.com`;
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT; i++) expect((await login(ghost, 'wrong-password')).status).toBe(401);
    expect((await login(ghost, 'wrong-password')).status).toBe(429);
  });

  test('when successful sign-ins repeat, then they do not count as failures', async () => {
    const email = await register();
    for (let i = 0; i < LOGIN_FAILURES_PER_ACCOUNT + 2; i++) expect((await login(email, 'password123')).status).toBe(200);
  });

  test('when one address tries more sign-ins than the per-IP limit, then 429; another address is still served', async () => {
    const email = await register();
    const ip = from();
    const limit = t.config.RATE_LIMIT_REGISTER_PER_MIN * 2; // the login class
    for (let i = 0; i < limit; i++) expect((await login(`nobody${i}@example.com`, 'x', ip)).status).toBe(401);
    const res = await login(email, 'password123', ip);
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-policy']).toBe(`"login";q=${limit};w=60`);
    expect((await login(email, 'password123')).status).toBe(200);
  });
});
