import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { backends } from '../support/backends';
import { ManualClock } from '../support/identity';
import { NEWS_PUSH, NEWS_STAKE, playReplayAgent, SHARP_NEWS_PUSH, type ReplayAgentPlay } from '../../src/replay/reference-agents';
import { alphaAcrossRuns } from '../../src/domain/replay/across-runs';
import type { AgentDeps } from '../../src/transports/reference-forecasters';

// Each run builds a database of its own and syncs its venue (some 300 markets) at every step; the news-reader steps to
// every news item of the window, about a second each. One simulated day per run: the file took 275 s on a loaded 2-core machine.
jest.setTimeout(600_000);

const SEEDS = [1, 2];
const DAYS = 1;
const logit = (p: number) => Math.log(p / (1 - p));

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

  test('when the market agent plays stepped runs, then its alpha is 0 in every run and across them the interval contains 0', async () => {
    const plays: ReplayAgentPlay[] = [];
    for (const seed of SEEDS) plays.push(await playReplayAgent(deps, liveKey, 'market', { seed, days: DAYS }));
    for (const p of plays) {
      expect(p.resolvedMarkets).toBeGreaterThan(0);
      expect(p.refused).toBe(0);
      // It states the very mid the service stamps, so the market's Brier and its own are the same on every question.
      expect(p.alpha).toMatchObject({ value: 0, low: 0, high: 0 });
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
  });

  test('when the news-reader plays stepped runs, then it moves each forecast from the mid by its push in the news’ direction, buys on it, and its alpha across runs is the benchmark’s', async () => {
    const plays: ReplayAgentPlay[] = [];
    for (const seed of SEEDS) plays.push(await playReplayAgent(deps, liveKey, 'news_reader', { seed, days: DAYS }));
    for (const p of plays) {
      expect(p.resolvedMarkets).toBeGreaterThan(0);
      const key = { Authorization: `Bearer ${p.apiKey}` };
      const forecasts = (await t.api.get('/api/forecasts').query({ limit: 100 }).set(key)).body.forecasts as Array<{
        marketId: string;
        probability: number;
        mids: number[];
        source: string;
        createdAt: string;
      }>;
      expect(forecasts.length).toBeGreaterThan(0);
      expect(forecasts.some((f) => f.source === 'paper_trade')).toBe(true);
      for (const f of forecasts) {
        // The move in log-odds from the stamped mid is one of the two pushes (up or down), unless the forecast was clamped.
        if (f.probability === 0.01 || f.probability === 0.99) continue;
        const move = Math.abs(logit(f.probability) - logit(f.mids[0]!));
        expect(Math.min(Math.abs(move - NEWS_PUSH), Math.abs(move - SHARP_NEWS_PUSH))).toBeLessThan(1e-3);
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
    }
    const across = alphaAcrossRuns(plays, 'news_reader');
    // Independently: the mean over every scored market of all runs, Σ alphaᵢ·nᵢ / Σ nᵢ.
    const n = plays.reduce((s, p) => s + p.alpha.n, 0);
    expect(across.n).toBe(n);
    expect(across.value).toBeCloseTo(plays.reduce((s, p) => s + p.alpha.value! * p.alpha.n, 0) / n, 12);
    expect(across.low!).toBeLessThanOrEqual(across.value!);
    expect(across.high!).toBeGreaterThanOrEqual(across.value!);
  });
});
