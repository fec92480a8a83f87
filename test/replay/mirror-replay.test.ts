import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { DAY, HOUR, ManualClock, MINUTE } from '../support/identity';
import { FakePolymarket, fixture, freshBook } from '../market-data/support/fake-polymarket';

type GammaMarket = { id: string; slug: string; outcomePrices: string; clobTokenIds: string; bestBid: number; bestAsk: number; closed: boolean };

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const FED = '516710';
const NBA = '516711';

// A run builds and migrates a database of its own (on PostgreSQL a schema and every migration): over 180 s was seen on a
// loaded machine (load average 30 on two cores).
jest.setTimeout(480_000);

describe.each(backends())('a replay of the recorded Polymarket mirror on $name', (backend) => {
  let fake: FakePolymarket;
  let t: TestApp;
  let live: { id: string; apiKey: string };
  const T0 = Date.parse('2026-11-22T00:00:00Z');
  const clock = new ManualClock(T0);
  const page = () => fake.keysetPages[0]!.markets as GammaMarket[];
  const market = (id: string) => page().find((m) => m.id === id)!;
  const tokensOf = (id: string) =>
    JSON.parse(fixture<{ markets: GammaMarket[] }>('gamma-markets-keyset-page-1').markets.find((m) => m.id === id)!.clobTokenIds) as string[];
  /** Rows recorded of the two markets this test moves (the fixture pages hold others, recorded once). */
  const historyRows = async (ids = [FED, NBA]) =>
    Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM mirror_market_history WHERE market_id = ANY($1::text[])', [ids]))[0]!.n);

  beforeAll(async () => {
    fake = await new FakePolymarket().start();
    t = await startTestApp(backend, {
      clock,
      background: false,
      config: { MARKET_FEED: 'polymarket', POLYMARKET_GAMMA_URL: fake.url, POLYMARKET_CLOB_URL: fake.url, POLYMARKET_RETRIES: 0, MIRROR_HISTORY_DAYS: 1 },
    });
    live = await registerAgent(t, 'Mirror replayer');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('when the mirror has recorded prices, a book and a resolution, then a mirror run replays them on its clock, trades, settles and ends labelled with the leakage warning', async () => {
    // T0: the first sync records both markets (once, however many syncs see them unchanged).
    expect(await t.services.marketSync.runOnce({ force: true })).toMatchObject({ status: 'ran' });
    expect(await historyRows()).toBe(2);

    // T0+1h: the Fed market moves to 0.60 and its book is read once; the NBA market is unchanged, so it adds no row.
    clock.advance(HOUR);
    Object.assign(market(FED), { outcomePrices: '["0.6", "0.4"]', bestBid: 0.59, bestAsk: 0.61 });
    await t.services.marketSync.runOnce({ force: true });
    expect(await historyRows()).toBe(3);
    const [fedYes] = tokensOf(FED);
    fake.books.set(fedYes!, freshBook('clob-book', { bids: [{ price: '0.58', size: '100' }], asks: [{ price: '0.62', size: '40' }] }));
    await t.services.prices.live(fedYes!);
    const books = await t.services.db.query<{ bid_micro: string; ask_micro: string }>(
      'SELECT bid_micro, ask_micro FROM mirror_book_history WHERE token_id = $1',
      [fedYes],
    );
    expect(books.map((b) => [Number(b.bid_micro), Number(b.ask_micro)])).toEqual([[580_000, 620_000]]);

    // T0+2h: the NBA market resolves for its first outcome (the YES side).
    clock.advance(HOUR);
    Object.assign(market(NBA), { closed: true, outcomePrices: '["1", "0"]', umaResolutionStatus: 'resolved' });
    await t.services.marketSync.runOnce({ force: true });
    expect(await historyRows()).toBe(4);
    clock.advance(HOUR);

    // A mirror run of [T0, T0+150 min].
    const from = new Date(T0).toISOString();
    const to = new Date(T0 + 150 * MINUTE).toISOString();
    const started = await t.api.post('/api/replays').set(bearer(live.apiKey)).send({ source: 'mirror', from, to });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ scenario: { source: 'mirror', from, to }, source: 'mirror', clock: from, startAt: from, endAt: to });
    expect(started.body.leakageWarning).toMatch(/known to the world/);
    const run = started.body as { runId: string; apiKey: string };
    const key = bearer(run.apiKey);

    // At T0 the run sees the recorded markets at their T0 prices.
    const listed = await t.api.get('/api/markets').query({ limit: 10 }).set(key);
    expect(listed.status).toBe(200);
    const byId = new Map((listed.body.markets as Array<{ id: string; yesPrice: number; slug: string }>).map((m) => [m.id, m]));
    expect([...byId.keys()]).toEqual(expect.arrayContaining([FED, NBA]));
    expect(byId.get(FED)!.yesPrice).toBeCloseTo(0.535, 6);

    // A buy of the NBA market's YES side at its recorded T0 book top (bid 0.40, ask 0.42): $42 buys 100 shares. It states a
    // forecast, since a record counts resolved stated forecasts only (a plain buy is no forecast).
    const [nbaYes] = tokensOf(NBA);
    const buy = await t.api
      .post('/api/trade')
      .set(key)
      .send({ marketId: NBA, marketSlug: byId.get(NBA)!.slug, tokenId: nbaYes, outcome: 'YES', amount: 42, forecast: 0.6 });
    expect(buy.status).toBe(200);
    expect(buy.body).toMatchObject({ quantity: 100, price: 0.42, totalCost: 42 });

    // An hour on, the Fed market shows its recorded move, and a quote comes from the book read then.
    const hour = await t.api.post(`/api/replays/${run.runId}/advance`).set(key).send({ by: 3600 });
    expect(hour.status).toBe(200);
    expect(hour.body.clock).toBe(new Date(T0 + HOUR).toISOString());
    const fed = await t.api.get(`/api/markets/${FED}`).set(key);
    expect(fed.body.yesPrice).toBeCloseTo(0.6, 6);
    const fedBuy = await t.api.post('/api/trade').set(key).send({ marketId: FED, marketSlug: fed.body.slug, tokenId: fedYes, outcome: 'YES', amount: 6.2 });
    expect(fedBuy.status).toBe(200);
    expect(fedBuy.body).toMatchObject({ quantity: 10, price: 0.62 }); // at the recorded book's ask

    // A mirror has no news; the next resolution is the NBA market's, recorded at T0+2h, and it settles the position.
    const news = await t.api.post(`/api/replays/${run.runId}/advance`).set(key).send({ to: 'next_news' });
    expect(news.status).toBe(400);
    expect(news.body.code).toBe('VALIDATION_ERROR');
    const resolved = await t.api.post(`/api/replays/${run.runId}/advance`).set(key).send({ to: 'next_resolution' });
    expect(resolved.body.clock).toBe(new Date(T0 + 2 * HOUR).toISOString());
    const positions = await t.api.get('/api/positions').set(key);
    // $1000 − $42 − $6.20 + 100 shares paid at $1.
    expect(positions.body.totals.cash).toBeCloseTo(1000 - 42 - 6.2 + 100, 6);

    const ended = await t.api.post(`/api/replays/${run.runId}/end`).set(bearer(live.apiKey));
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ state: 'ended', clock: to, source: 'mirror' });
    const read = await t.api.get(`/api/replays/${run.runId}`).set(bearer(live.apiKey));
    expect(read.body.record).toMatchObject({ venue: 'replay', source: 'mirror', resolvedMarkets: 1 });
    expect(read.body.record.leakageWarning).toMatch(/known to the world/);

    // The live account and the live mirror are untouched by the run.
    expect((await t.api.get('/api/positions').set(bearer(live.apiKey))).body.positions).toHaveLength(0);
  });

  test('when a mirror window has no records, mixes the sources or reaches the future, then start_replay refuses it and starts nothing', async () => {
    const refuse = async (body: Record<string, unknown>) => {
      const res = await t.api.post('/api/replays').set(bearer(live.apiKey)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    };
    const runsBefore = Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM replay_runs'))[0]!.n);
    await refuse({ source: 'mirror', from: new Date(T0 - 10 * DAY).toISOString(), to: new Date(T0 - 9 * DAY).toISOString() });
    await refuse({ source: 'mirror', from: new Date(T0).toISOString(), to: new Date(clock.now().getTime() + HOUR).toISOString() });
    await refuse({ source: 'mirror', seed: 1, days: 1, from: new Date(T0).toISOString(), to: new Date(T0 + HOUR).toISOString() });
    await refuse({ seed: 1 });
    expect(Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM replay_runs'))[0]!.n)).toBe(runsBefore);
  });

  test('when the history is older than MIRROR_HISTORY_DAYS, then the next sync prunes it', async () => {
    expect(await historyRows()).toBeGreaterThan(0);
    clock.advance(2 * DAY);
    await t.services.marketSync.runOnce({ force: true });
    // Nothing changed since, so nothing new was recorded, and everything recorded is two days old.
    expect(Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM mirror_market_history'))[0]!.n)).toBe(0);
    expect(Number((await t.services.db.query<{ n: string }>('SELECT count(*) AS n FROM mirror_book_history'))[0]!.n)).toBe(0);
  });
});
