import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';

/**
 * Issue 53 item 2: a person's browser session (the session cookie) counts its `api` calls on a budget of its own (the
 * api limit × WEB_RATE_LIMIT_TIMES), so full page loads never meet the agents' limit; an API key, an agent's own
 * session and an anonymous address keep the `api` limit exactly, and trades stay the account's whatever carries them.
 */
type Res = { status: number; body: Record<string, unknown>; headers: Record<string, string> };

let n = 0;
/** Registers over REST from an address of its own; returns the key and the session cookie the registration set. */
async function register(t: TestApp, isAgent: boolean): Promise<{ id: string; apiKey: string; email: string; cookie: string | undefined }> {
  n += 1;
  const email = `bb${n}-${Date.now()}@example.com`;
  const res = await t.api
    .post('/api/auth/register')
    .set('X-Forwarded-For', `198.19.${Math.floor(n / 250)}.${n % 250}`)
    .send({ email, password: 'password123', displayName: `Bb${n}`, isAgent });
  expect(res.status).toBe(201);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return { id: res.body.user.id, apiKey: res.body.user.apiKey, email, cookie: setCookie.map((c) => c.split(';')[0]).join('; ') || undefined };
}

/** Signs in with the password (REST), as an agent's script could; returns the session cookie. */
async function signIn(t: TestApp, email: string, ip: string): Promise<string> {
  const res = await t.api.post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password: 'password123' });
  expect(res.status).toBe(200);
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** `count` calls of get_account (class api) with the given headers; the statuses, in order, and the last answer. */
async function calls(t: TestApp, count: number, headers: Record<string, string>): Promise<{ statuses: number[]; last: Res }> {
  const statuses: number[] = [];
  let last: Res | undefined;
  for (let i = 0; i < count; i++) {
    last = (await t.api.get('/api/user/me').set(headers)) as unknown as Res;
    statuses.push(last.status);
  }
  return { statuses, last: last! };
}

const okThen429 = (ok: number, refused: number) => [...Array<number>(ok).fill(200), ...Array<number>(refused).fill(429)];

describe.each(backends())('the browser budget at the default limits on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // The SPEC's defaults, set here since the test app's own are high.
    t = await startTestApp(backend, { config: { TRUST_PROXY: 1, RATE_LIMIT_API_PER_MIN: 30, WEB_RATE_LIMIT_TIMES: 10 } });
  });
  afterAll(async () => t.close());

  test('when an agent calls with its API key, then exactly 30 api calls a minute are answered and the 31st is 429 "api" q=30', async () => {
    const agent = await register(t, true);
    const { statuses, last } = await calls(t, 31, { Authorization: `Bearer ${agent.apiKey}`, 'X-Forwarded-For': '203.0.113.10' });
    expect(statuses).toEqual(okThen429(30, 1));
    expect(last.body.code).toBe('RATE_LIMITED');
    expect(last.headers['ratelimit-policy']).toBe('"api";q=30;w=60');
  });

  test("when an agent signs in with its password and calls with the session cookie, then it still stops at exactly 30 (an agent's session is not a browser budget)", async () => {
    const agent = await register(t, true);
    const cookie = await signIn(t, agent.email, '203.0.113.11');
    const { statuses, last } = await calls(t, 31, { Cookie: cookie, 'X-Forwarded-For': '203.0.113.11' });
    expect(statuses).toEqual(okThen429(30, 1));
    expect(last.headers['ratelimit-policy']).toBe('"api";q=30;w=60');
  });

  test('when a person browses past 30 calls with the session cookie, then they are answered, and whoami reports the browser budget (30 × 10)', async () => {
    const person = await register(t, false);
    expect(person.cookie).toBeTruthy();
    const browsing = await calls(t, 45, { Cookie: person.cookie!, 'X-Forwarded-For': '203.0.113.12' });
    expect(browsing.statuses).toEqual(okThen429(45, 0));
    const who = await t.api.get('/api/whoami').set({ Cookie: person.cookie!, 'X-Forwarded-For': '203.0.113.12' });
    expect(who.status).toBe(200);
    const api = (who.body.limits as Array<{ class: string; limit: number; remaining: number }>).find((l) => l.class === 'api')!;
    // 30 × WEB_RATE_LIMIT_TIMES (10) = 300, of which the 45 calls and this whoami are spent.
    expect(api.limit).toBe(300);
    expect(api.remaining).toBe(300 - 46);
  });
});

describe.each(backends())('the browser budget at low limits on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { config: { TRUST_PROXY: 1, RATE_LIMIT_API_PER_MIN: 3, WEB_RATE_LIMIT_TIMES: 4, RATE_LIMIT_TRADE_PER_MIN: 2 } });
  });
  afterAll(async () => t.close());

  test('when a person\'s session passes the api limit × WEB_RATE_LIMIT_TIMES, then 429 "browser" q=12, exactly at 3 × 4', async () => {
    const person = await register(t, false);
    const { statuses, last } = await calls(t, 13, { Cookie: person.cookie!, 'X-Forwarded-For': '203.0.113.20' });
    expect(statuses).toEqual(okThen429(12, 1));
    expect(last.body.code).toBe('RATE_LIMITED');
    expect(last.headers['ratelimit-policy']).toBe('"browser";q=12;w=60');
  });

  test("when a person's page reads public markets with its session cookie, then they count on the browser budget, not the address's 3", async () => {
    const person = await register(t, false);
    const statuses: number[] = [];
    let last: Res | undefined;
    for (let i = 0; i < 13; i++) {
      last = (await t.api.get('/api/markets?limit=1').set({ Cookie: person.cookie!, 'X-Forwarded-For': '203.0.113.22' })) as unknown as Res;
      statuses.push(last.status);
    }
    expect(statuses).toEqual(okThen429(12, 1));
    expect(last!.headers['ratelimit-policy']).toBe('"browser";q=12;w=60');
    // The address itself was not used up: an anonymous caller behind it still has its 3, and then stops.
    const anonymous: number[] = [];
    for (let i = 0; i < 4; i++) anonymous.push((await t.api.get('/api/markets?limit=1').set('X-Forwarded-For', '203.0.113.22')).status);
    expect(anonymous).toEqual(okThen429(3, 1));
  });

  const trade = (headers: Record<string, string>) =>
    t.api
      .post('/api/trade')
      .set({ ...headers, Origin: t.baseUrl, 'X-Forwarded-For': '203.0.113.21' })
      .send({ marketId: 'no-such-market', marketSlug: 'no-such-market', tokenId: 'no-such-token', outcome: 'YES', amount: 1 });

  test('when a person trades with the session cookie past the trade limit, then 429 "trade" q=2: the browser budget is for api calls only', async () => {
    const person = await register(t, false);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await trade({ Cookie: person.cookie! })).status);
    expect(statuses.slice(0, 2)).not.toContain(429);
    expect(statuses[2]).toBe(429);
  });

  test("when an agent trades once with its session and then with its key, then both draw on the account's one trade budget", async () => {
    const agent = await register(t, true);
    const cookie = await signIn(t, agent.email, '203.0.113.21');
    expect((await trade({ Cookie: cookie })).status).not.toBe(429);
    expect((await trade({ Authorization: `Bearer ${agent.apiKey}` })).status).not.toBe(429);
    const third = await trade({ Authorization: `Bearer ${agent.apiKey}` });
    expect(third.status).toBe(429);
    expect(third.headers['ratelimit-policy']).toBe('"trade";q=2;w=60');
  });
});
