import { backends, describeOnPostgres, type Backend } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, HOUR } from '../support/identity';
import { SseClient } from '../support/sse-client';
import { checkResponse } from '../support/openapi-check';
import { parsePricePayload, pricePayloads, type PriceTick } from '../../src/market-data/price-broadcast';
import { PRICE_TICK_INTERVAL_MS } from '../../src/market-data/price-coalescer';
import { openDatabase, type Queryable } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { fromMicro } from '../../src/domain/money/micro';
import type { LivePrice } from '../../src/domain/trading/price-service';

/** Active markets' YES tokens, those ending last first (the tests move the clock by hours). */
const lastingTokens = (db: Queryable, n: number) =>
  db.query<{ token_id: string; market_id: string }>(
    `SELECT t.token_id, t.market_id FROM market_tokens t JOIN markets m ON m.id = t.market_id
     WHERE m.status = 'active' AND t.outcome = 'YES' ORDER BY m.end_date DESC NULLS LAST, m.id LIMIT $1`,
    [n],
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /api/markets/stream: prices pushed from the market sync (simulated feed), public. */
describe.each(backends())('price stream (SSE) on $name', (backend) => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  const open: SseClient[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true, clock, background: false });
    await t.services.marketSync.runOnce({ force: true });
  });
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(() => t.close());

  const connect = async (query: string) => {
    const c = await SseClient.open(`${t.baseUrl}/api/markets/stream${query}`);
    open.push(c);
    return c;
  };
  const activeTokens = async (n: number) =>
    t.services.db.query<{ token_id: string; market_id: string; slug: string }>(
      `SELECT t.token_id, t.market_id, m.slug FROM market_tokens t JOIN markets m ON m.id = t.market_id
       WHERE m.status = 'active' AND t.outcome = 'YES' ORDER BY m.volume DESC NULLS LAST LIMIT $1`,
      [n],
    );

  test('when a client names tokens, then it gets their current prices, then each change a later sync stores', async () => {
    const tokens = await activeTokens(3);
    const c = await connect(`?tokens=${tokens.map((x) => x.token_id).join(',')}`);
    expect(c.status).toBe(200);
    await checkResponse(t.app, 'GET', '/api/markets/stream', { status: c.status, headers: c.headers as Record<string, string>, body: undefined, text: 'x' });
    await c.until((x) => x.messages.length >= 3, 8000, 'the current prices');
    const initial = c.events;
    expect(initial.map((e) => e.event)).toEqual(['price', 'price', 'price']);
    expect(new Set(initial.map((e) => e.data.tokenId))).toEqual(new Set(tokens.map((x) => x.token_id)));
    for (const e of initial) {
      expect(e.id).toBeUndefined();
      expect(e.data).toEqual({
        tokenId: expect.any(String),
        marketId: expect.any(String),
        price: expect.any(Number),
        bid: expect.any(Number),
        ask: expect.any(Number),
        at: expect.any(String),
      });
    }
    // The simulated venue moves with the clock: hours later the next sync stores new prices and announces them.
    clock.advance(6 * HOUR);
    await t.services.marketSync.runOnce({ force: true });
    await c.until((x) => x.messages.length >= 4, 8000, 'a price change');
    const changed = c.events.slice(3);
    for (const e of changed) {
      expect(tokens.map((x) => x.token_id)).toContain(e.data.tokenId);
      const before = initial.find((i) => i.data.tokenId === e.data.tokenId)!;
      expect([e.data.price, e.data.bid, e.data.ask]).not.toEqual([before.data.price, before.data.bid, before.data.ask]);
      expect(Date.parse(String(e.data.at))).toBeGreaterThan(Date.parse(String(before.data.at)));
    }
  });

  test('when a client names a market by slug, then it streams every token of that market', async () => {
    const [one] = await activeTokens(1);
    const c = await connect(`?markets=${one!.slug}`);
    await c.until((x) => x.messages.length >= 2);
    expect(c.events.every((e) => e.data.marketId === one!.market_id)).toBe(true);
  });

  test('when the request names nothing, too much or unknown ids, then a JSON error and no stream', async () => {
    const none = await t.api.get('/api/markets/stream');
    expect([none.status, none.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const many = await t.api.get(`/api/markets/stream?tokens=${Array.from({ length: 101 }, (_, i) => `t${i}`).join(',')}`);
    expect([many.status, many.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const unknown = await t.api.get('/api/markets/stream?tokens=no-such-token');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(unknown.body.error).toContain('no-such-token');
  });

  test('when a caller reads a market whose venue price moved, then a subscriber hears that live price without any sync', async () => {
    await t.services.marketSync.runOnce({ force: true });
    const [yes] = await lastingTokens(t.services.db, 1);
    const c = await connect(`?tokens=${yes!.token_id}`);
    await c.until((x) => x.messages.length >= 1, 8000, 'the current price');
    const before = c.events[0]!.data;
    clock.advance(3 * HOUR);
    const odds = await t.api.get(`/api/markets/${yes!.market_id}`);
    expect([odds.status, odds.body.odds.live]).toEqual([200, true]);
    await c.until((x) => x.messages.length >= 2, 8000, 'the live price');
    const heard = c.events[1]!.data;
    expect(heard).toEqual({
      tokenId: yes!.token_id,
      marketId: yes!.market_id,
      price: odds.body.odds.yes.mid,
      bid: odds.body.odds.yes.bid,
      ask: odds.body.odds.yes.ask,
      at: odds.body.odds.asOf,
    });
    expect(Date.parse(String(heard.at))).toBe(Date.parse(String(before.at)) + 3 * HOUR);
    // Read again within the quote's cache: nothing new was learned, nothing is sent.
    await t.api.get(`/api/markets/${yes!.market_id}`);
    await sleep(2 * PRICE_TICK_INTERVAL_MS);
    expect(c.messages).toHaveLength(2);
  });

  test('when 50 quotes of one token change within about 200 ms, then a subscriber gets a few ticks, the last carrying the final price and its time', async () => {
    await t.services.marketSync.runOnce({ force: true });
    const [yes] = await lastingTokens(t.services.db, 1);
    const c = await connect(`?tokens=${yes!.token_id}`);
    await c.until((x) => x.messages.length >= 1, 8000, 'the current price');
    // The venue quotes what the test says, a new price each time; each read is past the live quote's one-second cache.
    const quote = jest.spyOn(t.services.feed, 'quote').mockImplementation(async (tokenId) => {
      const midMicro = 300_000n + BigInt(quotes.length) * 1_000n;
      return { tokenId, bidMicro: midMicro - 5_000n, askMicro: midMicro + 5_000n, midMicro, asOf: clock.now() };
    });
    const quotes: LivePrice[] = [];
    const started = Date.now();
    try {
      while (quotes.length < 50) {
        clock.advance(1_001);
        quotes.push(await t.services.prices.live(yes!.token_id));
      }
    } finally {
      quote.mockRestore();
    }
    const elapsed = Date.now() - started;
    expect(new Set(quotes.map((q) => q.midMicro)).size).toBe(50);
    const last = quotes[quotes.length - 1]!;
    await c.until((x) => x.events.some((e) => e.data.at === last.asOf.toISOString()), 8000, 'the final price');
    await sleep(3 * PRICE_TICK_INTERVAL_MS);
    const ticks = c.events.slice(1).map((e) => e.data);
    // The first at once, then at most one per window while the burst lasted (3 for a burst shorter than a window; a
    // loaded machine may take longer over the 50 reads).
    expect(ticks.length).toBeLessThanOrEqual(Math.ceil(elapsed / PRICE_TICK_INTERVAL_MS) + 2);
    expect(ticks[ticks.length - 1]).toEqual({
      tokenId: yes!.token_id,
      marketId: yes!.market_id,
      price: fromMicro(last.midMicro),
      bid: fromMicro(last.bidMicro),
      ask: fromMicro(last.askMicro),
      at: last.asOf.toISOString(),
    });
    // Each tick is a quote the venue gave, with its own time, in order.
    for (const tick of ticks) expect(quotes.some((q) => q.asOf.toISOString() === tick.at && fromMicro(q.midMicro) === tick.price)).toBe(true);
    const times = ticks.map((x) => Date.parse(String(x.at)));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  test('when many prices change, then they travel in NOTIFY payloads under 8000 bytes and read back exactly', () => {
    const ticks: PriceTick[] = Array.from({ length: 500 }, (_, i) => ({
      tokenId: `${'7'.repeat(70)}${i}`,
      marketId: `${500000 + i}`,
      priceMicro: BigInt(100000 + i),
      bidMicro: i % 2 ? null : BigInt(99000 + i),
      askMicro: BigInt(101000 + i),
      at: new Date(1764064800000 + i),
    }));
    const payloads = pricePayloads(ticks);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    expect(payloads.flatMap(parsePricePayload)).toEqual(ticks);
  });
});

// Two processes cannot share one PGlite directory: two gateways on one PostgreSQL database, each with its own sessions.
describeOnPostgres('price stream across processes on $name', (backend) => {
  let one: TestApp;
  let two: TestApp;
  const clock = new ManualClock(Date.now());
  const open: SseClient[] = [];
  beforeAll(async () => {
    const opened = await (backend as Backend).open();
    const shared: Backend = { name: 'postgres', open: async () => ({ ...opened, drop: async () => {} }) };
    const second: Backend = {
      name: 'postgres',
      open: async () => {
        const db = await openDatabase(testConfig({ DATABASE_URL: opened.url!, DB_POOL_SIZE: 5 }), createLogger('silent'));
        return { db, drop: () => db.close() };
      },
    };
    one = await startTestApp(shared, { clock, background: false });
    two = await startTestApp(second, { listen: true, clock, background: false });
    const close = one.close.bind(one);
    one.close = async () => {
      await close();
      await opened.drop();
    };
    await one.services.marketSync.runOnce({ force: true });
  });
  afterAll(async () => {
    open.splice(0).forEach((c) => c.close());
    await two?.close();
    await one?.close();
  });

  test('when one process reads a live quote, then a subscriber of the other process hears it', async () => {
    const [yes] = await lastingTokens(one.services.db, 1);
    const c = await SseClient.open(`${two.baseUrl}/api/markets/stream?tokens=${yes!.token_id}`);
    open.push(c);
    await c.until((x) => x.messages.length >= 1, 8000, 'the current price');
    clock.advance(2 * HOUR);
    const odds = await one.api.get(`/api/markets/${yes!.market_id}`);
    expect(odds.body.odds.live).toBe(true);
    await c.until((x) => x.messages.length >= 2, 8000, "the other process's live price");
    expect(c.events[1]!.data).toMatchObject({ tokenId: yes!.token_id, price: odds.body.odds.yes.mid, at: odds.body.odds.asOf });
    // The process that streams read nothing from the venue itself.
    expect((two.services.prices as { upstreamCalls?: number }).upstreamCalls).toBe(0);
  });

  test('when the listening session drops while a price changes unannounced, then the subscriber hears the current price once it is back', async () => {
    const [, yes] = await lastingTokens(one.services.db, 2);
    const c = await SseClient.open(`${two.baseUrl}/api/markets/stream?tokens=${yes!.token_id}`);
    open.push(c);
    await c.until((x) => x.messages.length >= 1, 8000, 'the current price');
    // A price written without its NOTIFY (as if announced while the session was down), then the sessions cut.
    const at = new Date(clock.now().getTime() + HOUR);
    await one.services.db.query(`UPDATE market_tokens SET price_micro = 123000, bid_micro = 122000, ask_micro = 124000, price_at = $2 WHERE token_id = $1`, [
      yes!.token_id,
      at,
    ]);
    await one.services.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN price_changes'`);
    await c.until((x) => x.messages.length >= 2, 8000, 'the price re-read after the reconnect');
    expect(c.events[1]!.data).toEqual({ tokenId: yes!.token_id, marketId: yes!.market_id, price: 0.123, bid: 0.122, ask: 0.124, at: at.toISOString() });
    expect(c.ended).toBe(false);
  });
});
