import { backends } from '../support/backends';
import { request, startTestApp, type TestApp } from '../support/app';
import { seedMarket, type SeededMarket } from '../support/markets';

/**
 * Conditional reads of public market data (issue 36, item 2): every answer carries an ETag; a request that sends it
 * back as If-None-Match while the answer is unchanged gets 304 with no body, and that 304 is not counted against the
 * api limit. Calls that return data are counted exactly as before. The clock is fixed, so an answer's bytes (its
 * price age included) stay the same between calls unless the data changes.
 */
const API_LIMIT = 3;
const FIXED = new Date('2026-06-01T12:00:00Z');

let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter % 250}`;

describe.each(backends())('conditional reads on $name', (backend) => {
  let t: TestApp;
  let market: SeededMarket;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      background: false,
      clock: { now: () => FIXED },
      config: { RATE_LIMIT_API_PER_MIN: API_LIMIT, TRUST_PROXY: 1 },
    });
    market = await seedMarket(t.services.db);
  });
  afterAll(async () => t?.close());

  const read = (path: string, ip: string, etag?: string) => {
    const req = t.api.get(path).set('X-Forwarded-For', ip);
    return etag ? req.set('If-None-Match', etag) : req;
  };

  test('when a public read answers, then it carries an ETag and Cache-Control no-cache, and the same data gives the same ETag', async () => {
    const ip = freshIp();
    const first = await read(`/api/markets/${market.slug}`, ip);
    expect(first.status).toBe(200);
    expect(first.headers['etag']).toMatch(/^"[\w-]{20,}"$/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await read(`/api/markets/${market.slug}`, ip);
    expect(again.headers['etag']).toBe(first.headers['etag']);
  });

  test('when a request holds the current ETag, then 304 with no body, and any number of them leave the api limit untouched', async () => {
    const ip = freshIp();
    const first = await read(`/api/markets/${market.slug}`, ip);
    expect(first.status).toBe(200);
    const etag = first.headers['etag']!;
    for (let i = 0; i < API_LIMIT * 4; i++) {
      const res = await read(`/api/markets/${market.slug}`, ip, etag);
      expect(res.status).toBe(304);
      expect(res.headers['etag']).toBe(etag);
      expect(res.text ?? '').toBe('');
    }
    // The first read was counted; the 304s were not: the rest of the budget still returns data, then 429 as before.
    for (let i = 1; i < API_LIMIT; i++) expect((await read('/api/markets/categories', ip)).status).toBe(200);
    const over = await read('/api/markets/categories', ip);
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('RATE_LIMITED');
  });

  test('when If-None-Match names another answer (or a weak or listed form of it), then data comes back and is counted; a listed match is a 304', async () => {
    const ip = freshIp();
    const first = await read(`/api/markets/${market.slug}`, ip);
    const etag = first.headers['etag']!;
    expect((await read(`/api/markets/${market.slug}`, ip, `"stale", W/${etag}`)).status).toBe(304);
    const stale = await read(`/api/markets/${market.slug}`, ip, '"not-the-current-answer"');
    expect(stale.status).toBe(200);
    expect(stale.body.slug).toBe(market.slug);
    expect((await read(`/api/markets/${market.slug}`, ip, '"other"')).status).toBe(200);
    // Three answers with data = the limit: the next one with data is refused, a revalidation is still free.
    expect((await read(`/api/markets/${market.slug}`, ip, '"other"')).status).toBe(429);
    expect((await read(`/api/markets/${market.slug}`, ip, etag)).status).toBe(304);
  });

  test('when the data changes, then the old ETag no longer matches and the new data is sent', async () => {
    const ip = freshIp();
    const own = await seedMarket(t.services.db);
    const first = await read(`/api/markets/${own.slug}`, ip);
    await t.services.db.query(`UPDATE market_tokens SET price_micro = 610000 WHERE token_id = $1`, [own.yes]);
    await t.services.db.query(`UPDATE market_tokens SET price_micro = 390000 WHERE token_id = $1`, [own.no]);
    await t.services.db.query(`UPDATE markets SET question = 'Will the changed market resolve YES?' WHERE id = $1`, [own.id]);
    const changed = await read(`/api/markets/${own.slug}`, ip, first.headers['etag']);
    expect(changed.status).toBe(200);
    expect(changed.headers['etag']).not.toBe(first.headers['etag']);
    expect(changed.body.question).toBe('Will the changed market resolve YES?');
  });

  test('when revalidations pass ten times the api limit in a minute, then they too are refused (a flood of them cannot run reads without end)', async () => {
    const ip = freshIp();
    const etag = (await read(`/api/markets/${market.slug}`, ip)).headers['etag']!;
    for (let i = 0; i < API_LIMIT * 10; i++) expect((await read(`/api/markets/${market.slug}`, ip, etag)).status).toBe(304);
    const over = await read(`/api/markets/${market.slug}`, ip, etag);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
  });

  test('when a conditional read fails (unknown market), then the error is sent and counted like any call', async () => {
    const ip = freshIp();
    for (let i = 0; i < API_LIMIT; i++) expect((await read('/api/markets/no-such-market-here', ip, '"x"')).status).toBe(404);
    expect((await read('/api/markets/no-such-market-here', ip, '"x"')).status).toBe(429);
  });

  test('when a browser agent on another origin revalidates, then CORS lets it send If-None-Match and read the ETag', async () => {
    // A preflight is CORS protocol, not an API operation: plain supertest, not the OpenAPI-checked agent.
    const preflight = await request(t.app)
      .options(`/api/markets/${market.slug}`)
      .set({ Origin: 'https://agent.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/If-None-Match/);
    const res = await read(`/api/markets/${market.slug}`, freshIp()).set('Origin', 'https://agent.example');
    expect(res.headers['access-control-expose-headers']).toMatch(/ETag/);
  });

  test('when reads need an account (positions), then no ETag is given and If-None-Match changes nothing', async () => {
    const res = await t.api.get('/api/positions').set('X-Forwarded-For', freshIp()).set('If-None-Match', '*');
    expect(res.status).toBe(401);
    expect(res.headers['etag']).toBeUndefined();
  });
});
