import { backends } from '../support/backends';
import { bearer, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { mcpCall } from '../support/rpc';
import { listMarkets, startReplayHost, startRun } from '../support/replay-runs';
import { SseClient } from '../support/sse-client';
import type { MarketView } from '../../src/market-data/market-view';

type Event = { seq: number; type: string; data: Record<string, unknown>; createdAt: string };

// Each run builds a migrated database of its own and syncs its venue once per simulated day.
jest.setTimeout(180_000);

/** stream_events with a replay run's key (issue 52 item 5): the run's own account events, on the run's clock. */
describe.each(backends())('a replay run’s event stream on $name', (backend) => {
  let t: TestApp;
  let live: { id: string; apiKey: string };
  const clock = new ManualClock();
  const open: SseClient[] = [];

  beforeAll(async () => {
    ({ t, live } = await startReplayHost(backend, 'Streamer', { clock, config: { SIM_SPEED: 60, EVENT_STREAM_HEARTBEAT_MS: 300 } }));
  });
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(async () => t.close());

  const connect = async (key: string) => {
    const c = await SseClient.open(`${t.baseUrl}/api/events`, bearer(key));
    expect(c.status).toBe(200);
    open.push(c);
    return c;
  };
  const received = (c: SseClient) => c.events.map((e) => e.data as Event);
  const buy = async (key: string, m: MarketView, amount: number) => {
    const yes = m.outcomeTokens.find((o) => o.outcome === 'YES')!;
    const res = await t.api.post('/api/trade').set(bearer(key)).send({ marketId: m.id, marketSlug: m.slug, tokenId: yes.tokenId, outcome: 'YES', amount });
    expect(res.status).toBe(200);
  };

  test('when an agent trades, places and cancels an order and steps its run, then the run key’s stream receives each event in order, stamped with the run’s clock and never after it, and the owner’s live stream receives none', async () => {
    const liveStream = await connect(live.apiKey);
    const run = await startRun(t, live.apiKey, { seed: 7, days: 2 });
    const stream = await connect(run.apiKey);

    // A market of the run that ends inside the window, so stepping to the end settles the position.
    const ending = (await listMarkets(t, run.apiKey, { sort: 'ending' })).filter((m) => m.endDate !== null && m.endDate <= run.endAt);
    expect(ending.length).toBeGreaterThan(0);
    const m = ending[0]!;
    await buy(run.apiKey, m, 100);
    await stream.until((c) => c.messages.length >= 2, 8000, 'the trade and its balance');
    const [trade, balance] = received(stream);
    expect(trade).toMatchObject({ type: 'trade', data: { marketId: m.id, side: 'BUY', cash: 100 }, createdAt: run.clock });
    expect(balance).toMatchObject({ seq: trade!.seq + 1, type: 'balance', createdAt: run.clock });

    // An order's life: accepted (resting far below the market), then cancelled.
    const no = m.outcomeTokens.find((o) => o.outcome === 'NO')!;
    const placed = await t.api.post('/api/orders').set(bearer(run.apiKey)).send({ tokenId: no.tokenId, side: 'BUY', limitPrice: 0.01, amount: 5 });
    expect(placed.status).toBe(200);
    const id = placed.body.order.id as string;
    expect((await t.api.post(`/api/orders/${id}/cancel`).set(bearer(run.apiKey))).status).toBe(200);
    await stream.until((c) => received(c).some((e) => e.type === 'order.cancelled'), 8000, 'the order cancelled');
    for (const type of ['order.accepted', 'order.cancelled']) {
      expect(received(stream).find((e) => e.type === type)).toMatchObject({ data: { id }, createdAt: run.clock });
    }

    // Stepping the clock: what the run's syncs do to the account (the settlement) arrives, stamped on the run's clock.
    const beforeStep = received(stream).length;
    const stepped = await t.api.post(`/api/replays/${run.runId}/advance`).set(bearer(run.apiKey)).send({ to: 'end' });
    expect(stepped.status).toBe(200);
    expect(stepped.body.clock).toBe(run.endAt);
    await stream.until((c) => received(c).some((e) => e.type === 'settlement'), 8000, 'the settlement');
    const settlement = received(stream).find((e) => e.type === 'settlement')!;
    expect(settlement.data).toMatchObject({ marketId: m.id });
    for (const e of received(stream).slice(beforeStep)) {
      expect(Date.parse(e.createdAt)).toBeGreaterThan(Date.parse(run.clock));
      expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(Date.parse(stepped.body.clock as string));
    }

    // In order, none missed: exactly the run account's log, as list_events reads it with the run's key (over MCP).
    const log = (await mcpCall(t, 'list_events', { cursor: String(trade!.seq - 1), limit: 200 }, bearer(run.apiKey))).result.structuredContent
      .events as Event[];
    await stream.until((c) => c.messages.length >= log.length, 8000, 'the whole log');
    expect(received(stream)).toEqual(log);
    expect(stream.messages.map((x) => [x.id, x.event])).toEqual(log.map((e) => [String(e.seq), e.type]));

    // The owner's live stream got none of it: its first event is the live account's own next trade.
    await buy(live.apiKey, (await listMarkets(t, live.apiKey))[0]!, 10);
    await liveStream.until((c) => c.messages.length >= 1, 8000, 'the live trade');
    expect(received(liveStream)[0]).toMatchObject({ type: 'trade', data: { cash: 10 } });
    expect(Date.parse(received(liveStream)[0]!.createdAt)).toBe(clock.now().getTime());
    expect(received(liveStream).map((e) => e.data.marketId)).not.toContain(m.id);
  });

  test('when two runs of one scenario (one account id) trade, then each run key’s stream receives only its own run’s events', async () => {
    const a = await startRun(t, live.apiKey, { seed: 11, days: 1 });
    const b = await startRun(t, live.apiKey, { seed: 11, days: 1 });
    const streamA = await connect(a.apiKey);
    const streamB = await connect(b.apiKey);
    const m = (await listMarkets(t, a.apiKey))[0]!;
    await buy(b.apiKey, m, 7);
    await buy(a.apiKey, m, 13);
    await streamA.until((c) => c.messages.length >= 2, 8000, 'run a’s trade');
    await streamB.until((c) => c.messages.length >= 2, 8000, 'run b’s trade');
    expect(
      received(streamA)
        .filter((e) => e.type === 'trade')
        .map((e) => e.data.cash),
    ).toEqual([13]);
    expect(
      received(streamB)
        .filter((e) => e.type === 'trade')
        .map((e) => e.data.cash),
    ).toEqual([7]);
  });
});
