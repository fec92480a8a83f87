import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { withMigrationsUndone } from '../../support/migrations';
import { BenchmarkChanges1700000000047 } from '../../../src/db/migrations/1700000000047-benchmark-changes';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('migration 1700000000047 (a counter of what the benchmark shows) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const version = async () => Number((await t.services.db.query<{ version: string }>('SELECT version FROM benchmark_changes'))[0]!.version);

  test('records and an account’s shown columns move it; a trade, a forecast and an unchanged name do not; down and up keep it working', async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
    const a = await registerAgent(t);
    let v = await version();
    const moved = async () => {
      const now = await version();
      const did = now > v;
      v = now;
      return did;
    };

    // Trades, forecasts, orders and a key's use write users and books: none is shown by the benchmark.
    const trade = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5, forecast: 0.7 });
    expect(trade.status).toBe(200);
    expect((await t.api.post('/api/forecasts').set(bearer(a.apiKey)).send({ marketId: m.id, probability: 0.65 })).status).toBe(200);
    expect(await moved()).toBe(false);
    // The same name again sets the column to its value: no change.
    await t.services.db.query('UPDATE users SET display_name = display_name WHERE id = $1', [a.id]);
    expect(await moved()).toBe(false);

    expect((await t.api.post('/api/user/profile').set(bearer(a.apiKey)).send({ displayName: 'Renamed' })).status).toBe(200);
    expect(await moved()).toBe(true);
    await t.services.db.query(
      `INSERT INTO benchmark_records (user_id, season, audience, resolved_markets, record, computed_at) VALUES ($1, 'all', 'agents', 0, '{}', now())`,
      [a.id],
    );
    expect(await moved()).toBe(true);
    await t.services.db.query(`UPDATE benchmark_records SET resolved_markets = 1 WHERE user_id = $1`, [a.id]);
    expect(await moved()).toBe(true);
    await t.services.db.query(`DELETE FROM benchmark_records WHERE user_id = $1`, [a.id]);
    expect(await moved()).toBe(true);
    await t.services.db.query('UPDATE users SET is_agent = false WHERE id = $1', [a.id]);
    expect(await moved()).toBe(true);

    await withMigrationsUndone(t.services.db.dataSource, BenchmarkChanges1700000000047, async () => {
      const tables = await t.services.db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'benchmark_changes'`);
      expect(tables).toHaveLength(0);
      // Without it, writes to what it watched still work (no trigger left behind).
      await t.services.db.query(`UPDATE users SET display_name = 'Before' WHERE id = $1`, [a.id]);
    });
    v = await version();
    await t.services.db.query('UPDATE users SET deleted_at = now() WHERE id = $1', [a.id]);
    expect(await moved()).toBe(true);
  });
});
