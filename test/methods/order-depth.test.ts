import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { toMicro } from '../../src/domain/money/micro';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('orders against published depth on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, background: false });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    await t.services.db.query(`UPDATE market_tokens SET bid_micro = 440000, ask_micro = 450000, price_micro = 445000, price_at = now() WHERE market_id = $1`, [
      m.id,
    ]);
  });

  const place = (key: string, body: Record<string, unknown>) =>
    t.api
      .post('/api/orders')
      .set(bearer(key))
      .send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', ...body });
  const balance = async (key: string) => (await t.api.get('/api/user/balance').set(bearer(key))).body;
  // The order's own events: not the registration grant's balance (seq 1), the fill's trade and balance (written by the
  // trade path for every trade), or notifications.
  const types = async (userId: string) =>
    (await t.services.events.after(userId, 1n, 100)).map((e) => e.type).filter((x) => x.startsWith('order.') || x === 'balance');
  /** A mirrored listing's price change on a CLOB token: best prices only, so the service reads the book for depth. */
  const listingChange = (bid: number, ask: number) =>
    t.services.priceChanges.emit([{ tokenId: m.yes, bidMicro: toMicro(bid), askMicro: toMicro(ask), asOf: new Date(), source: 'polymarket' }]);
  const BOOK = {
    bids: [[0.44, 100]] as Array<[number, number]>,
    asks: [
      [0.45, 40],
      [0.48, 50],
      [0.55, 1000],
    ] as Array<[number, number]>,
  };

  test('when the book shows less than a GTC buy wants at its limit, then it takes only that, at the average price, and rests the rest reserved', async () => {
    prices.book(m.yes, BOOK.bids, BOOK.asks);
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    // 40 shares at 0.45 ($18) and 50 at 0.48 ($24); the 0.55 level is beyond the limit.
    expect(order).toMatchObject({ state: 'partially_filled', filledSize: 42, filledCash: 42, avgFillPrice: 0.466667, reservedCash: 58 });
    expect(order.filledShares).toBeGreaterThan(89.999);
    expect(order.filledShares).toBeLessThanOrEqual(90);
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 58, available: 900 });
    // The fill's order event, then the balance events of its trade and of the reservation (the engine's consumers run once
    // the trade is written); all in the placement's one transaction.
    expect(await types(a.id)).toEqual(['order.accepted', 'order.partially_filled', 'balance', 'balance']);
    // Cancelling releases exactly the remainder.
    await t.api.post(`/api/orders/${order.id}/cancel`).set(bearer(a.apiKey)).expect(200);
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 0, available: 958 });
  });

  test('when the book cannot fill a FOK whole, then it is rejected with nothing changed; when it can, it fills', async () => {
    prices.book(m.yes, BOOK.bids, BOOK.asks);
    const a = await registerAgent(t);
    expect((await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'FOK' })).body.order).toMatchObject({ state: 'rejected', filledCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 1000, reserved: 0, available: 1000 });
    expect((await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions).toHaveLength(0);
    expect((await place(a.apiKey, { limitPrice: 0.5, size: 40, timeInForce: 'FOK' })).body.order).toMatchObject({ state: 'filled', filledCash: 40 });
  });

  test('when an IOC buy finds part of its size, then that part fills and the rest is cancelled, holding nothing', async () => {
    prices.book(m.yes, BOOK.bids, BOOK.asks);
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100, timeInForce: 'IOC' })).body;
    expect(order).toMatchObject({ state: 'cancelled', filledCash: 42, reservedCash: 0, reason: 'IOC: the rest could not fill at the limit' });
    expect(await balance(a.apiKey)).toEqual({ balance: 958, reserved: 0, available: 958 });
    expect(await types(a.id)).toEqual(['order.accepted', 'order.partially_filled', 'balance', 'order.cancelled']);
  });

  test('when a listing price crosses a resting buy, then the CLOB book limits the fill; the same book again fills nothing more; a new book fills the rest', async () => {
    prices.set(m.yes, 0.6, 0.625);
    const a = await registerAgent(t);
    const { order } = (await place(a.apiKey, { limitPrice: 0.5, size: 100 })).body;
    expect(order.state).toBe('open');
    prices.book(m.yes, [[0.47, 10]], [[0.49, 20]]);
    await listingChange(0.47, 0.49);
    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'partially_filled', filledCash: 9.8, filledShares: 20, reservedCash: 90.2 });
    expect(await balance(a.apiKey)).toEqual({ balance: 990.2, reserved: 90.2, available: 900 });
    // The sizes at the best levels of the book read for the crossed order are kept in the token's book claim.
    const [book] = await t.services.db.query<{ bid: bigint; ask: bigint; at: Date | null }>(
      'SELECT best_bid_size_micro AS bid, best_ask_size_micro AS ask, book_at AS at FROM book_claims WHERE token_id = $1',
      [m.yes],
    );
    expect([book!.bid, book!.ask, book!.at !== null]).toEqual([10_000_000n, 20_000_000n, true]);
    await listingChange(0.47, 0.49);
    expect((await t.services.orders.get(a.id, order.id)).filledCash).toBe(9.8);
    prices.book(m.yes, [[0.47, 10]], [[0.49, 500]]);
    await listingChange(0.47, 0.49);
    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'filled', filledCash: 100, reservedCash: 0 });
    expect(await balance(a.apiKey)).toEqual({ balance: 900, reserved: 0, available: 900 });
    expect((await types(a.id)).filter((x) => x.startsWith('order.'))).toEqual(['order.accepted', 'order.partially_filled', 'order.filled']);
  });

  test('when a listing price crosses nothing, then no book is read', async () => {
    prices.book(m.yes, [[0.4, 10]], [[0.7, 10]]);
    const a = await registerAgent(t);
    await place(a.apiKey, { limitPrice: 0.3, size: 10 });
    let reads = 0;
    const live = prices.live.bind(prices);
    prices.live = async (tokenId) => {
      reads += 1;
      return live(tokenId);
    };
    try {
      await listingChange(0.4, 0.7);
      expect(reads).toBe(0);
      await listingChange(0.25, 0.29);
      expect(reads).toBe(1);
    } finally {
      prices.live = live;
    }
  });

  test('when two resting buys are crossed by one change, then the older takes the book first and the younger gets what is left', async () => {
    prices.set(m.yes, 0.6, 0.625);
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const first = (await place(a.apiKey, { limitPrice: 0.5, size: 10 })).body.order;
    const second = (await place(b.apiKey, { limitPrice: 0.5, size: 10 })).body.order;
    prices.book(m.yes, [[0.4, 10]], [[0.5, 30]]); // $15 at 0.50
    await listingChange(0.4, 0.5);
    expect(await t.services.orders.get(a.id, first.id)).toMatchObject({ state: 'filled', filledCash: 10 });
    expect(await t.services.orders.get(b.id, second.id)).toMatchObject({ state: 'partially_filled', filledCash: 5, reservedCash: 5 });
  });

  test('when a resting sell meets bids for part of its shares, then it sells that part and keeps the rest reserved', async () => {
    prices.set(m.yes, 0.6, 0.625);
    const a = await registerAgent(t);
    await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 }).expect(200); // 160 shares
    prices.set(m.yes, 0.55, 0.625);
    const { order } = (await place(a.apiKey, { side: 'SELL', limitPrice: 0.6, size: 160 })).body;
    expect(order).toMatchObject({ state: 'open', reservedShares: 160 });
    prices.book(
      m.yes,
      [
        [0.62, 50],
        [0.6, 30],
        [0.5, 1000],
      ],
      [[0.63, 100]],
    );
    await listingChange(0.62, 0.63);
    // 50 at 0.62 ($31) and 30 at 0.60 ($18); 0.50 is below the limit.
    expect(await t.services.orders.get(a.id, order.id)).toMatchObject({ state: 'partially_filled', filledShares: 80, filledCash: 49, reservedShares: 80 });
    const pos = (await t.api.get('/api/positions').set(bearer(a.apiKey))).body.positions[0];
    expect(pos).toMatchObject({ quantity: 80 });
  });
});
