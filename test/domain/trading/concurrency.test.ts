import { describeOnPostgres } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, resolveMarket, seedMarket, type SeededMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';

// PGlite runs transactions one at a time, so races only exist on PostgreSQL.
describeOnPostgres('concurrent trading on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend as never, { prices });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
  });

  const buy = (key: string, amount: number, idem?: string) => {
    const r = t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${key}`)
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount });
    return idem ? r.set('Idempotency-Key', idem) : r;
  };

  test('when 50 buys of 100 race on a fresh 1000 account, then exactly 10 succeed and the balance ends at 0', async () => {
    const a = await registerAgent(t);
    const results = await Promise.all(Array.from({ length: 50 }, () => buy(a.apiKey, 100)));
    const ok = results.filter((r) => r.status === 200);
    const short = results.filter((r) => r.status === 400 && r.body.code === 'INSUFFICIENT_BALANCE');
    expect(ok).toHaveLength(10);
    expect(short).toHaveLength(40);
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.body.balance).toBe(0);
    const pf = await t.api.get('/api/positions').set('Authorization', `Bearer ${a.apiKey}`);
    expect(pf.body.positions).toHaveLength(1);
    expect(pf.body.positions[0].quantity).toBe(2000);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when 30 sells of 10 race on a 100-share position, then exactly 10 succeed and it is never oversold', async () => {
    const a = await registerAgent(t);
    const b = await buy(a.apiKey, 50); // 100 shares
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.api.post(`/api/positions/${b.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({ quantity: 10 }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(['POSITION_CLOSED', 'VALIDATION_ERROR']).toContain(r.body.code);
    }
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.body.balance).toBe(1000);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when buys, full sells and a settlement race on one account, then every position is sold or settled, never both', async () => {
    const a = await registerAgent(t);
    const first = await buy(a.apiKey, 100);
    const sells = Array.from({ length: 5 }, () =>
      t.api.post(`/api/positions/${first.body.positionId}/sell`).set('Authorization', `Bearer ${a.apiKey}`).send({}),
    );
    const buys = Array.from({ length: 5 }, () => buy(a.apiKey, 10));
    await resolveMarket(t.services.db, m.id, 'YES');
    const settle = t.services.settlement.runOnce(new Date());
    await Promise.all([...sells, ...buys, settle]);
    await t.services.settlement.runOnce(new Date());
    const closes = await t.services.db.query<{ position_id: string; n: bigint }>(
      `SELECT position_id, count(*) AS n FROM trades WHERE user_id = $1 AND (side = 'SETTLE' OR (side = 'SELL')) GROUP BY position_id`,
      [a.id],
    );
    for (const c of closes) expect(c.n).toBe(1n);
    const open = await t.services.db.query(`SELECT 1 FROM positions WHERE user_id = $1 AND NOT is_closed`, [a.id]);
    expect(open).toHaveLength(0);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });

  test('when 20 requests with one Idempotency-Key race, then exactly one trade happens and the others get it or 409', async () => {
    const a = await registerAgent(t);
    const results = await Promise.all(Array.from({ length: 20 }, () => buy(a.apiKey, 25, 'same-key')));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.body).toEqual(ok[0]!.body);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('CONFLICT');
    }
    const trades = await t.services.db.query(`SELECT 1 FROM trades WHERE user_id = $1`, [a.id]);
    expect(trades).toHaveLength(1);
    const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${a.apiKey}`);
    expect(bal.body.balance).toBe(975);
  });

  test('after all concurrency tests, the ledger audit finds no violation', async () => {
    const report = await auditLedger(t.services.db);
    expect(report.positions).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
