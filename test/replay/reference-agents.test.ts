import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { backends } from '../support/backends';
import { ManualClock } from '../support/identity';
import { NEWS_STAKE, playReplayAgent, readerPushes, type ReplayAgentPlay } from '../../src/replay/reference-agents';
import { alphaAcrossRuns } from '../../src/domain/replay/across-runs';
import { playBack } from '../../src/replay/venue-playback';
import { TEST_MASTER } from '../support/sealed-venue';
import type { AgentDeps } from '../../src/transports/reference-forecasters';

// Each run builds a database of its own and syncs its venue (some 300 markets) at every step; the news-reader steps to
// every news item of the window, about a second each. One simulated day per run, and one news-reader run (its steps are
// the file's cost; test/replay/venue-playback.test.ts plays it over the whole suite, tied to these runs here): the file
// took 275 s on a loaded 2-core machine with two news-reader runs.
jest.setTimeout(600_000);

const SEEDS = [1, 2];
const DAYS = 1;
const logit = (p: number) => Math.log(p / (1 - p));

interface ForecastRow {
  marketId: string;
  probability: number;
  mids: number[];
  source: string;
  createdAt: string;
}

describe('built-in reference agents in replay', () => {
  let t: TestApp;
  let deps: AgentDeps;
  let liveKey: string;

  beforeAll(async () => {
    t = await startTestApp(backends()[0]!, { clock: new ManualClock(), background: false });
    await t.services.marketSync.runOnce();
    liveKey = (await registerAgent(t, 'Runner')).apiKey;
    deps = {
      services: t.services,
      clock: t.services.clock,
      log: t.services.log,
      validateOutput: true,
      registry: t.services.registry,
      origin: 'http://localhost',
    };
  });
  afterAll(async () => t.close());

  /** Every forecast of a run's account, through list_forecasts' pages. */
  async function forecastsOf(apiKey: string): Promise<ForecastRow[]> {
    const all: ForecastRow[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.api
        .get('/api/forecasts')
        .query({ limit: 100, ...(cursor ? { cursor } : {}) })
        .set({ Authorization: `Bearer ${apiKey}` });
      expect(res.status).toBe(200);
      all.push(...(res.body.forecasts as ForecastRow[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return all;
  }

  /**
   * The tie between venue playback and a real run: playback of the run's agent and scenario, seeded by the run's account,
   * states exactly the run's forecasts (market, time, probability, stamped mid) and scores exactly its frozen alpha,
   * interval and n included.
   */
  async function expectPlaybackTied(play: ReplayAgentPlay): Promise<ForecastRow[]> {
    const back = playBack(TEST_MASTER, play.agent, play.scenario, play.accountId);
    const rows = await forecastsOf(play.apiKey);
    const order = (a: { t: number; marketId: string }, b: { t: number; marketId: string }) =>
      a.t - b.t || (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0);
    const run = rows.map((f) => ({ marketId: f.marketId, t: Date.parse(f.createdAt), probability: f.probability, mid: f.mids[0] })).sort(order);
    const played = back.forecasts
      .map((f) => ({ marketId: f.marketId, t: f.t, probability: Number(f.probabilityMicro) / 1e6, mid: Number(f.midMicro) / 1e6 }))
      .sort(order);
    expect(run.length).toBeGreaterThan(0);
    expect(played).toEqual(run);
    expect(back.resolvedMarkets).toBe(play.resolvedMarkets);
    expect(back.alpha).toEqual(play.alpha);
    return rows;
  }

  test('when the market agent plays stepped runs, then its alpha is 0 in every run and across them the interval contains 0', async () => {
    const plays: ReplayAgentPlay[] = [];
    for (const seed of SEEDS) plays.push(await playReplayAgent(deps, liveKey, 'market', { seed, days: DAYS }));
    for (const p of plays) {
      expect(p.resolvedMarkets).toBeGreaterThan(0);
      expect(p.refused).toBe(0);
      // It states the very mid the service stamps, so the market's Brier and its own are the same on every question.
      expect(p.alpha).toMatchObject({ value: 0, low: 0, high: 0 });
      await expectPlaybackTied(p);
    }
    const across = alphaAcrossRuns(plays, 'market');
    expect(across.n).toBe(plays.reduce((s, p) => s + p.alpha.n, 0));
    expect(across.low!).toBeLessThanOrEqual(0);
    expect(across.high!).toBeGreaterThanOrEqual(0);
  });

  test('when the coin flip plays a run, then every forecast is 0.5 and its Brier is exactly 0.25', async () => {
    const play = await playReplayAgent(deps, liveKey, 'coin_flip', { seed: SEEDS[0]!, days: DAYS });
    expect(play.resolvedMarkets).toBeGreaterThan(0);
    expect(play.brier).toMatchObject({ value: 0.25, low: 0.25, high: 0.25 });
    await expectPlaybackTied(play);
  });

  test('when the news-reader plays a stepped run, then it moves each forecast from the mid by its push in the news’ direction, buys on it, and venue playback gives its very forecasts and alpha', async () => {
    const p = await playReplayAgent(deps, liveKey, 'news_reader', { seed: SEEDS[0]!, days: DAYS });
    expect(p.resolvedMarkets).toBeGreaterThan(0);
    const key = { Authorization: `Bearer ${p.apiKey}` };
    const forecasts = await expectPlaybackTied(p);
    expect(forecasts.some((f) => f.source === 'paper_trade')).toBe(true);
    for (const f of forecasts) {
      // The move in log-odds from the stamped mid is one of the reader's pushes (a source's weight times a degree), unless clamped.
      if (f.probability === 0.01 || f.probability === 0.99) continue;
      const move = Math.abs(logit(f.probability) - logit(f.mids[0]!));
      expect(Math.min(...readerPushes().map((push) => Math.abs(move - push)))).toBeLessThan(1e-3);
    }
    // Each buy took the side the news favoured, with the stake: YES exactly when its forecast is above the mid.
    const trades = (await t.api.get('/api/trades').query({ limit: 100 }).set(key)).body.trades as Array<{
      kind: string;
      marketId: string;
      outcome: string;
      amount: number;
      createdAt: string;
    }>;
    const buys = trades.filter((x) => x.kind === 'buy');
    expect(buys.length).toBeGreaterThan(0);
    for (const buy of buys) {
      expect(buy.amount).toBe(NEWS_STAKE);
      const f = forecasts.find((x) => x.source === 'paper_trade' && x.marketId === buy.marketId && x.createdAt === buy.createdAt)!;
      expect(buy.outcome).toBe(f.probability > f.mids[0]! ? 'YES' : 'NO');
    }
  });
});
