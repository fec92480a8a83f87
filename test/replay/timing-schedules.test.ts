import { oneBackend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';

type Market = { id: string; slug: string; endDate: string | null; outcomeTokens: Array<{ outcome: string; tokenId: string }> };
type Run = { runId: string; apiKey: string; clock: string; startAt: string; endAt: string };
type Horizon = { mean: { value: number | null; n: number } };

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const HOUR = 3_600_000;

// Each run builds a migrated database of its own and syncs its venue at every step.
jest.setTimeout(600_000);

/**
 * Issue 49, attack 5: stepping a replay every 2 h gave a +1 h CLV of −0.0033 on all buys, stepping to each news item
 * +0.02 to +0.04 for the same decisions, because the +1 h price was the mirror's last snapshot, taken at each step.
 * The timing scores now read the venue's own price path at fixed offsets after each buy.
 */
/**
 * One backend (PostgreSQL where set): the scores are read from the venue's own price path, which the scenario's seed
 * fixes, and PGlite is the same engine on one connection; a run's timing record on PGlite is still read by
 * test/replay/run-host.test.ts.
 */
describe.each(oneBackend())('timing scores and how a replay is stepped on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { clock: new ManualClock(), background: false, config: { SIM_SPEED: 60 } });
    await t.services.marketSync.runOnce();
    live = await registerAgent(t, 'Stepper');
  });
  afterAll(async () => t.close());

  /** The same decisions in a run of seed 7: YES on (up to) the five soonest-ending markets that close between 2 h after the start and 2 h before the end. */
  const decide = async (run: Run): Promise<string[]> => {
    const key = bearer(run.apiKey);
    const list = await t.api.get('/api/markets').query({ sort: 'ending', limit: 80 }).set(key);
    expect(list.status).toBe(200);
    const closes = (m: Market) => (m.endDate === null ? NaN : Date.parse(m.endDate));
    const chosen = (list.body.markets as Market[])
      .filter((m) => closes(m) >= Date.parse(run.clock) + 2 * HOUR && closes(m) <= Date.parse(run.endAt) - 2 * HOUR)
      .slice(0, 5);
    expect(chosen.length).toBeGreaterThan(0);
    for (const m of chosen) {
      const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!;
      const buy = await t.api
        .post('/api/trade')
        .set(key)
        .send({ marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 20, forecast: 0.6 });
      expect(buy.status).toBe(200);
    }
    return chosen.map((m) => m.id);
  };

  const timingOf = async (run: Run) => {
    const ended = await t.api.post(`/api/replays/${run.runId}/end`).set(bearer(live.apiKey));
    expect(ended.status).toBe(200);
    const record = await t.api.get('/api/benchmark/record').query({ season: 'all' }).set(bearer(run.apiKey));
    expect(record.status).toBe(200);
    return record.body.timing as { buys: number; h1: Horizon; h24: Horizon; close: Horizon };
  };

  test('when the same buys are made in two runs of one scenario, one stepped straight to its end and one every half hour, then the +1 h, +24 h and close CLV are equal', async () => {
    const start = async (): Promise<Run> => {
      const res = await t.api.post('/api/replays').set(bearer(live.apiKey)).send({ seed: 7, days: 2 });
      expect(res.status).toBe(201);
      return res.body as Run;
    };
    const a = await start();
    const b = await start();
    expect(await decide(a)).toEqual(await decide(b));

    // a: straight to the end (one sync there). b: a step every 30 minutes for the first 6 hours, then the end.
    for (let i = 0; i < 12; i++) expect((await t.api.post(`/api/replays/${b.runId}/advance`).set(bearer(b.apiKey)).send({ by: 1800 })).status).toBe(200);
    const ta = await timingOf(a);
    const tb = await timingOf(b);

    // Some buys are scored at +1 h, and their closing-line value is not zero (the price moved).
    expect(ta.h1.mean.n).toBeGreaterThan(0);
    expect(ta.h1.mean.value).not.toBe(0);
    expect(tb).toEqual(ta);
  });
});
