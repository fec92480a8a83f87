import { describeOnPostgres } from '../support/backends';
import { startServiceProcess, type ServiceProcess } from './service-process';
import { expectBooksMatch, keyedLoad, type LoadAgent } from './keyed-load';
import type { Database } from '../../src/db/database';

const AMOUNT = 1;
const ENV = {
  RATE_LIMIT_REGISTER_PER_MIN: '100000',
  RATE_LIMIT_API_PER_MIN: '100000',
  RATE_LIMIT_TRADE_PER_MIN: '100000',
  RATE_LIMIT_SELL_PER_MIN: '100000',
};

/**
 * kill -9 of a service process under keyed trading load, then a restart: every request that got no answer
 * is sent again with its key and trades at once, exactly once; the books match the answers.
 */
describeOnPostgres('a service process killed under keyed trading load on $name', (backend) => {
  let opened: Awaited<ReturnType<typeof backend.open>>;
  let db: Database;
  const running: ServiceProcess[] = [];
  beforeAll(async () => {
    opened = await backend.open();
    db = opened.db;
  });
  afterAll(async () => {
    for (const p of running) await p.stop();
    await opened.drop();
  });

  test('when the process is killed with SIGKILL and restarted, then unanswered keyed buys retried on the new process trade once, and the books match', async () => {
    const first = await startServiceProcess({ ...ENV, DATABASE_URL: opened.url! });
    running.push(first);
    const [market] = await db.query<{ id: string; slug: string; token_id: string }>(
      `SELECT m.id, m.slug, t.token_id FROM markets m JOIN market_tokens t ON t.market_id = m.id
       WHERE m.status = 'active' AND t.outcome = 'YES' ORDER BY m.volume DESC, m.id LIMIT 1`,
    );
    const agents: LoadAgent[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${first.url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `kill${i}-${Date.now()}@example.com`, password: 'password123', displayName: `Killed${i}`, isAgent: true }),
      });
      const body = (await res.json()) as { user: { id: string; apiKey: string } };
      agents.push({ id: body.user.id, apiKey: body.user.apiKey });
    }
    let target = first;
    const send = async (agent: LoadAgent, key: string) => {
      const res = await fetch(`${target.url}/api/trade`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.apiKey}`, 'idempotency-key': key },
        body: JSON.stringify({ marketId: market!.id, marketSlug: market!.slug, tokenId: market!.token_id, outcome: 'YES', amount: AMOUNT }),
      });
      return { status: res.status, body: (await res.json()) as never };
    };

    const load = keyedLoad(agents, send);
    const deadline = Date.now() + 20_000;
    while (load.ok() < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await first.kill();
    await load.stop();
    const outcomes = [...load.outcomes.values()];
    expect(load.ok()).toBeGreaterThan(0);
    for (const o of outcomes) expect([200, 'no answer']).toContain(o.status);
    // Requests were in flight when it died (their claims, and maybe their trades, were left behind).
    expect(outcomes.filter((o) => o.status === 'no answer').length).toBeGreaterThan(0);

    const second = await startServiceProcess({ ...ENV, DATABASE_URL: opened.url! });
    running.push(second);
    target = second;
    // Unanswered requests, and a few answered ones, sent again with their keys.
    const again = [...outcomes.filter((o) => o.status !== 200), ...outcomes.filter((o) => o.status === 200).slice(0, 3)];
    for (const o of again) {
      const retry = await send(o.agent, o.key);
      expect(retry.status).toBe(200);
      if (o.status === 200) expect(retry.body).toEqual(o.body);
      load.outcomes.set(o.key, { ...o, status: 200, body: retry.body });
    }
    await expectBooksMatch(db, agents, load.outcomes.values(), AMOUNT);
  }, 240_000);
});
