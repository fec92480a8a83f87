import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { describeOnPostgres, describeOnPostgresWithRedis } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { faultProxy, type FaultProxy } from '../support/fault-proxy';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { createRateLimiter } from '../../src/limits/rate-limiter';
import { expectBooksMatch, keyedLoad, type LoadAgent, type Outcome } from './keyed-load';

const AMOUNT = 1;
// High enough that the load never meets them: what is measured is the wait on the store, not refusals.
const LIMITS = { RATE_LIMIT_API_PER_MIN: 100_000, RATE_LIMIT_TRADE_PER_MIN: 100_000, RATE_LIMIT_SELL_PER_MIN: 100_000 };
// The limiter waits at most this long on its store before the call goes on with in-process counts.
const STORE_DEADLINE_MS = 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function buyer(t: TestApp, m: SeededMarket) {
  return async (agent: LoadAgent, key: string) => {
    const res = await t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .set('Idempotency-Key', key)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: AMOUNT });
    return { status: res.status, body: res.body as Outcome['body'] };
  };
}

async function progress(load: ReturnType<typeof keyedLoad>, atLeast: number) {
  const deadline = Date.now() + 15_000;
  while (load.ok() < atLeast && Date.now() < deadline) await sleep(20);
  expect(load.ok()).toBeGreaterThanOrEqual(atLeast);
}

/** The answers recorded after the first `skip` (the outcomes map keeps insertion order). */
const answersSince = (load: ReturnType<typeof keyedLoad>, skip: number) => [...load.outcomes.values()].slice(skip);

/**
 * A process started while Redis cannot be reached, under keyed trading load on PostgreSQL: it trades at
 * full speed on in-process limits (once its circuit is open no call waits on the store), /ready says
 * degraded, and the books match the answers.
 */
describeOnPostgres('Redis unreachable at start, under keyed trading load, on $name', (backend) => {
  let t: TestApp;
  let m: SeededMarket;
  const prices = new ControlledPrices();
  const agents: LoadAgent[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, {
      prices,
      background: false,
      // A closed port: every connection attempt is refused.
      config: { REDIS_URL: 'redis://127.0.0.1:1', ...LIMITS },
    });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    for (let i = 0; i < 4; i++) agents.push(await registerAgent(t));
  });
  afterAll(async () => t.close());

  test('when agents trade, then every buy answers 200 without waiting on Redis, /ready says degraded, and the books match', async () => {
    const load = keyedLoad(agents, buyer(t, m));
    await progress(load, 12); // the first calls may each wait out the store's deadline while the circuit opens
    const warm = load.outcomes.size;
    await progress(load, load.ok() + 60);
    await load.stop();

    const all = [...load.outcomes.values()];
    expect(all.map((o) => o.status).filter((s) => s !== 200)).toEqual([]);
    const after = answersSince(load, warm + agents.length); // calls in flight at the mark may have started before it
    expect(after.length).toBeGreaterThan(40);
    expect(after.filter((o) => o.ms >= STORE_DEADLINE_MS)).toEqual([]);

    const ready = await t.api.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { redis: 'degraded' } });
    await expectBooksMatch(t.services.db, agents, load.outcomes.values(), AMOUNT);
  }, 60_000);
});

/**
 * Redis cut, then stalled, mid-run under keyed trading load on PostgreSQL (through a proxy the test
 * controls, never the shared server): trading goes on at full speed on in-process limits while the
 * circuit is open, the circuit closes when Redis is back, and the books match the answers.
 */
describeOnPostgresWithRedis('Redis lost mid-run under keyed trading load on $name', (backend) => {
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  let t: TestApp;
  let link: FaultProxy;
  let m: SeededMarket;
  const prices = new ControlledPrices();
  const agents: LoadAgent[] = [];
  beforeAll(async () => {
    link = await faultProxy(new URL(process.env.TEST_REDIS_URL!));
    const redisUrl = new URL(link.url);
    redisUrl.protocol = 'redis:';
    t = await startTestApp(backend, {
      prices,
      background: false,
      config: { REDIS_URL: redisUrl.toString(), REDIS_PREFIX: prefix, ...LIMITS },
      limiter: (config, log) => createRateLimiter(config, log, { probeAfterMs: 300 }),
    });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    for (let i = 0; i < 4; i++) agents.push(await registerAgent(t));
  });
  afterAll(async () => {
    link.resume();
    await t.close();
    await link.close();
    const redis = createClient({ url: process.env.TEST_REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length) await redis.del(keys);
    await redis.close();
  });

  const redisCheck = async () => (await t.api.get('/ready')).body.checks.redis as string;
  const untilRedis = async (state: string) => {
    const deadline = Date.now() + 15_000;
    while ((await redisCheck()) !== state) {
      if (Date.now() > deadline) throw new Error(`/ready never said redis: ${state}`);
      await sleep(100);
    }
  };

  test('when Redis is cut and then stalls under load, then buys keep answering 200 in time, the circuit closes when it is back, and the books match', async () => {
    const load = keyedLoad(agents, buyer(t, m));
    await progress(load, 20);
    expect(await redisCheck()).toBe('ok');

    await link.down(); // connections reset, new ones refused
    await untilRedis('degraded');
    let mark = load.outcomes.size + agents.length;
    await progress(load, load.ok() + 40);
    const whileDown = answersSince(load, mark);

    await link.up();
    await untilRedis('ok');
    const upMark = load.outcomes.size + agents.length;
    await progress(load, load.ok() + 40);
    const whileUp = answersSince(load, upMark);

    link.pause(); // connections stay open but nothing comes back: each call meets the store's deadline until the circuit opens
    await untilRedis('degraded');
    mark = load.outcomes.size + agents.length;
    await progress(load, load.ok() + 40);
    const whileStalled = answersSince(load, mark);
    link.resume();
    await untilRedis('ok');
    await progress(load, load.ok() + 20);
    await load.stop();

    const all = [...load.outcomes.values()];
    expect(all.map((o) => o.status).filter((s) => s !== 200)).toEqual([]);
    // With the circuit open no call waits on the store; a probe now and then may meet its deadline once. Measured against
    // the healthy phase of the same run: on two loaded cores a buy can pass the deadline by itself, and a call that waited
    // on the store would make a phase slower than that one.
    const slowShare = (phase: typeof whileUp) => phase.filter((o) => o.ms >= STORE_DEADLINE_MS).length / phase.length;
    expect(whileUp.length).toBeGreaterThan(30);
    for (const phase of [whileDown, whileStalled]) {
      expect(phase.length).toBeGreaterThan(30);
      expect(slowShare(phase)).toBeLessThanOrEqual(slowShare(whileUp) + 0.1);
    }
    // Every answer came within the store's deadline plus a trade's own time: never a hang.
    for (const o of all) expect(o.ms).toBeLessThan(STORE_DEADLINE_MS + 2_000);
    await expectBooksMatch(t.services.db, agents, load.outcomes.values(), AMOUNT);
  }, 90_000);
});
