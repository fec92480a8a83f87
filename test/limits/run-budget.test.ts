import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { oneBackend, REDIS_SKIP_REASON } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { mcpCall, rpcCall } from '../support/rpc';
import { createRunRateLimiter, runLimitsFromConfig } from '../../src/limits/run-budget';
import { createRateLimiter, limitsFromConfig } from '../../src/limits/rate-limiter';
import { loadConfig, testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';

/**
 * A replay run's own rate budget (issue 49 item 5): a run key's calls count per run against each class's live limit
 * times REPLAY_RATE_LIMIT_TIMES; live keys keep the SPEC's limits exactly (30 api calls and 120 trades a minute),
 * and neither budget can be drawn by the other's calls. Windows are fixed minutes: each test makes its calls at once.
 */

// Each run builds a migrated database of its own and syncs its venue.
jest.setTimeout(180_000);

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
type Answer = { status: number; headers: Record<string, string>; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One get_balance call on a surface, reduced to: served, or refused by the limiter with this policy. */
async function balanceOn(t: TestApp, surface: 'rest' | 'jsonrpc' | 'mcp', key: string): Promise<'ok' | { refused: string }> {
  if (surface === 'rest') {
    const res = (await t.api.get('/api/user/balance').set(bearer(key))) as unknown as Answer;
    if (res.status === 200) return 'ok';
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    return { refused: res.headers['ratelimit-policy']! };
  }
  if (surface === 'jsonrpc') {
    const res = await rpcCall(t, 'get_balance', {}, bearer(key));
    if (res.result) return 'ok';
    expect(res.error.data.code).toBe('RATE_LIMITED');
    return { refused: res.error.message };
  }
  const res = await mcpCall(t, 'get_balance', {}, bearer(key));
  if (!res.result.isError) return 'ok';
  expect(res.result.structuredContent.code).toBe('RATE_LIMITED');
  return { refused: res.result.structuredContent.error };
}

const SURFACES = ['rest', 'jsonrpc', 'mcp'] as const;

describe('the run budget’s size', () => {
  test('when nothing is set, then a run gets 40 times each live limit a minute, and the live limits are the SPEC’s', () => {
    const config = loadConfig({});
    expect(limitsFromConfig(config)).toMatchObject({ api: 30, trade: 120, sell: 120 });
    expect(runLimitsFromConfig(config)).toEqual({ register: 200, login: 400, api: 1200, trade: 4800, sell: 4800, comment: 200 });
  });

  test('when REPLAY_RATE_LIMIT_TIMES is set, then each class is its live limit times it', () => {
    const config = loadConfig({ REPLAY_RATE_LIMIT_TIMES: '3', RATE_LIMIT_API_PER_MIN: '7' });
    expect(runLimitsFromConfig(config).api).toBe(21);
    expect(runLimitsFromConfig(config).trade).toBe(360);
  });
});

/**
 * One backend (PostgreSQL where set): the limiters count in the process's memory (Redis's store is the suite below), so
 * the database cannot change a count; run keys on PGlite are served over every surface in test/replay/run-host.test.ts.
 */
describe.each(oneBackend())('a replay run’s own rate budget on $name', (backend) => {
  // An app of its own for each test, so every count below falls in the first minute of its limiters' fixed windows.
  let t: TestApp;
  afterEach(async () => t?.close());
  const startApp = async (config: Record<string, number>) => (t = await startTestApp(backend, { background: false, config }));
  const startRun = async (liveKey: string): Promise<{ runId: string; apiKey: string }> => {
    const res = await t.api.post('/api/replays').set(bearer(liveKey)).send({ seed: 7, days: 1 });
    expect(res.status).toBe(201);
    return res.body;
  };
  const trade = (key: string) =>
    t.api
      .post('/api/trade')
      .set(bearer(key))
      .send({ marketId: 'no-such-market', marketSlug: 'no-such-market', tokenId: 'no-such-token', outcome: 'YES', amount: 1 });

  test('when a run key makes 150 calls in a minute over REST, JSON-RPC and MCP at the SPEC’s live limits, then every one is served, while its owner’s live key stops at exactly 30', async () => {
    await startApp({ RATE_LIMIT_API_PER_MIN: 30, RATE_LIMIT_TRADE_PER_MIN: 120 });
    const live = await registerAgent(t, 'Budget');
    const run = await startRun(live.apiKey);
    // The live key: 30 served on any surface, the 31st refused by the live policy — the run's budget lends it nothing.
    for (let i = 0; i < 30; i++) expect(await balanceOn(t, SURFACES[i % 3]!, live.apiKey)).toBe('ok');
    expect(await balanceOn(t, 'rest', live.apiKey)).toEqual({ refused: '"api";q=30;w=60' });
    const answers = [];
    for (let i = 0; i < 150; i++) answers.push(await balanceOn(t, SURFACES[i % 3]!, run.apiKey));
    expect(answers.filter((a) => a === 'ok')).toHaveLength(150);
  });

  // Small limits: 3 api calls and 2 trades a minute live, 4 times that in a run.
  const SMALL = { RATE_LIMIT_API_PER_MIN: 3, RATE_LIMIT_TRADE_PER_MIN: 2, REPLAY_RATE_LIMIT_TIMES: 4 };

  test('when a run key goes past its budget, then it is refused on every surface with the run’s policy, and its live key is untouched', async () => {
    await startApp(SMALL);
    const live = await registerAgent(t, 'PastBudget');
    const run = await startRun(live.apiKey);
    for (let i = 0; i < 12; i++) expect(await balanceOn(t, SURFACES[i % 3]!, run.apiKey)).toBe('ok');
    expect(await balanceOn(t, 'rest', run.apiKey)).toEqual({ refused: '"api";q=12;w=60' });
    expect(await balanceOn(t, 'jsonrpc', run.apiKey)).toEqual({ refused: 'Rate limit exceeded: 12 api requests per minute.' });
    expect(await balanceOn(t, 'mcp', run.apiKey)).toEqual({ refused: 'Rate limit exceeded: 12 api requests per minute.' });
    // Trades have their own run budget: 2 × 4.
    for (let i = 0; i < 8; i++) expect((await trade(run.apiKey)).status).not.toBe(429);
    const refused = await trade(run.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('"trade";q=8;w=60');
    // The run's calls drew nothing from the live budget: the live key has its 3.
    for (const surface of SURFACES) expect(await balanceOn(t, surface, live.apiKey)).toBe('ok');
    expect(await balanceOn(t, 'rest', live.apiKey)).toEqual({ refused: '"api";q=3;w=60' });
  });

  test('when a live key with a run goes past the live limits, then it is refused exactly as before on every surface, and the run key still has its whole budget', async () => {
    await startApp(SMALL);
    const live = await registerAgent(t, 'LiveLimits');
    const run = await startRun(live.apiKey);
    for (const surface of SURFACES) expect(await balanceOn(t, surface, live.apiKey)).toBe('ok');
    expect(await balanceOn(t, 'rest', live.apiKey)).toEqual({ refused: '"api";q=3;w=60' });
    expect(await balanceOn(t, 'jsonrpc', live.apiKey)).toEqual({ refused: 'Rate limit exceeded: 3 api requests per minute.' });
    expect(await balanceOn(t, 'mcp', live.apiKey)).toEqual({ refused: 'Rate limit exceeded: 3 api requests per minute.' });
    for (let i = 0; i < 2; i++) expect((await trade(live.apiKey)).status).not.toBe(429);
    const refused = await trade(live.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('"trade";q=2;w=60');
    // The run's budget is the run's alone: all 12 of its api calls remain.
    for (let i = 0; i < 12; i++) expect(await balanceOn(t, SURFACES[i % 3]!, run.apiKey)).toBe('ok');
    expect(await balanceOn(t, 'rest', run.apiKey)).toEqual({ refused: '"api";q=12;w=60' });
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;
const describeRedis = REDIS_URL ? describe : (title: string, body: () => void) => describe.skip(`${title} (skipped: ${REDIS_SKIP_REASON})`, body);

describeRedis('a run budget shared through Redis', () => {
  const prefix = `test-${randomBytes(6).toString('hex')}:`;
  // Built per test, not here: a skipped describe still runs its body, and without TEST_REDIS_URL the config would not load.
  const configOf = () => testConfig({ REDIS_URL: REDIS_URL!, REDIS_PREFIX: prefix, RATE_LIMIT_API_PER_MIN: 2, REPLAY_RATE_LIMIT_TIMES: 2 });
  const log = createLogger('silent');
  afterAll(async () => {
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length) await redis.del(keys);
    await redis.close();
  });

  test('when two processes count one run’s calls, then they share its budget in keys of their own, apart from the live counters', async () => {
    const config = configOf();
    const [one, two, live] = [createRunRateLimiter(config, log), createRunRateLimiter(config, log), createRateLimiter(config, log)];
    try {
      const key = 'run:abc123def456:user:u1';
      for (const limiter of [one, two, one, two]) await limiter.consume('api', key, '127.0.0.1');
      await expect(two.consume('api', key, '127.0.0.1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      // The live counters of the same account are another budget: its 2 are whole.
      await live.consume('api', 'user:u1', '127.0.0.1');
      await live.consume('api', 'user:u1', '127.0.0.1');
      await expect(live.consume('api', 'user:u1', '127.0.0.1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...batch);
      await redis.close();
      expect(keys.sort()).toEqual([`${prefix}rl-run:api:${key}`, `${prefix}rl:api:user:u1`]);
    } finally {
      for (const limiter of [one, two, live]) await limiter.close();
    }
  });
});
