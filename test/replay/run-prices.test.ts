import { backends } from '../support/backends';
import { bearer, type TestApp } from '../support/app';
import { DAY, HOUR, ManualClock } from '../support/identity';
import { listMarkets, startReplayHost, startRun, type StartedRun } from '../support/replay-runs';
import { SseClient } from '../support/sse-client';

type Tick = { tokenId: string; marketId: string; price: number; bid: number | null; ask: number | null; at: string };

// Each run builds a migrated database of its own and syncs its venue once per simulated day.
jest.setTimeout(180_000);

/** stream_prices with a replay run's key (issue 52 item 5): the run's venue prices, pushed as the run's clock moves. */
describe.each(backends())('a replay run’s price stream on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };
  const clock = new ManualClock();
  const open: SseClient[] = [];

  beforeAll(async () => {
    ({ t, live } = await startReplayHost(backend, 'Price streamer', { clock, config: { SIM_SPEED: 60, EVENT_STREAM_HEARTBEAT_MS: 300 } }));
  });
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(async () => t.close());

  const connect = async (query: string, key: string) => {
    const c = await SseClient.open(`${t.baseUrl}/api/markets/stream${query}`, bearer(key));
    open.push(c);
    return c;
  };
  const ticks = (c: SseClient) => c.events.map((e) => e.data as Tick);
  const advance = async (run: StartedRun, body: Record<string, unknown>): Promise<number> => {
    const res = await t.api.post(`/api/replays/${run.runId}/advance`).set(bearer(run.apiKey)).send(body);
    expect(res.status).toBe(200);
    return Date.parse(res.body.clock as string);
  };
  /** No tick of the stream is stamped after the run's clock. */
  const noneAfter = (c: SseClient, clockMs: number) => {
    for (const x of ticks(c)) expect(Date.parse(x.at)).toBeLessThanOrEqual(clockMs);
  };

  test('when a stepped run’s clock moves, then the run key’s price stream pushes each market’s price at each sync on the way, stamped with the run’s clock and never after it, the price the run then shows; the live service hears none of it', async () => {
    const run = await startRun(t, live.apiKey, { seed: 7, days: 3 });
    const startMs = Date.parse(run.clock);
    // Markets that stay open through the window, so every step has a price of each to push.
    const chosen = (await listMarkets(t, run.apiKey)).filter((m) => m.endDate !== null && Date.parse(m.endDate) > Date.parse(run.endAt)).slice(0, 6);
    expect(chosen.length).toBeGreaterThan(2);
    const stream = await connect(`?markets=${chosen.map((m) => m.id).join(',')}`, run.apiKey);
    expect(stream.status).toBe(200);
    const tokens = chosen.length * 2;
    await stream.until((c) => c.messages.length >= tokens, 8000, 'the first prices');
    for (const x of ticks(stream)) expect(Date.parse(x.at)).toBe(startMs);
    // The live service's broadcast, asked for the run's very tokens, must hear nothing of the run's syncs.
    const heardLive: unknown[] = [];
    const unsubscribe = t.services.priceBroadcast.subscribe(
      ticks(stream).map((x) => x.tokenId),
      (x) => heardLive.push(x),
      () => {},
    );

    // An hour on: one sync, at the new clock.
    const c1 = await advance(run, { by: 3600 });
    expect(c1).toBe(startMs + HOUR);
    await stream.until((c) => ticks(c).some((x) => Date.parse(x.at) === c1), 8000, 'prices of the hour’s sync');
    noneAfter(stream, c1);

    // Two days on: a sync each day on the way, each pushed at its own time.
    const c2 = await advance(run, { by: 2 * 86_400 });
    expect(c2).toBe(c1 + 2 * DAY);
    await stream.until((c) => ticks(c).some((x) => Date.parse(x.at) === c2), 8000, 'prices of the last day’s sync');
    // The coalescer sends the last price of a burst at its window's end: let it land.
    await new Promise((r) => setTimeout(r, 600));
    noneAfter(stream, c2);
    const stamps = new Set(ticks(stream).map((x) => Date.parse(x.at)));
    expect([...stamps].sort((a, b) => a - b)).toEqual([startMs, c1, c1 + DAY, c2]);
    // The last price pushed of each YES token is the price the run shows at its clock.
    const shown = new Map((await listMarkets(t, run.apiKey)).map((m) => [m.id, m]));
    for (const m of chosen) {
      const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!.tokenId;
      const last = ticks(stream)
        .filter((x) => x.tokenId === yes)
        .at(-1)!;
      expect(last.marketId).toBe(m.id);
      expect(last.price).toBe(shown.get(m.id)!.yesPrice);
    }
    unsubscribe();
    expect(heardLive).toEqual([]);
  });

  test('when a run at a speed is streamed and no call is made with its key, then its prices still move with its clock, never after it', async () => {
    // 3,600 simulated seconds a wall second: a sync interval of the run passes every wall second.
    const run = await startRun(t, live.apiKey, { seed: 9, days: 1, mode: { speed: 3600 } });
    const startMs = Date.parse(run.startAt);
    const chosen = (await listMarkets(t, run.apiKey)).filter((m) => m.endDate !== null && Date.parse(m.endDate) > Date.parse(run.endAt)).slice(0, 4);
    expect(chosen.length).toBeGreaterThan(1);
    const stream = await connect(`?markets=${chosen.map((m) => m.id).join(',')}`, run.apiKey);
    expect(stream.status).toBe(200);
    await stream.until((c) => c.messages.length >= chosen.length * 2, 8000, 'the first prices');
    // Two wall seconds pass (the service's clock): the run's is two hours on, and the stream alone makes it sync.
    clock.advance(2000);
    await stream.until((c) => ticks(c).some((x) => Date.parse(x.at) > startMs + HOUR), 15_000, 'a price of a later sync');
    // The run's clock, read with the live key (which moves nothing), is at or past every price pushed.
    const now = Date.parse((await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey))).body.clock as string);
    noneAfter(stream, now);
    const deleted = await t.api.delete(`/api/replays/${run.runId}`).set(bearer(live.apiKey));
    expect(deleted.status).toBe(200);
  });
});
