import { oneBackend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';

type Market = { id: string; slug: string; outcomeTokens: Array<{ outcome: string; tokenId: string }> };
type Run = { runId: string; apiKey: string };
/** One recorded call of an agent in a run: its verb, its path (`:runId` stands for the run) and its body. */
type Call = { verb: 'get' | 'post'; path: string; body?: Record<string, unknown>; query?: Record<string, unknown> };

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
/**
 * A one-day run of the simulated venue: byte-identity does not depend on a run's length, and a whole 30-day suite episode
 * played three times on two backends took 15 minutes of CI (its wall time is bench:replay's to measure).
 */
const SCENARIO = { seed: 17, days: 1 };

// Each run builds a migrated database of its own and syncs its venue once per simulated day; ten at once share two cores.
jest.setTimeout(900_000);

/**
 * One backend (PostgreSQL where set): PGlite is the same PostgreSQL engine on one connection, so a record that differs
 * between two plays differs on PostgreSQL too, whose pool, concurrent runs and shared server (a run is a schema there,
 * a whole instance of its own on PGlite) are the harder case for both reproducing and staying apart. A run on PGlite
 * is still played, stepped and recorded by test/replay/run-host.test.ts and run-events.test.ts on both.
 */
describe.each(oneBackend())('replay runs reproduce and stay apart on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false });
    live = await registerAgent(t, 'Recorder');
  });
  afterAll(async () => t.close());

  const start = async (body: Record<string, unknown>): Promise<Run> => {
    const res = await t.api.post('/api/replays').set(bearer(live.apiKey)).send(body);
    expect(res.status).toBe(201);
    return res.body as Run;
  };

  const send = async (run: Run, call: Call) => {
    const path = call.path.replace(':runId', run.runId);
    const req = call.verb === 'get' ? t.api.get(path).query(call.query ?? {}) : t.api.post(path).send(call.body ?? {});
    const res = await req.set(bearer(run.apiKey));
    expect([path, res.status]).toEqual([path, 200]);
    return res.body as Record<string, unknown>;
  };

  /** What a run leaves: the frozen summary get_replay shows and the whole record the run's key reads. */
  const frozen = async (run: Run): Promise<string> => {
    const summary = (await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey))).body.record;
    expect(summary).toMatchObject({ venue: 'replay' });
    const whole = await t.api.get('/api/benchmark/record').query({ season: 'all' }).set(bearer(run.apiKey));
    expect(whole.status).toBe(200);
    return JSON.stringify({ summary, whole: whole.body });
  };

  /**
   * The run's fills and account events as its key reads them, byte for byte but for row ids (a trade's or an event's id is
   * a fresh UUID; every figure, time, market and side is the scenario's and the calls').
   */
  const fillsAndEvents = async (run: Run): Promise<string> => {
    const trades = await t.api.get('/api/trades').query({ limit: 100 }).set(bearer(run.apiKey));
    const events = await t.api.get('/api/user/events').query({ limit: 100 }).set(bearer(run.apiKey));
    expect([trades.status, events.status]).toEqual([200, 200]);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    // Trades of one instant (two settlements at a resolution) are listed in the order of their random ids: compared as a set.
    const rows = (trades.body.trades as Array<Record<string, unknown>>).map((r) =>
      JSON.stringify(r, (_k, v: unknown) => (typeof v === 'string' && uuid.test(v) ? 'uuid' : v)),
    );
    return JSON.stringify({ trades: rows.sort(), events: events.body }, (_k, v: unknown) => (typeof v === 'string' && uuid.test(v) ? 'uuid' : v));
  };

  /**
   * An agent that decides from what it reads: forecasts on the market ending soonest, buys YES with a forecast in the next,
   * steps to the next news, buys NO on the first, steps an hour, ends. Its state-changing calls are the log.
   */
  const record = async (run: Run): Promise<Call[]> => {
    const log: Call[] = [];
    const act = async (call: Call) => {
      log.push(call);
      return send(run, call);
    };
    const list = await send(run, { verb: 'get', path: '/api/markets', query: { sort: 'ending', limit: 5 } });
    const [m1, m2] = list.markets as Market[];
    const token = (m: Market, side: string) => m.outcomeTokens.find((o) => o.outcome === side)!.tokenId;
    await act({ verb: 'post', path: '/api/forecasts', body: { marketId: m1!.id, probability: 0.62 } });
    await act({
      verb: 'post',
      path: '/api/trade',
      body: { marketId: m2!.id, marketSlug: m2!.slug, tokenId: token(m2!, 'YES'), outcome: 'YES', amount: 40, forecast: 0.7 },
    });
    await act({ verb: 'post', path: '/api/replays/:runId/advance', body: { to: 'next_news' } });
    await act({ verb: 'post', path: '/api/trade', body: { marketId: m1!.id, marketSlug: m1!.slug, tokenId: token(m1!, 'NO'), outcome: 'NO', amount: 25 } });
    await act({ verb: 'post', path: '/api/replays/:runId/advance', body: { by: 3600 } });
    await act({ verb: 'post', path: '/api/replays/:runId/end' });
    return log;
  };

  test('when a recorded call log is replayed twice on the same scenario, then the three frozen records, fills and events are byte-identical', async () => {
    const original = await start(SCENARIO);
    const log = await record(original);
    expect(log.map((c) => c.path)).toEqual([
      '/api/forecasts',
      '/api/trade',
      '/api/replays/:runId/advance',
      '/api/trade',
      '/api/replays/:runId/advance',
      '/api/replays/:runId/end',
    ]);
    const expected = await frozen(original);
    expect(JSON.parse(expected).whole).toMatchObject({ season: 'all', forecasts: { forecasts: 2 } });
    const fills = await fillsAndEvents(original);
    expect(JSON.parse(fills).trades.length).toBeGreaterThanOrEqual(2);
    for (let i = 0; i < 2; i++) {
      const again = await start(SCENARIO);
      for (const call of log) await send(again, call);
      expect(await frozen(again)).toBe(expected);
      expect(await fillsAndEvents(again)).toBe(fills);
    }
  });

  test('when ten runs go at once, then each sees only its own account and trades, and runs of one scenario give one record', async () => {
    // Five scenarios, two runs of each; run i buys 10 + i dollars (the pair of a scenario buys the same amounts).
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => start({ seed: 100 + (i % 5), days: 1, bankroll: 500 })));
    expect(new Set(runs.map((r) => r.runId)).size).toBe(10);
    await Promise.all(
      runs.map(async (run, i) => {
        const list = await send(run, { verb: 'get', path: '/api/markets', query: { sort: 'ending', limit: 1 } });
        const m = (list.markets as Market[])[0]!;
        const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!;
        await send(run, {
          verb: 'post',
          path: '/api/trade',
          body: { marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 10 + (i % 5), forecast: 0.6 },
        });
      }),
    );
    for (const [i, run] of runs.entries()) {
      const positions = (await t.api.get('/api/positions').set(bearer(run.apiKey))).body.positions as Array<{ totalCost: number }>;
      expect(positions).toHaveLength(1);
      const balance = (await t.api.get('/api/user/balance').set(bearer(run.apiKey))).body.balance as number;
      expect(balance).toBeCloseTo(500 - (10 + (i % 5)), 6);
      const trades = (await t.api.get('/api/trades').set(bearer(run.apiKey))).body.trades as unknown[];
      expect(trades).toHaveLength(1);
    }
    await Promise.all(runs.map((run) => send(run, { verb: 'post', path: '/api/replays/:runId/end' })));
    const records = await Promise.all(runs.map(frozen));
    for (let i = 0; i < 5; i++) expect(records[i + 5]).toBe(records[i]);
    // Different scenarios differ (their markets and outcomes are their own).
    expect(new Set(records).size).toBe(5);
    // The live account saw none of it.
    expect((await t.api.get('/api/positions').set(bearer(live.apiKey))).body.positions).toHaveLength(0);
  });
});
