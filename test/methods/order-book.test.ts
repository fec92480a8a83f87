import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

describe.each(backends())('get_order_book on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
  });

  test('when the venue publishes a book, then its levels come back best first with their shares, as published', async () => {
    prices.book(
      m.yes,
      [
        [0.44, 100],
        [0.43, 250.5],
      ],
      [
        [0.45, 40],
        [0.48, 50],
        [0.55, 1000],
      ],
    );
    const res = await t.api.get('/api/book').query({ tokenId: m.yes });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tokenId: m.yes,
      marketId: m.id,
      outcome: 'YES',
      source: 'polymarket',
      synthetic: false,
      bids: [
        { price: 0.44, shares: 100 },
        { price: 0.43, shares: 250.5 },
      ],
      asks: [
        { price: 0.45, shares: 40 },
        { price: 0.48, shares: 50 },
        { price: 0.55, shares: 1000 },
      ],
      bid: 0.44,
      ask: 0.45,
      mid: 0.445,
    });
    expect(Date.now() - Date.parse(res.body.asOf)).toBeLessThan(60_000);
    // marketId + outcome names the same token.
    const byMarket = await t.api.get('/api/book').query({ marketId: m.id, outcome: 'YES' });
    expect(byMarket.body.bids).toEqual(res.body.bids);
    expect(byMarket.body.asks).toEqual(res.body.asks);
  });

  test('when the venue publishes no depth (simulated), then a synthetic book of five levels a cent apart around the bid and ask is shown', async () => {
    prices.set(m.no, 0.6, 0.62);
    const res = await t.api.get('/api/book').query({ marketId: m.id, outcome: 'NO' });
    expect(res.status).toBe(200);
    // seedMarket's volume is $1,000: the floor of $2,500 at the best level in whole shares (2500 / 0.6 = 4166.67 → 4166 at
    // the bid, 2500 / 0.62 = 4032.26 → 4032 at the ask), one more lot per level out.
    expect(res.body).toMatchObject({
      tokenId: m.no,
      outcome: 'NO',
      source: 'simulated',
      synthetic: true,
      bid: 0.6,
      ask: 0.62,
      bids: [0.6, 0.59, 0.58, 0.57, 0.56].map((price, i) => ({ price, shares: 4166 * (i + 1) })),
      asks: [0.62, 0.63, 0.64, 0.65, 0.66].map((price, i) => ({ price, shares: 4032 * (i + 1) })),
    });
  });

  test('when the token is unknown, then NOT_FOUND; when no fresh price exists or the market is closed, then PRICE_UNAVAILABLE', async () => {
    expect((await t.api.get('/api/book').query({ tokenId: 'no-such-token' })).body.code).toBe('NOT_FOUND');
    expect((await t.api.get('/api/book').query({ marketId: 'no-such-market', outcome: 'YES' })).status).toBe(404);
    prices.down(m.yes);
    const down = await t.api.get('/api/book').query({ tokenId: m.yes });
    expect([down.status, down.body.code]).toEqual([503, 'PRICE_UNAVAILABLE']);
    const closed = await seedMarket(t.services.db, { status: 'closed' });
    prices.set(closed.yes, 0.5, 0.51);
    expect((await t.api.get('/api/book').query({ tokenId: closed.yes })).status).toBe(503);
  });

  test('when neither tokenId nor marketId with outcome is sent, or they disagree, then VALIDATION_ERROR', async () => {
    prices.set(m.yes, 0.5, 0.51);
    expect((await t.api.get('/api/book').query({ marketId: m.id })).body.code).toBe('VALIDATION_ERROR');
    expect((await t.api.get('/api/book').query({ tokenId: m.yes, outcome: 'NO' })).body.code).toBe('VALIDATION_ERROR');
    expect((await t.api.get('/api/book').query({ tokenId: m.yes, depth: 3 })).body.code).toBe('VALIDATION_ERROR');
  });

  test('when read over JSON-RPC and MCP, then the same book comes back', async () => {
    prices.book(m.yes, [[0.3, 5]], [[0.32, 7]]);
    const rest = (await t.api.get('/api/book').query({ tokenId: m.yes })).body;
    const rpc = await rpcCall(t, 'get_order_book', { tokenId: m.yes });
    expect({ ...rpc.result, asOf: rest.asOf, ageSeconds: 0 }).toEqual({ ...rest, ageSeconds: 0 });
    const mcp = await mcpCall(t, 'get_order_book', { marketId: m.id, outcome: 'YES' });
    expect(mcp.result.isError).toBeFalsy();
    expect(mcp.result.structuredContent).toMatchObject({ bids: [{ price: 0.3, shares: 5 }], asks: [{ price: 0.32, shares: 7 }] });
  });
});

describe.each(backends())('get_order_book on the simulated venue on $name', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    // The built-in simulated venue with its live price service (no controlled prices), frozen in time.
    t = await startTestApp(backend, { background: false, clock: { now: () => new Date('2030-03-01T12:00:00Z') } });
    await t.services.marketSync.runOnce();
  });
  afterAll(async () => {
    await t.close();
  });

  test('when a simulated token is read, then its synthetic book sits at the live bid and ask of get_market_odds, sized from its volume, the same each time', async () => {
    const [market] = (await t.api.get('/api/markets').query({ limit: 1 })).body.markets;
    const yes = market.outcomeTokens.find((o: { outcome: string }) => o.outcome === 'YES').tokenId;
    const odds = (await t.api.get(`/api/markets/${market.id}`)).body.odds;
    const book = (await t.api.get('/api/book').query({ tokenId: yes })).body;
    expect(book).toMatchObject({ marketId: market.id, source: 'simulated', synthetic: true, bid: odds.yes.bid, ask: odds.yes.ask, mid: odds.yes.mid });
    expect(book.bids[0].price).toBe(odds.yes.bid);
    expect(book.asks[0].price).toBe(odds.yes.ask);
    // The best level holds whole shares worth a twentieth of the volume ($2,500 to $250,000), one more lot per level out.
    const dollars = Math.min(250_000, Math.max(2_500, Math.round(market.volume / 20)));
    const lot = Math.floor((dollars * 1e6) / Math.round(odds.yes.bid * 1e6));
    expect(book.bids.map((l: { shares: number }) => l.shares)).toEqual(book.bids.map((_: unknown, i: number) => lot * (i + 1)));
    expect((await t.api.get('/api/book').query({ tokenId: yes })).body).toEqual(book);
  });
});
