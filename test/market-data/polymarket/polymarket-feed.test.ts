import { createLogger } from '../../../src/logger';
import { FeedError } from '../../../src/market-data/feed';
import { PolymarketFeed } from '../../../src/market-data/polymarket/polymarket-feed';
import { FakePolymarket, fixture, freshBook } from '../support/fake-polymarket';

const FED_YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const FED_NO = '52114319501245915516055106046884209969926127482827954674443846427813813222426';
const BTC_YES = '99871022930028573654114091253780917745627760015523490082346712398801165530017';

describe('the Polymarket adapter against a fake upstream', () => {
  let fake: FakePolymarket;
  let logs: string[];
  let now: number;
  const feed = (over: Partial<ConstructorParameters<typeof PolymarketFeed>[0]['upstream']> = {}) =>
    new PolymarketFeed({
      gammaUrl: fake.url,
      clobUrl: fake.url,
      now: () => now,
      log: createLogger('warn', {}, (l) => logs.push(l)),
      upstream: { timeoutMs: 300, retries: 2, backoffMs: 5, breakerThreshold: 3, breakerCooldownMs: 60_000, ...over },
    });

  beforeEach(async () => {
    fake = await new FakePolymarket().start();
    logs = [];
    now = Date.now();
  });
  afterEach(async () => fake.close());

  test('when the keyset listing has two pages, then both are read through after_cursor and the listing is complete', async () => {
    const listing = await feed().listMarkets();
    const keyset = fake.requests.filter((r) => r.path === '/markets/keyset');
    expect(keyset.map((r) => r.query.after_cursor)).toEqual([undefined, 'MTAw']);
    expect(keyset[0]!.query).toMatchObject({ limit: '100', closed: 'false' });
    expect(listing.complete).toBe(true);
    expect(listing.markets.map((m) => m.id).sort()).toEqual(['516710', '516711', '516714', '516720', '516722']);
  });

  test('when records are malformed, then each is skipped and logged and the rest are kept', async () => {
    const listing = await feed().listMarkets();
    // 516712: outcomePrices is not JSON; 516713: no clobTokenIds; 516721: prices outside [0, 1].
    expect(listing.skipped).toBe(3);
    const skipped = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'skipped malformed upstream market');
    expect(skipped.map((l) => l.id).sort()).toEqual(['516712', '516713', '516721']);
  });

  test('when a record is valid, then outcomes pair with clobTokenIds and prices are exact micro-units', async () => {
    const { markets } = await feed().listMarkets();
    const fed = markets.find((m) => m.id === '516710')!;
    expect(fed.tokens.map((t) => [t.outcome, t.label, t.tokenId, t.priceMicro])).toEqual([
      ['YES', 'Yes', FED_YES, 535_000n],
      ['NO', 'No', FED_NO, 465_000n],
    ]);
    // bestBid/bestAsk 0.53/0.54 quote YES; NO is its complement.
    expect([fed.tokens[0].bidMicro, fed.tokens[0].askMicro, fed.tokens[1].bidMicro, fed.tokens[1].askMicro]).toEqual([530_000n, 540_000n, 460_000n, 470_000n]);
    expect(fed.category).toBe('Economy'); // from tags: the record has no category
    expect(fed.volume).toBe(2483911.17);
    expect(fed.endDate?.toISOString()).toBe('2026-12-31T12:00:00.000Z');
    expect(fed.status).toBe('active');
    const btc = markets.find((m) => m.id === '516720')!;
    expect(btc.volume).toBe(7251903.125); // only the string `volume`
    expect(btc.category).toBe('Crypto');
    const lakers = markets.find((m) => m.id === '516711')!;
    expect(lakers.tokens.map((t) => [t.outcome, t.label])).toEqual([
      ['YES', 'Lakers'],
      ['NO', 'Celtics'],
    ]);
    expect(lakers.category).toBe('Sports');
  });

  test('when a record states its trading figures, then 24 h volume, open interest, last trade, tick and minimum size are kept exactly; bad ones are null', async () => {
    const fed = fixture<{ markets: Array<Record<string, unknown>> }>('gamma-markets-keyset-page-1').markets.find((m) => m.id === '516710')!;
    fake.keysetPages = [
      {
        markets: [
          { ...fed, openInterest: '31250.5' },
          // YES second: Gamma's lastTradePrice is the first outcome's (NO here), so YES last traded at 1 − 0.3.
          {
            ...fed,
            id: '900001',
            slug: 'reversed',
            outcomes: '["No", "Yes"]',
            outcomePrices: '["0.3", "0.7"]',
            clobTokenIds: `["${FED_NO}1", "${FED_YES}1"]`,
            lastTradePrice: '0.3',
          },
          {
            ...fed,
            id: '900002',
            slug: 'bad-figures',
            volume24hr: -5,
            openInterest: 'lots',
            lastTradePrice: 1.5,
            orderPriceMinTickSize: 0,
            orderMinSize: null,
          },
        ],
        next_cursor: null,
      },
    ];
    const { markets } = await feed().listMarkets();
    const stats = (id: string) => markets.find((m) => m.id === id)!.stats;
    expect(stats('516710')).toEqual({ volume24h: 21873.01, openInterest: 31250.5, lastTradePriceMicro: 530_000n, tickSizeMicro: 1_000n, minOrderShares: 5 });
    expect(stats('900001')).toMatchObject({ lastTradePriceMicro: 700_000n });
    expect(stats('900002')).toEqual({ volume24h: null, openInterest: null, lastTradePriceMicro: null, tickSizeMicro: null, minOrderShares: null });
  });

  test('when /markets/keyset does not exist, then the legacy /markets offset pages are used', async () => {
    fake.keysetAvailable = false;
    const listing = await feed().listMarkets();
    expect(fake.count('/markets')).toBe(1);
    expect(listing.complete).toBe(true);
    expect(listing.markets).toHaveLength(5);
    expect(listing.skipped).toBe(3);
  });

  test('when the upstream answers 500 twice, then the call is retried and succeeds', async () => {
    fake.fail('/markets/keyset', { kind: 'status', status: 500 }, 2);
    const listing = await feed().listMarkets();
    expect(fake.count('/markets/keyset')).toBe(4); // 2 failures, then pages 1 and 2
    expect(listing.complete).toBe(true);
  });

  test('when a later keyset page keeps failing, then the listing keeps what it read and says it is incomplete', async () => {
    fake.fail('/markets/keyset', { kind: 'status', status: 500 }, Infinity, 1);
    const listing = await feed().listMarkets();
    expect(fake.count('/markets/keyset')).toBe(4); // page 1, then page 2 three times (two retries)
    expect(fake.count('/markets')).toBe(0); // no fallback once keyset paging has started
    expect(listing.complete).toBe(false);
    expect(listing.markets.map((m) => m.id).sort()).toEqual(['516710', '516711', '516714']);
  });

  test('when every attempt times out, then the adapter gives up after its retries with an unavailable error', async () => {
    fake.keysetAvailable = true;
    fake.fail('/markets/keyset', { kind: 'hang' });
    fake.fail('/markets', { kind: 'hang' });
    const err = await feed({ retries: 1 })
      .listMarkets()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FeedError);
    expect((err as FeedError).kind).toBe('unavailable');
    expect((err as FeedError).message).toMatch(/timeout/);
    expect(fake.count('/markets/keyset')).toBe(2);
    expect(fake.count('/markets')).toBe(2);
  });

  test('when the upstream keeps failing, then the circuit opens and later calls fail fast without a request', async () => {
    fake.fail('/book', { kind: 'status', status: 503 });
    const f = feed({ retries: 0, breakerThreshold: 3 });
    for (let i = 0; i < 3; i++) await expect(f.quote(FED_YES)).rejects.toBeInstanceOf(FeedError);
    expect(fake.count('/book')).toBe(3);
    expect(f.status().state).toBe('degraded');
    await expect(f.quote(FED_YES)).rejects.toThrow(/circuit open/);
    expect(fake.count('/book')).toBe(3);
    // After the cool-down one trial call goes out; a success closes the circuit.
    fake.heal('/book');
    fake.books.set(FED_YES, freshBook());
    now += 60_001;
    await expect(f.quote(FED_YES)).resolves.toMatchObject({ bidMicro: 530_000n });
    expect(f.status().state).toBe('up');
  });

  test('when the keyset cursor does not advance, then paging stops and the listing is incomplete', async () => {
    fake.keysetPages = [{ ...fixture<{ markets: unknown[] }>('gamma-markets-keyset-page-1'), next_cursor: 'same' }];
    // The server ignores the cursor: it keeps serving page one with the same next_cursor.
    fake.keysetPages.push({ ...fake.keysetPages[0]!, next_cursor: 'same' });
    const listing = await feed().listMarkets();
    expect(listing.complete).toBe(false);
    expect(fake.count('/markets/keyset')).toBe(2);
  });

  test('when a market closed with prices 1/0, then it is resolved YES; 0/1 is NO; 0.5/0.5 is VOID', async () => {
    const f = feed();
    const yes = f.toFeedMarket(fixture('gamma-market-resolved'), new Date(now))!;
    expect([yes.status, yes.winner, yes.resolvedAt?.toISOString()]).toEqual(['resolved', 'YES', '2026-11-30T14:02:11.000Z']);
    expect(yes.tokens.map((t) => [t.priceMicro, t.bidMicro])).toEqual([
      [1_000_000n, null],
      [0n, null],
    ]);
    const no = f.toFeedMarket({ ...fixture<Record<string, unknown>>('gamma-market-resolved'), outcomePrices: '["0", "1"]' }, new Date(now))!;
    expect([no.status, no.winner]).toEqual(['resolved', 'NO']);
    const voided = f.toFeedMarket(fixture('gamma-market-void'), new Date(now))!;
    expect([voided.status, voided.winner]).toEqual(['resolved', 'VOID']);
  });

  test('when a market is closed but its resolution is only proposed, then it is closed, not resolved', async () => {
    const m = feed().toFeedMarket(fixture('gamma-market-proposed'), new Date(now))!;
    expect([m.status, m.winner]).toEqual(['closed', null]);
  });

  test('when a market is asked for by id or slug, then /markets/{id} or /markets/slug/{slug} answers it', async () => {
    fake.indexFixtures();
    const f = feed();
    expect((await f.market('516710'))?.slug).toBe('will-the-fed-cut-rates-at-its-december-2026-meeting');
    expect((await f.market('nba-lal-bos-2026-12-25'))?.id).toBe('516711');
    expect(await f.market('999999')).toBeNull();
    expect(fake.requests.map((r) => r.path)).toEqual(['/markets/516710', '/markets/slug/nba-lal-bos-2026-12-25', '/markets/999999']);
  });

  test('when the book has levels in any order, then the quote is the best bid (max) and best ask (min)', async () => {
    fake.books.set(FED_YES, freshBook());
    const q = await feed().quote(FED_YES);
    expect([q.bidMicro, q.askMicro, q.midMicro]).toEqual([530_000n, 540_000n, 535_000n]);
    expect(fake.requests[0]).toMatchObject({ path: '/book', query: { token_id: FED_YES } });
  });

  test('when the book has sizes, then the quote carries its depth, best level first on each side, sizes exact', async () => {
    fake.books.set(FED_YES, freshBook());
    const q = await feed().quote(FED_YES);
    expect(q.depth?.bids).toEqual([
      { priceMicro: 530_000n, sizeMicro: 92_000_000n },
      { priceMicro: 510_000n, sizeMicro: 310_500_000n },
      { priceMicro: 480_000n, sizeMicro: 1_250_000_000n },
    ]);
    expect(q.depth?.asks.map((l) => l.priceMicro)).toEqual([540_000n, 560_000n, 600_000n]);
    expect(q.depth?.asks[1]).toEqual({ priceMicro: 560_000n, sizeMicro: 145_000_000n });
  });

  test('when the book is one-sided, then /price gives each side (BUY = best bid, SELL = best ask)', async () => {
    fake.books.set(BTC_YES, freshBook('clob-book-one-sided'));
    fake.prices.set(`${BTC_YES}:BUY`, fixture('clob-price-buy'));
    fake.prices.set(`${BTC_YES}:SELL`, fixture('clob-price-sell'));
    const q = await feed().quote(BTC_YES);
    expect([q.bidMicro, q.askMicro, q.midMicro]).toEqual([195_000n, 205_000n, 200_000n]);
  });

  test('when there is no book, then the midpoint serves as bid and ask, whether it says mid or mid_price', async () => {
    fake.midpoints.set(FED_YES, fixture('clob-midpoint'));
    fake.midpoints.set(FED_NO, fixture('clob-midpoint-mid-price'));
    const a = await feed().quote(FED_YES);
    expect([a.bidMicro, a.askMicro, a.midMicro]).toEqual([535_000n, 535_000n, 535_000n]);
    const b = await feed().quote(FED_NO);
    expect([b.bidMicro, b.askMicro]).toEqual([410_000n, 410_000n]);
  });

  test('when the venue knows nothing of a token, then the quote fails as unknown-token', async () => {
    const err = await feed()
      .quote('123')
      .catch((e: unknown) => e);
    expect((err as FeedError).kind).toBe('unknown-token');
  });

  test('when every CLOB answer has the wrong shape, then the quote fails as unavailable (venue trouble), not as a market that is not trading', async () => {
    fake.fail('*', { kind: 'body', status: 200, contentType: 'application/json', body: '{"data":"maintenance","bids":7}' });
    const err = await feed()
      .quote(FED_YES)
      .catch((e: unknown) => e);
    expect((err as FeedError).kind).toBe('unavailable');
    expect(fake.count('/midpoint')).toBe(1);
  });

  test('when price history is asked, then /prices-history gets market, interval and fidelity, and bad points are dropped', async () => {
    fake.histories.set(FED_YES, fixture('clob-prices-history'));
    const from = 1763712000;
    const points = await feed().history(FED_YES, { interval: '1d', fromS: from, toS: from + 86_400, stepS: 3600 });
    expect(fake.requests[0]).toMatchObject({ path: '/prices-history', query: { market: FED_YES, interval: '1d', fidelity: '60' } });
    expect(points).toHaveLength(24);
    expect(points.map((p) => p.t)).toEqual([...points.map((p) => p.t)].sort((a, b) => a - b));
    expect(points.every((p) => p.p >= 0 && p.p <= 1)).toBe(true);
  });

  test('when the upstream answers garbage, then it is an unavailable error, not a crash', async () => {
    fake.fail('/book', { kind: 'garbage' });
    const err = await feed({ retries: 0 })
      .quote(FED_YES)
      .catch((e: unknown) => e);
    expect((err as FeedError).kind).toBe('unavailable');
    expect((err as FeedError).message).toMatch(/malformed JSON/);
  });
});
