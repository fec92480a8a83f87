import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { mcpCall, rpcCall } from '../support/rpc';

type Market = { id: string; slug: string; endDate: string | null; outcomeTokens: Array<{ outcome: string; tokenId: string }>; yesPrice: number };
type Run = { runId: string; apiKey: string; state: string; clock: string; startAt: string; endAt: string; record: Record<string, unknown> | null };

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

// Each run builds a migrated database of its own (on PostgreSQL a schema and every migration) and syncs its venue, some
// 300 markets, once per simulated day.
jest.setTimeout(180_000);

describe.each(backends())('replay runs on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false, config: { SIM_SPEED: 60 } });
    await t.services.marketSync.runOnce();
    live = await registerAgent(t, 'Replayer');
  });
  afterAll(async () => t.close());

  const start = async (body: Record<string, unknown>, key = live.apiKey): Promise<Run> => {
    const res = await t.api.post('/api/replays').set(bearer(key)).send(body);
    expect(res.status).toBe(201);
    return res.body as Run;
  };

  /** The calls of one agent in a stepped run: a forecast and a buy on the market ending soonest, a step to news, the end. */
  const playScript = async (run: Run): Promise<{ summary: Run['record']; whole: unknown }> => {
    const key = bearer(run.apiKey);
    const list = await t.api.get('/api/markets').query({ sort: 'ending', limit: 5 }).set(key);
    expect(list.status).toBe(200);
    const market = (list.body.markets as Market[])[0]!;
    const odds = await t.api.get(`/api/markets/${market.id}`).set(key);
    expect(odds.status).toBe(200);
    const yes = market.outcomeTokens.find((o) => o.outcome === 'YES')!;
    const buy = await t.api
      .post('/api/trade')
      .set(key)
      .send({ marketId: market.id, marketSlug: market.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 100, forecast: 0.7 });
    expect(buy.status).toBe(200);
    const step = await t.api.post(`/api/replays/${run.runId}/advance`).set(key).send({ to: 'next_news' });
    expect(step.status).toBe(200);
    const ended = await t.api.post(`/api/replays/${run.runId}/end`).set(bearer(live.apiKey));
    expect(ended.status).toBe(200);
    const frozen = (await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey))).body as Run;
    // The whole record, as the run's key reads it from the run's own books.
    const whole = await t.api.get('/api/benchmark/record').query({ season: 'all' }).set(key);
    expect(whole.status).toBe(200);
    return { summary: frozen.record, whole: whole.body as unknown };
  };

  test('when an agent plays a stepped run over REST, then it sees the run’s clock, news and markets, trades, steps to news and ends with a replay record', async () => {
    const run = await start({ seed: 7, days: 1 });
    expect(run).toMatchObject({ state: 'running', mode: 'step', clock: run.startAt });
    expect(run.apiKey).toMatch(/^rpl_[0-9a-f]{12}_[0-9a-f]{32}$/);
    const key = bearer(run.apiKey);

    const search = await t.api.get('/api/markets').query({ limit: 3 }).set(key);
    expect(search.status).toBe(200);
    expect(search.body.markets.length).toBe(3);
    const news = await t.api.get('/api/news').query({ limit: 3 }).set(key);
    expect(news.status).toBe(200);
    for (const item of news.body.news as Array<{ publishedAt: string }>) expect(Date.parse(item.publishedAt)).toBeLessThanOrEqual(Date.parse(run.clock));

    const market = (search.body.markets as Market[])[0]!;
    const yes = market.outcomeTokens.find((o) => o.outcome === 'YES')!;
    const buy = await t.api
      .post('/api/trade')
      .set(key)
      .send({ marketId: market.id, marketSlug: market.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 50 });
    expect(buy.status).toBe(200);
    const positions = await t.api.get('/api/positions').set(key);
    expect(positions.body.positions).toHaveLength(1);
    // The live account is untouched: its books are in the live database.
    expect((await t.api.get('/api/positions').set(bearer(live.apiKey))).body.positions).toHaveLength(0);

    const next = await t.api.post(`/api/replays/${run.runId}/advance`).set(key).send({ to: 'next_news' });
    expect(next.status).toBe(200);
    expect(Date.parse(next.body.clock)).toBeGreaterThan(Date.parse(run.clock));
    const latest = await t.api.get('/api/news').query({ limit: 1 }).set(key);
    expect(latest.body.news[0].publishedAt).toBe(next.body.clock);

    const byHour = await t.api.post(`/api/replays/${run.runId}/advance`).set(bearer(live.apiKey)).send({ by: 3600 });
    expect(Date.parse(byHour.body.clock) - Date.parse(next.body.clock)).toBe(3_600_000);

    const ended = await t.api.post(`/api/replays/${run.runId}/end`).set(key);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ state: 'ended', clock: run.endAt });
    expect(ended.body).not.toHaveProperty('record');
    const read = await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey));
    expect(read.body).toMatchObject({ state: 'ended', clock: run.endAt, record: { venue: 'replay', season: 'all', resolvedMarkets: expect.any(Number) } });
    // The run's own key reads it too.
    expect((await t.api.get(`/api/replays/${run.runId}`).set(key)).body.record).toEqual(read.body.record);
  });

  test('when a run key calls, then it cannot see a live market, start a run or reach another run; a live key cannot touch another’s run', async () => {
    const liveMarket = (await t.api.get('/api/markets').query({ limit: 1 })).body.markets[0] as Market;
    const a = await start({ seed: 11, days: 1 });
    const b = await start({ seed: 11, days: 1 });
    expect((await t.api.get(`/api/markets/${liveMarket.id}`).set(bearer(a.apiKey))).status).toBe(404);
    const refused = await t.api.post('/api/replays').set(bearer(a.apiKey)).send({ seed: 1, days: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect((await t.api.get(`/api/replays/${b.runId}`).set(bearer(a.apiKey))).body.code).toBe('NOT_FOUND');
    const other = await registerAgent(t, 'Other');
    const advance = await t.api.post(`/api/replays/${a.runId}/advance`).set(bearer(other.apiKey)).send({ by: 60 });
    expect(advance.status).toBe(404);
    expect(advance.body.code).toBe('NOT_FOUND');

    // Two runs of one scenario at once stay apart: a buy in one is not in the other.
    const m = (await t.api.get('/api/markets').query({ limit: 1 }).set(bearer(a.apiKey))).body.markets[0] as Market;
    const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!;
    expect(
      (await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 10 }))
        .status,
    ).toBe(200);
    expect((await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions).toHaveLength(1);
    expect((await t.api.get('/api/positions').set(bearer(b.apiKey))).body.positions).toHaveLength(0);

    expect((await t.api.post(`/api/replays/${a.runId}/end`).set(bearer(live.apiKey))).status).toBe(200);
    const again = await t.api.post(`/api/replays/${a.runId}/end`).set(bearer(live.apiKey));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('REPLAY_ENDED');
    // An ended run only reads.
    const late = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 10 });
    expect(late.body.code).toBe('REPLAY_ENDED');
    expect((await t.api.get('/api/positions').set(bearer(a.apiKey))).status).toBe(200);
  });

  test('when a run key calls over JSON-RPC and MCP, then it reaches the run’s account as over REST', async () => {
    const run = await start({ seed: 9, days: 1, bankroll: 250 });
    const rpc = await rpcCall(t, 'get_balance', {}, bearer(run.apiKey));
    expect(rpc.result.balance).toBe(250);
    const tool = await mcpCall(t, 'get_balance', {}, bearer(run.apiKey));
    expect(tool.result.structuredContent.balance).toBe(250);
    const list = await t.api
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set(bearer(run.apiKey))
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(list.status).toBe(200);
  });

  test('when a person lists their replay runs (list_replays) over REST, JSON-RPC and MCP, then they see their own runs newest first with each state, no key, and a run key sees its run only', async () => {
    const owner = await registerAgent(t, 'Lister');
    const stranger = await registerAgent(t, 'Stranger');
    const empty = await t.api.get('/api/replays').set(bearer(owner.apiKey));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ runs: [] });
    const older = await start({ seed: 21, days: 1 }, owner.apiKey);
    clock.advance(1_000);
    const newer = await start({ scenario: 'suite-v3/01' }, owner.apiKey);
    expect((await t.api.post(`/api/replays/${older.runId}/end`).set(bearer(owner.apiKey))).status).toBe(200);

    const listed = await t.api.get('/api/replays').set(bearer(owner.apiKey));
    expect(listed.status).toBe(200);
    const runs = listed.body.runs as Array<Record<string, unknown>>;
    expect(runs.map((r) => [r.runId, r.state])).toEqual([
      [newer.runId, 'running'],
      [older.runId, 'ended'],
    ]);
    // As get_replay describes each run, less the record; never a key.
    const read = (await t.api.get(`/api/replays/${newer.runId}`).set(bearer(owner.apiKey))).body as Record<string, unknown>;
    const { record: _record, ...described } = read;
    expect(runs[0]).toEqual(described);
    expect(JSON.stringify(listed.body)).not.toContain(newer.apiKey);
    expect(JSON.stringify(listed.body)).not.toContain('apiKey');

    const rpc = await rpcCall(t, 'list_replays', {}, bearer(owner.apiKey));
    expect(rpc.result).toEqual(listed.body);
    const tool = await mcpCall(t, 'list_replays', {}, bearer(owner.apiKey));
    expect(tool.result.structuredContent).toEqual(listed.body);

    // Another person's list has none of them; the run's own key lists that run alone.
    expect((await t.api.get('/api/replays').set(bearer(stranger.apiKey))).body).toEqual({ runs: [] });
    const own = await t.api.get('/api/replays').set(bearer(newer.apiKey));
    expect((own.body.runs as Array<{ runId: string }>).map((r) => r.runId)).toEqual([newer.runId]);
    // Unsigned: the usual 401.
    expect((await t.api.get('/api/replays')).status).toBe(401);
  });

  test('when advance is given both or neither of by and to, or a run at a speed, then 400 and the clock stays; a speed run’s clock follows the wall clock', async () => {
    const run = await start({ seed: 3, days: 1 });
    for (const body of [{}, { by: 60, to: 'next_news' }]) {
      const res = await t.api.post(`/api/replays/${run.runId}/advance`).set(bearer(live.apiKey)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey))).body.clock).toBe(run.startAt);

    const fast = await start({ seed: 3, days: 1, mode: { speed: 3600 } });
    expect(fast).toMatchObject({ mode: 'speed', speed: 3600 });
    const refused = await t.api.post(`/api/replays/${fast.runId}/advance`).set(bearer(fast.apiKey)).send({ by: 60 });
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    // Ten wall seconds at 3600× are ten simulated hours.
    clock.advance(10_000);
    const read = await t.api.get(`/api/replays/${fast.runId}`).set(bearer(fast.apiKey));
    expect(Date.parse(read.body.clock) - Date.parse(fast.startAt)).toBe(36_000_000);
  });

  test('when the same scenario is played with the same calls twice, then the frozen records are identical', async () => {
    // One simulated day: the market ending soonest resolves in it, and every day more is a sync more for each run.
    const first = await playScript(await start({ seed: 5, days: 1 }));
    const second = await playScript(await start({ seed: 5, days: 1 }));
    expect(first.summary).toMatchObject({ venue: 'replay', resolvedMarkets: expect.any(Number) });
    expect(first.whole).toMatchObject({ season: 'all', forecasts: { forecasts: 1 } });
    expect(JSON.stringify(second.summary)).toBe(JSON.stringify(first.summary));
    expect(JSON.stringify(second.whole)).toBe(JSON.stringify(first.whole));
  });
});
