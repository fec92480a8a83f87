import { Client } from 'pg';
import { describeOnPostgres } from '../support/backends';
import { registerAgent } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { startProxiedApp, type ProxiedApp } from '../support/proxied-app';
import { expectBooksMatch, keyedLoad, type LoadAgent } from './keyed-load';

const QUERY_TIMEOUT_MS = 3000;
const CONNECT_TIMEOUT_MS = 3000;
const AMOUNT = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The database cut, stalled and restarted (through a proxy the test controls) under keyed trading load.
 * Clients see 200 or 503 with a JSON body, never a hang past the timeouts; every 503 retried with its key
 * once the database is back trades exactly once; the books match the answers.
 */
describeOnPostgres('database faults under keyed trading load on $name', (backend) => {
  let s: ProxiedApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let agents: LoadAgent[];
  beforeAll(async () => {
    s = await startProxiedApp(
      backend,
      { DB_QUERY_TIMEOUT_MS: QUERY_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS: CONNECT_TIMEOUT_MS, DB_POOL_SIZE: 4 },
      { prices, background: false },
    );
    m = await seedMarket(s.direct);
    prices.set(m.yes, 0.5, 0.5);
    agents = [];
    for (let i = 0; i < 4; i++) agents.push(await registerAgent(s.t));
  });
  afterAll(async () => {
    s.proxy.resume();
    await s.close();
  });

  const send = async (agent: LoadAgent, key: string) => {
    const res = await s.t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .set('Idempotency-Key', key)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: AMOUNT });
    return { status: res.status, body: res.body };
  };

  test('when the database is cut, stalled and restarted under load, then clients see 200 or 503 in time, retries trade once, and the books match', async () => {
    const load = keyedLoad(agents, send);
    const progress = async (atLeast: number) => {
      const deadline = Date.now() + 10_000;
      while (load.ok() < atLeast && Date.now() < deadline) await sleep(20);
    };
    await progress(20);
    s.proxy.cut(); // every connection drops mid-statement
    await progress(load.ok() + 20);
    s.proxy.pause(); // the link stalls, longer than the query timeout
    await sleep(QUERY_TIMEOUT_MS + 500);
    s.proxy.resume();
    await progress(load.ok() + 20);
    await s.proxy.down(); // the server goes away, refusing connections, and comes back
    await sleep(500);
    await s.proxy.up();
    await progress(load.ok() + 20);
    await load.stop();

    const outcomes = [...load.outcomes.values()];
    for (const o of outcomes) {
      expect([200, 503]).toContain(o.status);
      if (o.status === 503) expect(o.body?.code).toBe('SERVICE_UNAVAILABLE');
      expect(o.ms).toBeLessThan(QUERY_TIMEOUT_MS * 2 + CONNECT_TIMEOUT_MS + 1500);
    }
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);

    // Every request that got 503 is sent again with its key: it trades (or replays) at once.
    for (const o of outcomes.filter((x) => x.status !== 200)) {
      const retry = await send(o.agent, o.key);
      expect(retry.status).toBe(200);
      load.outcomes.set(o.key, { ...o, status: 200, body: retry.body });
    }
    await expectBooksMatch(s.direct, agents, load.outcomes.values(), AMOUNT);
  }, 60_000);
});

/**
 * Rows held locked from outside (a stuck migration, an operator's open transaction): the trades that need
 * them wait out the statement timeout and answer 503 while holding their connections, the pool runs short,
 * and everything else must still answer in time and recover when the lock goes.
 */
describeOnPostgres('rows held locked from outside under keyed trading load on $name', (backend) => {
  let s: ProxiedApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  let agents: LoadAgent[];
  const STATEMENT_TIMEOUT_MS = 1000;
  beforeAll(async () => {
    s = await startProxiedApp(
      backend,
      { DB_STATEMENT_TIMEOUT_MS: STATEMENT_TIMEOUT_MS, DB_QUERY_TIMEOUT_MS: 4000, DB_CONNECT_TIMEOUT_MS: 1000, DB_POOL_SIZE: 3 },
      { prices, background: false },
    );
    m = await seedMarket(s.direct);
    prices.set(m.yes, 0.5, 0.5);
    agents = [];
    for (let i = 0; i < 4; i++) agents.push(await registerAgent(s.t));
  });
  afterAll(async () => s.close());

  const send = async (agent: LoadAgent, key: string) => {
    const res = await s.t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .set('Idempotency-Key', key)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: AMOUNT });
    return { status: res.status, body: res.body };
  };

  test('when two accounts are locked from outside for seconds, then their trades answer 503 in time, the pool is not lost, retries trade once, and the books match', async () => {
    const holder = new Client({ connectionString: (s.direct.dataSource.options as { url: string }).url });
    await holder.connect();
    const load = keyedLoad(agents, send);
    try {
      while (load.ok() < 10) await sleep(20);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM users WHERE id = ANY($1) FOR UPDATE', [agents.slice(0, 2).map((a) => a.id)]);
      await sleep(3 * STATEMENT_TIMEOUT_MS);
      await holder.query('ROLLBACK');
      const after = load.ok();
      while (load.ok() < after + 10) await sleep(20);
    } finally {
      await load.stop();
      await holder.end();
    }
    const outcomes = [...load.outcomes.values()];
    for (const o of outcomes) {
      expect([200, 503]).toContain(o.status);
      expect(o.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000 + 2000);
    }
    const locked = new Set(agents.slice(0, 2).map((a) => a.id));
    expect(outcomes.filter((o) => o.status === 503 && locked.has(o.agent.id)).length).toBeGreaterThan(0);
    for (const o of outcomes.filter((x) => x.status !== 200)) {
      const retry = await send(o.agent, o.key);
      expect(retry.status).toBe(200);
      load.outcomes.set(o.key, { ...o, status: 200, body: retry.body });
    }
    await expectBooksMatch(s.direct, agents, load.outcomes.values(), AMOUNT);
  }, 60_000);
});
