import { Client } from 'pg';
import { describeOnPostgres } from '../support/backends';
import { registerAgent } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { startProxiedApp, type ProxiedApp } from '../support/proxied-app';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

const until = async (check: () => Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

// A connection that drops under the service must end only the requests that were using it.
describeOnPostgres('a dropped database connection on $name', (backend) => {
  let s: ProxiedApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  beforeAll(async () => {
    s = await startProxiedApp(backend, {}, { prices, background: false });
    m = await seedMarket(s.direct);
    prices.set(m.yes, 0.5, 0.5);
  });
  afterAll(async () => s.close());

  const buy = (apiKey: string, amount: number) =>
    s.t.api.post('/api/trade').set('Authorization', `Bearer ${apiKey}`).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount });
  const balanceOf = async (userId: string) =>
    Number((await s.direct.query<{ b: bigint }>('SELECT balance_micro AS b FROM cash_balances WHERE user_id = $1', [userId]))[0]!.b);

  test('when the connection drops in the middle of trades, then those trades answer 503 with nothing committed, the process lives on and later trades succeed', async () => {
    const agents = await Promise.all([registerAgent(s.t), registerAgent(s.t), registerAgent(s.t)]);
    const before = await Promise.all(agents.map((a) => balanceOf(a.id)));
    // Each agent's account row is held locked from outside, so each buy waits inside its open transaction.
    const holder = new Client({ connectionString: (s.direct.dataSource.options as { url: string }).url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM users WHERE id = ANY($1) FOR UPDATE', [agents.map((a) => a.id)]);
    const inFlight = agents.map((a) => buy(a.apiKey, 10).then((r) => r));
    await until(async () => {
      const rows = await s.direct.query<{ n: bigint }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'paper-trading' AND wait_event_type = 'Lock' AND datname = current_database()`,
      );
      return Number(rows[0]!.n) === agents.length;
    });
    s.proxy.cut();
    const answers = await Promise.all(inFlight);
    await holder.query('ROLLBACK');
    await holder.end();
    for (const r of answers) {
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(await Promise.all(agents.map((a) => balanceOf(a.id)))).toEqual(before);
    expect(await s.direct.query('SELECT 1 FROM trades WHERE user_id = ANY($1)', [agents.map((a) => a.id)])).toEqual([]);
    // The broken connections were discarded: the pool opens new ones and trading goes on.
    const after = await buy(agents[0]!.apiKey, 10);
    expect(after.status).toBe(200);
    expect((await auditLedger(s.direct)).violations).toEqual([]);
  });

  test('when idle pooled connections drop, then the next requests open new ones and succeed', async () => {
    const a = await registerAgent(s.t);
    expect((await buy(a.apiKey, 5)).status).toBe(200);
    s.proxy.cut();
    await new Promise((r) => setTimeout(r, 50));
    const again = await Promise.all([buy(a.apiKey, 5), buy(a.apiKey, 5)]);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    const bal = await s.t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.status).toBe(200);
    expect(bal.body.balance).toBe(985);
  });
});
