import { backends, describeOnPostgres } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { accessToken, signedInPerson } from '../support/identity';
import { SseClient } from '../support/sse-client';
import { checkResponse } from '../support/openapi-check';
import { appendEvent } from '../../src/domain/events/account-events';
import { CATCH_UP_MS } from '../../src/domain/events/event-feed';

/** GET /api/events: an account's events as Server-Sent Events over the real HTTP server. */
describe.each(backends())('account event stream (SSE) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;
  const open: SseClient[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, {
      listen: true,
      prices,
      background: false,
      config: { EVENT_STREAM_HEARTBEAT_MS: 300, EVENT_STREAMS_PER_ACCOUNT: 2 },
    });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.4, 0.5);
  });
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(() => t.close());

  const connect = async (headers: Record<string, string>, query = '') => {
    const c = await SseClient.open(`${t.baseUrl}/api/events${query}`, headers);
    open.push(c);
    return c;
  };
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const buy = (key: string, amount = 10) =>
    t.api.post('/api/trade').set(bearer(key)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount });
  const seqs = (c: SseClient) => c.messages.map((x) => Number(x.id));

  test('when an account trades, then its stream receives the trade and then the balance, with seq ids and JSON data', async () => {
    const a = await registerAgent(t);
    const c = await connect(bearer(a.apiKey));
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toMatch(/^text\/event-stream/);
    await checkResponse(t.app, 'GET', '/api/events', { status: c.status, headers: c.headers as Record<string, string>, body: undefined, text: 'x' });
    expect((await buy(a.apiKey, 100)).status).toBe(200);
    await c.until((x) => x.messages.length >= 3, 8000, 'trade, balance and the First Trade badge');
    expect(c.messages.map((x) => [x.id, x.event])).toEqual([
      ['2', 'trade'],
      ['3', 'balance'],
      ['4', 'notification'],
    ]);
    const [trade, balance] = c.events;
    expect(trade!.data).toMatchObject({ seq: 2, type: 'trade', data: { marketId: m.id, tokenId: m.yes, side: 'BUY', shares: 200, price: 0.5, cash: 100 } });
    expect(balance!.data).toMatchObject({ seq: 3, type: 'balance', data: { balance: 900, reserved: 0, available: 900 } });
  });

  test('when a client reconnects with Last-Event-ID, then it gets every event after it, none missed and none twice', async () => {
    const a = await registerAgent(t);
    const logSeqs = async (after: number) => (await t.services.events.after(a.id, BigInt(after), 1000)).map((e) => Number(e.seq));
    const first = await connect(bearer(a.apiKey));
    await buy(a.apiKey);
    await first.until((x) => x.messages.length >= 2);
    const lastSeen = first.messages[1]!.id!; // the first trade's balance; what followed it comes again
    first.close();
    // While disconnected: two more trades.
    await buy(a.apiKey);
    await buy(a.apiKey);
    const again = await connect({ ...bearer(a.apiKey), 'Last-Event-ID': lastSeen });
    const missed = await logSeqs(Number(lastSeen));
    expect(missed.length).toBeGreaterThanOrEqual(4);
    await again.until((x) => x.messages.length >= missed.length);
    await buy(a.apiKey); // and one live after the catch-up
    const expected = await logSeqs(Number(lastSeen));
    await again.until((x) => x.messages.length >= expected.length);
    // Exactly the log after Last-Event-ID: consecutive seqs, none missed, none twice.
    expect(seqs(again)).toEqual(expected);
    expect(expected).toEqual(expected.map((_, i) => Number(lastSeen) + 1 + i));
    expect(again.messages.filter((x) => x.event === 'trade')).toHaveLength(3);
    // ?lastEventId=0 replays the whole log from its first event, in order and without a gap.
    const all = await connect(bearer(a.apiKey), '?lastEventId=0');
    const everything = await logSeqs(0);
    await all.until((x) => x.messages.length >= everything.length);
    await new Promise((r) => setTimeout(r, 300));
    expect(seqs(all)).toEqual(everything);
    expect(everything).toEqual(everything.map((_, i) => i + 1));
  });

  test('when an event commits and its announcement is never sent (its process died between the two), then the stream still receives it within CATCH_UP_MS', async () => {
    const a = await registerAgent(t);
    const c = await connect(bearer(a.apiKey));
    // A heartbeat first: the stream's own first read of the log is over, so the event can reach it only by a wake.
    await c.until((x) => x.comments.length >= 1, 8000, 'a heartbeat');
    // Appended as appendEvent does in any transaction, but the announcement is dropped: only the feed's catch-up can wake the stream.
    const started = Date.now();
    await t.services.db.transaction(async (tx) =>
      appendEvent(
        { query: tx.query, notify: () => {} },
        a.id,
        'notification',
        { id: 'unannounced', kind: 'probe', title: 't', message: 'm', ref: null },
        new Date(),
      ),
    );
    await c.until((x) => x.messages.some((m) => m.event === 'notification'), CATCH_UP_MS + 4000, 'the unannounced event');
    expect(Date.now() - started).toBeLessThan(CATCH_UP_MS + 4000);
    expect(c.events.find((e) => e.data && (e.data as { type?: string }).type === 'notification')!.data).toMatchObject({ data: { id: 'unannounced' } });
  });

  test('when types are given, then only events of those types are sent', async () => {
    const a = await registerAgent(t);
    const c = await connect(bearer(a.apiKey), '?types=balance&lastEventId=0');
    await buy(a.apiKey);
    await c.until((x) => x.messages.length >= 2);
    expect(c.messages.map((x) => [x.id, x.event])).toEqual([
      ['1', 'balance'],
      ['3', 'balance'],
    ]);
  });

  test('when the caller uses an OAuth access token or a browser session, then the stream is theirs', async () => {
    const a = await registerAgent(t);
    const token = await accessToken(t, a);
    const byToken = await connect(bearer(token), '?lastEventId=0');
    expect(byToken.status).toBe(200);
    await byToken.until((x) => x.messages.length >= 1);
    expect(byToken.events[0]!.data).toMatchObject({ seq: 1, type: 'balance' });
    const p = await signedInPerson(t);
    const bySession = await connect({ Cookie: p.cookie }, '?lastEventId=0');
    expect(bySession.status).toBe(200);
    await bySession.until((x) => x.messages.length >= 1);
    expect(bySession.events[0]!.data).toMatchObject({ seq: 1, type: 'balance', data: { balance: 1000 } });
  });

  test('when no or a bad credential is sent, then the answer is a 401 JSON error, not a stream', async () => {
    const none = await t.api.get('/api/events');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=/);
    const bad = await t.api.get('/api/events').set('Authorization', 'Bearer svc_00000000000000000000000000000000');
    expect(bad.status).toBe(401);
    const badSeq = await t.api.get('/api/events?lastEventId=abc').set(bearer((await registerAgent(t)).apiKey));
    expect(badSeq.status).toBe(400);
    expect(badSeq.body.code).toBe('VALIDATION_ERROR');
  });

  test('when a stream is idle, then heartbeat comments keep arriving', async () => {
    const a = await registerAgent(t);
    const c = await connect(bearer(a.apiKey));
    await c.until((x) => x.comments.filter((s) => s === 'ping').length >= 2, 5000, 'two heartbeats');
    expect(c.messages).toEqual([]);
  });

  test('when an account holds its most streams, then one more is refused with 429 JSON until one closes', async () => {
    const a = await registerAgent(t);
    const one = await connect(bearer(a.apiKey));
    await connect(bearer(a.apiKey));
    const third = await t.api.get('/api/events').set(bearer(a.apiKey));
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(third.body.error).toMatch(/2 stream_events streams are already open/);
    // Another account is not affected.
    const b = await registerAgent(t);
    expect((await connect(bearer(b.apiKey))).status).toBe(200);
    one.close();
    // The slot comes back once the server has seen the close.
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      const c = await SseClient.open(`${t.baseUrl}/api/events`, bearer(a.apiKey));
      open.push(c);
      status = c.status;
    }
    expect(status).toBe(200);
  });
});

describeOnPostgres('account event stream across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    one = await startTestApp(backend, { prices, background: false });
    two = await startTestApp({ name: 'postgres', open: async () => ({ db: one.services.db, drop: async () => {} }) }, { listen: true, background: false });
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  test('when a trade commits in one service, then a client streaming from another service on the same database receives it', async () => {
    const m = await seedMarket(one.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const a = await registerAgent(one);
    const c = await SseClient.open(`${two.baseUrl}/api/events`, { Authorization: `Bearer ${a.apiKey}` });
    try {
      expect(c.status).toBe(200);
      const res = await one.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${a.apiKey}`)
        .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 });
      expect(res.status).toBe(200);
      await c.until((x) => x.messages.length >= 2);
      expect(c.messages.slice(0, 2).map((x) => [x.id, x.event])).toEqual([
        ['2', 'trade'],
        ['3', 'balance'],
      ]);
    } finally {
      c.close();
    }
  });
});
