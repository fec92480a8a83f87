import { Client } from 'pg';
import { describeOnPostgres } from '../../support/backends';
import { registerAgent } from '../../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { faultProxy } from '../../support/fault-proxy';
import { startProxiedApp, type ProxiedApp } from '../../support/proxied-app';
import { IdempotencyStore, requestHash } from '../../../src/domain/idempotency/idempotency-store';
import { openDatabase } from '../../../src/db/database';
import { testConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';

const until = async (check: () => Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

// A claim whose request can never finish must not block the retry that the client is told to send.
describeOnPostgres('idempotency claims whose request died on $name', (backend) => {
  let s: ProxiedApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  beforeAll(async () => {
    s = await startProxiedApp(backend, {}, { prices, background: false });
    m = await seedMarket(s.direct);
    prices.set(m.yes, 0.5, 0.5);
  });
  afterAll(async () => s.close());

  const order = () => ({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 });
  const buy = (apiKey: string, key: string) => s.t.api.post('/api/trade').set('Authorization', `Bearer ${apiKey}`).set('Idempotency-Key', key).send(order());
  const tradesOf = async (userId: string) => (await s.direct.query('SELECT id FROM trades WHERE user_id = $1', [userId])).length;

  test('when the process that claimed a key dies, then a retry trades at once and exactly once; while it lives, the retry gets 409 with Retry-After', async () => {
    const a = await registerAgent(s.t);
    // Another process of the service: its own pool and lease, through a link the test can cut.
    const link = await faultProxy(new URL((s.direct.dataSource.options as { url: string }).url));
    const other = await openDatabase(testConfig({ DATABASE_URL: link.url, DB_POOL_SIZE: 2 }), createLogger('silent'));
    const otherStore = new IdempotencyStore(other);
    try {
      const claim = await otherStore.claim(a.id, 'crash-1', 'paper_trade', requestHash('paper_trade', order()), new Date());
      expect(claim.kind).toBe('new');

      const busy = await buy(a.apiKey, 'crash-1');
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('CONFLICT');
      expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);

      // kill -9 as the database sees it: every connection of that process closes at once.
      link.cut();
      await until(async () => {
        const r = await s.direct.query<{ n: bigint }>(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2`);
        return Number(r[0]!.n) <= 1; // only this app's own lease is left
      });
      const retry = await buy(a.apiKey, 'crash-1');
      expect(retry.status).toBe(200);
      const again = await buy(a.apiKey, 'crash-1');
      expect(again.status).toBe(200);
      expect(again.body).toEqual(retry.body);
      expect(await tradesOf(a.id)).toBe(1);
      // The dead request's claim can no longer complete: its trade would roll back.
      if (claim.kind === 'new') await expect(s.direct.transaction((tx) => claim.complete(tx, { late: true }))).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await other.close().catch(() => {});
      await otherStore.close();
      await link.close();
    }
  });

  test('when a claim taken over completes late, then it is refused and the key keeps the response of the request that ran', async () => {
    const a = await registerAgent(s.t);
    const store = s.t.services.idempotency;
    const hash = requestHash('paper_trade', order());
    const first = await store.claim(a.id, 'late-1', 'paper_trade', hash, new Date());
    if (first.kind !== 'new') throw new Error('expected a new claim');
    first.end(); // its request died in this process without giving the key back
    const retry = await buy(a.apiKey, 'late-1');
    expect(retry.status).toBe(200);
    await expect(s.t.services.db.transaction((tx) => first.complete(tx, { late: true }))).rejects.toMatchObject({ code: 'CONFLICT' });
    const replay = await buy(a.apiKey, 'late-1');
    expect(replay.body).toEqual(retry.body);
    expect(await tradesOf(a.id)).toBe(1);
  });

  test('when the database goes away in the middle of a keyed trade, then the retry once it is back trades at once and exactly once', async () => {
    const a = await registerAgent(s.t);
    const before = await tradesOf(a.id);
    const holder = new Client({ connectionString: (s.direct.dataSource.options as { url: string }).url });
    await holder.connect();
    await holder.query('BEGIN');
    // FOR NO KEY UPDATE: the claim's insert (its foreign key takes KEY SHARE on the account row) goes through,
    // and the trade then waits on the account row, inside its transaction, with its claim in flight.
    await holder.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [a.id]);
    const inFlight = buy(a.apiKey, 'cut-1').then((r) => r);
    await until(async () => {
      const rows = await s.direct.query<{ n: bigint; claims: bigint }>(
        `SELECT (SELECT count(*) FROM pg_stat_activity WHERE application_name = 'paper-trading' AND wait_event_type = 'Lock' AND datname = current_database()) AS n,
                (SELECT count(*) FROM idempotency_keys WHERE user_id = $1 AND key = 'cut-1' AND state = 'in_flight') AS claims`,
        [a.id],
      );
      return Number(rows[0]!.n) === 1 && Number(rows[0]!.claims) === 1;
    });
    await s.proxy.down(); // the trade's connection drops, and giving the key back fails too
    const failed = await inFlight;
    await holder.query('ROLLBACK');
    await holder.end();
    expect(failed.status).toBe(503);
    expect((await s.direct.query(`SELECT state FROM idempotency_keys WHERE user_id = $1 AND key = 'cut-1'`, [a.id]))[0]).toEqual({ state: 'in_flight' });
    await s.proxy.up();
    const retry = await buy(a.apiKey, 'cut-1');
    expect(retry.status).toBe(200);
    expect((await buy(a.apiKey, 'cut-1')).body).toEqual(retry.body);
    expect((await tradesOf(a.id)) - before).toBe(1);
    expect((await auditLedger(s.direct)).violations).toEqual([]);
  });
});
