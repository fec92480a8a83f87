import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';
import { agentTrader, personTrader, type Trader } from '../support/traders';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';
import type { ExportedForecast } from '../../src/domain/benchmark/benchmark-export';
import { FORECAST_METRICS, recompute, verifyExportChain } from '../../scripts/recompute-benchmark';

/**
 * Issue 49 item 4: the export reproduces the boards. Three accounts state forecasts (one with a rationale, one
 * superseding some) on 34 markets that resolve; the script recomputes the alpha, brier and log_score boards of every
 * audience from the export alone, byte for byte as the service serves them, and checks every record's hash and link.
 */
describe.each(backends())('recomputing the boards from the export on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-08-05T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, prices, background: false });
  });
  afterAll(() => t.close());

  const state = async (who: Trader, marketId: string, probability: number, rationale?: string) => {
    const res = await t.api
      .post('/api/forecasts')
      .set(who.headers)
      .send({ marketId, probability, ...(rationale ? { rationale } : {}) });
    expect(res.status).toBe(200);
  };

  test('when the season is exported, then the script reproduces every forecast board byte for byte and verifies the chains; a tampered record fails the check', async () => {
    const db = t.services.db;
    const a = await agentTrader(t, 'Sharp');
    const b = await agentTrader(t, 'Blunt');
    const p = await personTrader(t);
    const markets = [];
    for (let i = 0; i < MIN_RESOLVED_MARKETS + 4; i++) {
      const m = await seedMarket(db);
      await moveQuote(db, prices, m.yes, 0.3 + (i % 5) / 10, 0.32 + (i % 5) / 10);
      markets.push(m);
    }
    for (const [i, m] of markets.entries()) {
      await state(a, m.id, i % 3 === 0 ? 0.25 : 0.8, i === 0 ? 'Forecast models agree, "mostly".' : undefined);
      await state(b, m.id, 0.5);
      if (i % 4 === 0) await state(b, m.id, 0.65); // superseded: both stay in the export
      await state(p, m.id, i % 2 ? 0.7 : 0.4);
    }
    clock.advance(3_600_000);
    for (const [i, m] of markets.entries()) {
      const winner = i % 3 === 0 ? 'NO' : i === 5 ? 'VOID' : 'YES';
      await db.query(`UPDATE markets SET status = 'resolved', winner = $2, end_date = $3, resolved_at = $3 WHERE id = $1`, [m.id, winner, clock.now()]);
    }
    clock.advance(60_000);
    await t.services.benchmarkFolder.runOnce(clock.now());
    t.services.benchmark.invalidate();

    const season = 'all';
    const rows: ExportedForecast[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.api.get('/api/benchmark/forecasts').query({ season, limit: 40, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      rows.push(...res.body.forecasts);
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(rows).toHaveLength(3 * markets.length + Math.ceil(markets.length / 4));
    expect(rows.find((r) => r.rationale !== null)).toMatchObject({ userId: a.id, rationale: 'Forecast models agree, "mostly".' });

    const out = await recompute(rows, season);
    expect(out.chain).toEqual({ ok: true, accounts: 3, records: rows.length, linked: rows.length - 3 });
    let compared = 0;
    for (const metric of FORECAST_METRICS) {
      for (const audience of ['all', 'bots', 'everyone', 'reference'] as const) {
        const served = (await t.api.get('/api/benchmark/leaderboard').query({ season, metric, audience, limit: 100 })).body;
        const entries = served.entries.map((e: { rank: number; userId: string; resolvedMarkets: number; figure: unknown }) => ({
          rank: e.rank,
          userId: e.userId,
          resolvedMarkets: e.resolvedMarkets,
          figure: e.figure,
        }));
        expect(JSON.stringify(out.boards[`${metric}/${audience}`])).toBe(JSON.stringify(entries));
        compared += entries.length;
      }
    }
    // Every board with anyone on it was compared: three accounts on each of three metrics, everyone and their own audience.
    expect(compared).toBe(3 * 3 * 2);

    // An independent check of one figure: Sharp's alpha from the final forecasts and stamped mids, by hand.
    const finals = new Map<string, ExportedForecast>();
    for (const r of rows.filter((x) => x.userId === a.id && x.winner !== null)) finals.set(r.marketId, r);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const alpha = mean([...finals.values()].map((r) => (r.mids[0]! - r.winner!) ** 2 - (r.probabilities[0]! - r.winner!) ** 2));
    const sharp = out.boards['alpha/bots']!.find((e) => e.userId === a.id)!;
    expect(sharp.figure.value).toBeCloseTo(alpha, 12);
    expect(sharp.resolvedMarkets).toBe(markets.length - 1); // the VOID market does not count

    // Tampering: a probability changed, or a record dropped from the middle of a chain, is found.
    const changed = rows.map((r) => (r.userId === b.id && r.seq === 2 ? { ...r, probabilities: [0.51] } : r));
    expect(await verifyExportChain(changed)).toMatchObject({ ok: false, userId: b.id, seq: 2, reason: 'hash does not match the record' });
    const relinked = rows.map((r) => (r.userId === p.id && r.seq === 3 ? { ...r, prevHash: rows.find((x) => x.userId === p.id && x.seq === 1)!.hash } : r));
    expect((await verifyExportChain(relinked)).ok).toBe(false);
  });
});
