import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, HOUR } from '../support/identity';
import { SseClient } from '../support/sse-client';
import { checkResponse } from '../support/openapi-check';
import { parsePricePayload, pricePayloads, type PriceTick } from '../../src/market-data/price-broadcast';

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
