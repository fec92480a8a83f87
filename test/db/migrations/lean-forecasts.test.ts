import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { withMigrationsUndone } from '../../support/migrations';
import { verifyChain } from '../../../src/domain/forecasts/forecast-rules';
import { LeanForecasts1700000000046 } from '../../../src/db/migrations/1700000000046-lean-forecasts';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('migration 1700000000046 (a forecast record writes two index entries) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const indexes = async () =>
    (await t.services.db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'forecasts' ORDER BY indexname`))
      .map((r) => r.indexdef.replace(/ ON (public\.)?forecasts USING btree /, ' '))
      .sort();
  const foreignKeys = async () =>
    (await t.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'forecasts'::regclass AND contype = 'f'`))[0]!.n;

  test('records keep their chain through the change and back, with two indexes instead of four and no foreign key', async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.6, 0.62);
    const a = await registerAgent(t);
    const submit = (p: number) => t.api.post('/api/forecasts').set(bearer(a.apiKey)).send({ marketId: m.id, probability: p });
    const trade = (p: number) =>
      t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5, forecast: p });
    expect((await submit(0.3)).status).toBe(200);
    expect((await trade(0.4)).status).toBe(200);

    expect(await indexes()).toEqual(['CREATE INDEX forecasts_market (market_id, user_id, seq DESC)', 'CREATE UNIQUE INDEX forecasts_pkey (user_id, seq)']);
    expect(await foreignKeys()).toBe(0);
    // The chain's order (user_id, seq), unique before, is the key.
    const [first] = await t.services.forecasts.chain(a.id);
    // The hashes are checked by their length (sha256 in hex), not by a regular expression.
    const checks = await t.services.db.query<{ conname: string; def: string }>(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'forecasts'::regclass AND conname LIKE '%hash_check' ORDER BY conname`,
    );
    expect(checks.map((c) => [c.conname, c.def.replace(/[()]/g, '')])).toEqual([
      ['forecasts_hash_check', 'CHECK char_lengthhash = 64'],
      ['forecasts_prev_hash_check', 'CHECK char_lengthprev_hash = 64'],
    ]);
    expect(first!.seq).toBe(1);

    await withMigrationsUndone(t.services.db.dataSource, LeanForecasts1700000000046, async () => {
      expect(await indexes()).toEqual([
        'CREATE INDEX forecasts_market (market_id, user_id)',
        'CREATE INDEX forecasts_user_market (user_id, market_id, seq DESC)',
        'CREATE UNIQUE INDEX forecasts_pkey (id)',
        'CREATE UNIQUE INDEX forecasts_user_id_seq_key (user_id, seq)',
      ]);
      expect(await foreignKeys()).toBe(1);
    });
    expect((await submit(0.5)).status).toBe(200);
    const chain = await t.services.forecasts.chain(a.id);
    expect(await verifyChain(chain)).toMatchObject({ ok: true, length: 3 });
    // The current forecast (the newest on the market) reads through the one index left for it.
    const listed = await t.api.get('/api/forecasts').set(bearer(a.apiKey));
    expect(listed.body.forecasts.map((f: { probability: number; current: boolean }) => [f.probability, f.current])).toEqual([
      [0.5, true],
      [0.4, false],
      [0.3, false],
    ]);
  });
});
