import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { backends, describeWithRedis } from '../support/backends';
import { request, startTestApp, type TestApp } from '../support/app';
import { startService, type RunningService } from '../../src/start';
import { createLogger } from '../../src/logger';

/**
 * With REDIS_URL the counters live in Redis, so gateway processes behind one load balancer enforce one
 * limit together. Two service instances here share nothing but the database and Redis (each has its own
 * Redis connection and its own stores), as two processes would. Needs TEST_REDIS_URL (skipped otherwise).
 */
const REDIS_URL = process.env.TEST_REDIS_URL;

describeWithRedis('rate limits shared through Redis on $name', (backend) => {
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  const config = {
    REDIS_URL: REDIS_URL!,
    REDIS_PREFIX: prefix,
    TRUST_PROXY: 1,
    RATE_LIMIT_REGISTER_PER_MIN: 3,
    RATE_LIMIT_TRADE_PER_MIN: 3,
  };
  let a: TestApp;
  let b: RunningService;

  beforeAll(async () => {
    a = await startTestApp(backend, { config });
    // A second gateway on the same database and the same Redis: another process, as far as the limiter knows.
    b = await startService(a.config, createLogger('silent'), { db: a.services.db, validateOutput: true });
  });
  afterAll(async () => {
    await b.stop();
    await a.close();
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length) await redis.del(keys);
    await redis.close();
  });

  const register = (app: RunningService['app'], ip: string, isAgent = false) =>
    request(app)
      .post('/api/auth/register')
      .set('X-Forwarded-For', ip)
      .send({ email: `redis${Math.random().toString(36).slice(2)}@example.com`, password: 'password123', displayName: 'Shared', isAgent });

  test('when registrations from one address alternate between two gateways, then the limit is enforced once, across both', async () => {
    const ip = '192.0.2.10';
    expect((await register(a.app, ip)).status).toBe(201);
    expect((await register(b.app, ip)).status).toBe(201);
    expect((await register(a.app, ip)).status).toBe(201);
    const fourth = await register(b.app, ip);
    expect(fourth.status).toBe(429);
    expect(fourth.body.code).toBe('RATE_LIMITED');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await register(a.app, ip)).status).toBe(429);
  });

  test('when one agent trades through both gateways, then its per-account trade limit is shared', async () => {
    const reg = await register(a.app, '192.0.2.20', true);
    const key = reg.body.user.apiKey as string;
    const trade = (app: RunningService['app']) =>
      request(app).post('/api/trade').set('Authorization', `Bearer ${key}`).send({ marketId: 'm', marketSlug: 'm', tokenId: 't', outcome: 'YES', amount: 1 });
    for (const app of [a.app, b.app, a.app]) expect((await trade(app)).status).not.toBe(429);
    expect((await trade(b.app)).status).toBe(429);
  });

  test('the counters are in Redis under the configured prefix, one key space per limit class', async () => {
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    try {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...batch);
      expect(keys.some((k) => k.startsWith(`${prefix}rl:register:ip:192.0.2.10`))).toBe(true);
      expect(keys.some((k) => k.startsWith(`${prefix}rl:trade:user:`))).toBe(true);
      const ttl = await redis.pTTL(keys.find((k) => k.startsWith(`${prefix}rl:register:`))!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await redis.close();
    }
  });
});

describe.each(backends())('when Redis is unreachable on $name', (backend) => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, {
      config: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_REGISTER_PER_MIN: 1 },
      log: createLogger('warn', {}, (line) => lines.push(line)),
    });
  });
  afterAll(async () => t.close());

  test('then requests are still served (the limiter fails open) and the outage is logged', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await t.api.post('/api/auth/register').send({ email: `down${i}${Date.now()}@example.com`, password: 'password123', displayName: 'Down' });
      expect(res.status).toBe(201);
    }
    expect(lines.some((l) => /rate-limit store unavailable|redis unavailable/.test(l))).toBe(true);
  });
});
