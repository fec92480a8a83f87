import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { backends, describeOnPostgresWithRedis, describeWithRedis } from '../support/backends';
import { request, startTestApp, type TestApp } from '../support/app';
import { startService, type RunningService } from '../../src/start';
import { createRateLimiter } from '../../src/limits/rate-limiter';
import { faultProxy, type FaultProxy } from '../support/fault-proxy';
import { createLogger } from '../../src/logger';

/**
 * With REDIS_URL the counters live in Redis, so gateway processes behind one load balancer enforce one
 * limit together. Two service instances here share nothing but the database and Redis (each has its own
 * Redis connection and its own stores), as two processes would. Needs TEST_REDIS_URL and TEST_DATABASE_URL (skipped
 * otherwise): gateway processes share PostgreSQL; the embedded database belongs to one process (its lockfile refuses a
 * second), and two services sharing one in this process hang since the A2A push worker listens there too (not explained).
 */
const REDIS_URL = process.env.TEST_REDIS_URL;

describeOnPostgresWithRedis('rate limits shared through Redis on $name', (backend) => {
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

const timed = async <T>(work: PromiseLike<T>) => {
  const started = Date.now();
  const out = await work;
  return { out, ms: Date.now() - started };
};

/**
 * The limiter no longer waits on the store: 20 counted calls take less time together than one call that
 * waits for the store's 500 ms deadline (timed on the limiter itself, so a loaded machine does not matter).
 */
const expectNoWaitOnStore = async (t: TestApp) => {
  const { ms } = await timed(
    (async () => {
      for (let i = 0; i < 20; i++) await t.services.limiter.consume('api', `user:probe-${i}`, '192.0.2.99').catch(() => {});
    })(),
  );
  expect(ms).toBeLessThan(500);
};

// Search: a cheap public call, counted per address in the 'api' class.
const searchFrom = (t: TestApp, ip: string) => t.api.get('/api/search').set('X-Forwarded-For', ip).query({ q: 'bitcoin' });

describe.each(backends())('when Redis is unreachable on $name', (backend) => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, {
      // A closed port: every connection attempt is refused.
      config: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_API_PER_MIN: 3, TRUST_PROXY: 1 },
      log: createLogger('warn', {}, (line) => lines.push(line)),
    });
  });
  afterAll(async () => t.close());

  test('then after a few failures the limiter stops waiting for it, limits still hold per process, and /ready says degraded without failing', async () => {
    // Warm the circuit open: a few calls may each wait for the store's deadline.
    for (let i = 0; i < 3; i++) await searchFrom(t, `198.51.100.${i + 1}`);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await timed(searchFrom(t, '198.51.100.7')));
    expect(answers.map((a) => a.out.status)).toEqual([200, 200, 200, 429, 429]);
    await expectNoWaitOnStore(t);
    expect(answers[3]!.out.body.code).toBe('RATE_LIMITED');
    expect(lines.some((l) => /rate-limit store (unavailable|failed)/.test(l))).toBe(true);
    const ready = await t.api.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toBe('degraded');
  });
});

describeWithRedis('when Redis goes away and comes back on $name', (backend) => {
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  let t: TestApp;
  let link: FaultProxy;
  beforeAll(async () => {
    link = await faultProxy(new URL(REDIS_URL!));
    const redisUrl = new URL(link.url);
    redisUrl.protocol = 'redis:';
    t = await startTestApp(backend, {
      config: { REDIS_URL: redisUrl.toString(), REDIS_PREFIX: prefix, RATE_LIMIT_API_PER_MIN: 2, TRUST_PROXY: 1 },
      limiter: (config, log) => createRateLimiter(config, log, { probeAfterMs: 200 }),
    });
  });
  afterAll(async () => {
    await t.close();
    await link.close();
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length) await redis.del(keys);
    await redis.close();
  });

  const keysFor = async (ip: string) => {
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    try {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${prefix}rl:api:ip:${ip}*`, COUNT: 100 })) keys.push(...batch);
      return keys;
    } finally {
      await redis.close();
    }
  };

  test('when it is cut, then calls are fast and limited in-process; once it is reachable, the circuit closes and counters are shared in Redis again', async () => {
    expect((await searchFrom(t, '203.0.113.1')).status).toBe(200);
    expect(await keysFor('203.0.113.1')).toHaveLength(1);
    expect((await t.api.get('/ready')).body.checks.redis).toBe('ok');

    await link.down();
    for (let i = 0; i < 3; i++) await searchFrom(t, `203.0.113.${i + 10}`);
    const during = [];
    for (let i = 0; i < 3; i++) during.push(await timed(searchFrom(t, '203.0.113.2')));
    expect(during.map((a) => a.out.status)).toEqual([200, 200, 429]);
    await expectNoWaitOnStore(t);
    expect((await t.api.get('/ready')).body).toMatchObject({ status: 'ready', checks: { redis: 'degraded' } });

    await link.up();
    const deadline = Date.now() + 15_000;
    while ((await t.api.get('/ready')).body.checks.redis !== 'ok') {
      if (Date.now() > deadline) throw new Error('the circuit did not close');
      await searchFrom(t, `203.0.113.${Math.floor(Math.random() * 100) + 100}`); // calls probe the store
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await searchFrom(t, '203.0.113.3')).status).toBe(200);
    expect(await keysFor('203.0.113.3')).toHaveLength(1);
  });
});
