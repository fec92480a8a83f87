import { backends, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { SimulatedFeed } from '../../src/market-data/simulated/simulated-feed';
import { parseMarketRef } from '../../src/market-data/simulated/catalog';
import { fromMicro } from '../../src/domain/money/micro';

const DAY = 86_400_000;
const DAYS = 3;

/**
 * The benchmark's own check on the seeded simulated venue (issue 33's simulation bar): the market reference states the
 * mid of each open market once a day, so its alpha must be 0 within its interval (any drift in scoring shows here); an
 * agent that knows the outcome and states the mid pushed 0.1 towards it must show alpha above 0, its interval too.
 */
function suite(backend: Backend) {
  let t: TestApp;
  const clock = new ManualClock(Date.parse('2030-03-01T12:00:00Z'));

  beforeAll(async () => {
    // At speed 90 markets live 4 minutes to 2 days, so most of those open on the first days resolve within the run.
    t = await startTestApp(backend, { clock, background: false, config: { SIM_SPEED: 90, REFERENCE_MARKETS_PER_DAY: 40 } });
  });
  afterAll(() => t.close());

  test('when the references and a scripted agent forecast for three days, then the market reference has alpha 0 and the informed agent a positive alpha with its interval above 0', async () => {
    const feed = t.services.feed as SimulatedFeed;
    const informed = await registerAgent(t, 'Informed');
    for (let day = 0; day < DAYS; day++) {
      await t.services.marketSync.runOnce();
      const acted = await t.services.referenceForecasters.runDay(clock.now());
      expect(acted.acted).toBe(true);
      expect(acted.failures).toBe(0);
      // The informed agent forecasts the same markets the market reference did: the mid, 0.1 nearer the known outcome.
      const open = await t.services.db.query<{ id: string; mid: string }>(
        `SELECT f.market_id AS id, f.mids_micro[1]::text AS mid FROM forecasts f JOIN users u ON u.id = f.user_id
         WHERE u.reference = 'market' AND f.created_at = $1`,
        [clock.now()],
      );
      expect(open.length).toBeGreaterThan(0);
      for (const m of open) {
        const mid = fromMicro(BigInt(m.mid));
        const yes = feed.winnerOf(feed.spec(parseMarketRef(m.id)!)) === 'YES';
        const probability = Math.round(Math.min(1, Math.max(0, yes ? mid + 0.1 : mid - 0.1)) * 1e6) / 1e6;
        const res = await t.api
          .post('/api/forecasts')
          .set({ Authorization: `Bearer ${informed.apiKey}` })
          .send({ marketId: m.id, probability });
        expect(res.status).toBe(200);
      }
      clock.advance(DAY);
    }
    const lastDay = new Date(clock.now().getTime() - DAY);
    clock.advance(7 * DAY);
    await t.services.marketSync.runOnce();
    await t.services.benchmarkFolder.runOnce(clock.now());

    const board = (await t.api.get('/api/benchmark/leaderboard').query({ season: 'all', audience: 'reference', metric: 'brier' })).body;
    const ids = Object.fromEntries(board.entries.map((e: { reference: string; userId: string }) => [e.reference, e.userId]));
    // The favourite states no forecasts, so it is on no forecast board: find it by its flag.
    ids.favourite = (await t.services.db.query<{ id: string }>(`SELECT id FROM users WHERE reference = 'favourite'`))[0]!.id;
    expect(Object.keys(ids).sort()).toEqual(['coin_flip', 'favourite', 'market']);
    const recordOf = async (userId: string) => (await t.api.get('/api/benchmark/record').query({ userId, season: 'all' })).body;

    const reference = await recordOf(ids.market);
    expect(reference.reference).toBe('market');
    expect(reference.forecasts.questions).toBeGreaterThanOrEqual(30);
    expect(reference.forecasts.alpha.value).toBeCloseTo(0, 12);
    expect(reference.forecasts.alpha.low).toBeLessThanOrEqual(1e-12);
    expect(reference.forecasts.alpha.high).toBeGreaterThanOrEqual(-1e-12);

    const agent = await recordOf(informed.id);
    expect(agent.forecasts.questions).toBe(reference.forecasts.questions);
    expect(agent.forecasts.alpha.value).toBeGreaterThan(0);
    expect(agent.forecasts.alpha.low).toBeGreaterThan(0);

    // The coin flip is worse than the market (negative alpha) and the favourite has trades scored at their entry price.
    const coin = await recordOf(ids.coin_flip);
    expect(coin.forecasts.alpha.value).toBeLessThan(0);
    const favourite = await recordOf(ids.favourite);
    expect(favourite.timing.buys).toBeGreaterThan(0);
    expect(favourite.entryPrice.questions).toBeGreaterThan(0);

    // A day already acted on is not acted on again (one process acts per day).
    expect((await t.services.referenceForecasters.runDay(lastDay)).acted).toBe(false);
  }, 180_000);
}

describe.each(backends().slice(0, 1))('forecasting benchmark simulation on $name', suite);
