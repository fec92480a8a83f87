import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';
import { agentTrader, buy } from '../support/traders';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';

/**
 * Issue 49, attack 3: the 30-market floor counted buys without a forecast, so one stated forecast and 31 plain buys
 * ranked 2nd on alpha and Brier. The floor now counts resolved markets with a stated forecast only.
 */
describe.each(backends())('the benchmark floor on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-06-10T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, prices, background: false });
  });
  afterAll(() => t.close());

  test(`when an account states one forecast and makes ${MIN_RESOLVED_MARKETS + 1} plain buys, all resolved, then it does not meet the floor and is on no board; with ${MIN_RESOLVED_MARKETS} stated forecasts it does`, async () => {
    const db = t.services.db;
    const gamer = await agentTrader(t, 'Gamer');
    const honest = await agentTrader(t, 'Honest');
    const markets = [];
    for (let i = 0; i < MIN_RESOLVED_MARKETS + 2; i++) {
      const m = await seedMarket(db);
      await moveQuote(db, prices, m.yes, 0.5, 0.5);
      markets.push(m);
    }
    // The gamer: a stated forecast on the first market, plain buys on the other 31.
    expect((await t.api.post('/api/forecasts').set(gamer.headers).send({ marketId: markets[0]!.id, probability: 0.9 })).status).toBe(200);
    for (const m of markets.slice(1)) await buy(t, prices, gamer, m, 'YES', 5, 0.5);
    // The honest account: a stated forecast on 30 of them.
    for (const m of markets.slice(0, MIN_RESOLVED_MARKETS)) {
      expect((await t.api.post('/api/forecasts').set(honest.headers).send({ marketId: m.id, probability: 0.8 })).status).toBe(200);
    }
    clock.advance(60_000);
    for (const m of markets) {
      await db.query(`UPDATE markets SET status = 'resolved', winner = 'YES', end_date = $2, resolved_at = $2 WHERE id = $1`, [m.id, clock.now()]);
    }
    clock.advance(60_000);
    await t.services.benchmarkFolder.runOnce(clock.now());
    t.services.benchmark.invalidate();

    const record = async (userId: string) => (await t.api.get('/api/benchmark/record').query({ userId, season: 'all' })).body;
    const g = await record(gamer.id);
    // Its 31 buys are still scored, at the entry price, but the floor counts the one stated forecast.
    expect(g.entryPrice.questions).toBe(MIN_RESOLVED_MARKETS + 1);
    expect(g.forecasts.questions).toBe(1);
    expect(g).toMatchObject({ resolvedMarkets: 1, ranked: false, minimumMarkets: MIN_RESOLVED_MARKETS });
    const h = await record(honest.id);
    expect(h).toMatchObject({ resolvedMarkets: MIN_RESOLVED_MARKETS, ranked: true });

    for (const metric of ['alpha', 'brier', 'log_score', 'clv', 'sharpe', 'return', 'max_drawdown']) {
      const board = (await t.api.get('/api/benchmark/leaderboard').set(gamer.headers).query({ season: 'all', metric, audience: 'bots' })).body;
      expect(board.entries.map((e: { userId: string }) => e.userId)).not.toContain(gamer.id);
      expect(board.you).toMatchObject({ rank: null, resolvedMarkets: 1 });
    }
    const alpha = (await t.api.get('/api/benchmark/leaderboard').query({ season: 'all', metric: 'alpha', audience: 'bots' })).body;
    expect(alpha.entries.map((e: { userId: string }) => e.userId)).toEqual([honest.id]);

    // The season is marked provisional until it closes, on the record, the board and the export; a past month is not.
    for (const [season, provisional] of [
      ['all', true],
      ['2030-06', true],
      ['2030-05', false],
    ] as const) {
      expect((await t.api.get('/api/benchmark/record').query({ userId: honest.id, season })).body.provisional).toBe(provisional);
      expect((await t.api.get('/api/benchmark/leaderboard').query({ season })).body.provisional).toBe(provisional);
      expect((await t.api.get('/api/benchmark/forecasts').query({ season, limit: 1 })).body.provisional).toBe(provisional);
    }
  });
});
