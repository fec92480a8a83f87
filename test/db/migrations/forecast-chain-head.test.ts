import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { withMigrationsUndone } from '../../support/migrations';
import { verifyChain } from '../../../src/domain/forecasts/forecast-rules';
import { ForecastChainHead1700000000043 } from '../../../src/db/migrations/1700000000043-forecast-chain-head';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('migration 1700000000043 (the forecast chain head on the account row) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  type Head = { forecast_seq: number; forecast_head: string | null; forecast_prev_hash: string | null };
  const headOf = async (id: string) =>
    (
      await t.services.db.query<Head>(
        `SELECT coalesce(h.forecast_seq, 0) AS forecast_seq, h.forecast_head, h.forecast_prev_hash
         FROM users u LEFT JOIN forecast_chain_heads h ON h.user_id = u.id WHERE u.id = $1`,
        [id],
      )
    )[0]!;

  test('the head follows each record, is filled from the records when the columns arrive, and the chain goes on from it', async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
    const a = await registerAgent(t);
    const none = await registerAgent(t);
    const submit = (p: number) => t.api.post('/api/forecasts').set(bearer(a.apiKey)).send({ marketId: m.id, probability: p });
    const trade = (p: number) =>
      t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5, forecast: p });

    expect((await submit(0.3)).status).toBe(200);
    expect((await trade(0.4)).status).toBe(200);
    expect((await submit(0.5)).status).toBe(200);
    const records = await t.services.forecasts.chain(a.id);
    const last = records[records.length - 1]!;
    // The account row names the last record (seq, hash) and the one before it, whichever statement wrote it.
    expect(await headOf(a.id)).toEqual({ forecast_seq: 3, forecast_head: last.hash, forecast_prev_hash: records[1]!.hash });
    expect(await headOf(none.id)).toEqual({ forecast_seq: 0, forecast_head: null, forecast_prev_hash: null });

    await withMigrationsUndone(t.services.db.dataSource, ForecastChainHead1700000000043, async () => {
      const columns = await t.services.db.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name LIKE 'forecast%'`,
      );
      expect(columns).toEqual([]);
    });
    // Filled from the records themselves, not kept from before.
    expect(await headOf(a.id)).toEqual({ forecast_seq: 3, forecast_head: last.hash, forecast_prev_hash: records[1]!.hash });
    expect(await headOf(none.id)).toEqual({ forecast_seq: 0, forecast_head: null, forecast_prev_hash: null });

    expect((await trade(0.6)).status).toBe(200);
    const after = await t.services.forecasts.chain(a.id);
    expect(after[3]).toMatchObject({ seq: 4, prevHash: last.hash });
    expect(await verifyChain(after)).toMatchObject({ ok: true, length: 4, head: after[3]!.hash });
    const listed = await t.api.get('/api/forecasts').set(bearer(a.apiKey));
    expect(listed.body.chain).toEqual({ userId: a.id, head: after[3]!.hash, length: 4 });
  });
});
