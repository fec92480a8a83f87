import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, seedMarket, type SeededMarket } from '../support/markets';
import { verifyChain } from '../../src/domain/forecasts/forecast-rules';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * Issue 49, attack 6: a forecast was stamped with the last synced price, not the price the agent was quoted (0.409
 * read, 0.375 stamped), so alpha was measured against a price the agent never saw. Here the mirror's last sync says
 * 0.375 while the venue quotes YES at 0.400/0.418 (mid 0.409): every way of stating a forecast stamps the quote.
 */
describe.each(backends())('a forecast is stamped with its quote on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    // The last sync: YES 0.37/0.38 (mid 0.375). Then the venue moves, and the mirror has not synced since.
    await moveQuote(t.services.db, prices, m.yes, 0.37, 0.38);
    await moveQuote(t.services.db, prices, m.no, 0.62, 0.63);
    prices.set(m.yes, 0.4, 0.418);
    prices.set(m.no, 0.582, 0.6);
  });

  const synced = async () =>
    Number((await t.services.db.query<{ p: string }>(`SELECT price_micro::text AS p FROM market_tokens WHERE token_id = $1`, [m.yes]))[0]!.p) / 1e6;
  const quotedYesMid = async () => Number((await prices.live(m.yes)).midMicro) / 1e6;

  test('when an agent submits a forecast, then its stamp is the live quote (0.409), not the last sync (0.375)', async () => {
    const a = await registerAgent(t);
    expect(await synced()).toBe(0.375);
    const res = await t.api.post('/api/forecasts').set(bearer(a.apiKey)).send({ marketId: m.id, probability: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body.forecast.mids).toEqual([await quotedYesMid()]);
    expect(res.body.forecast.mids).toEqual([0.409]);
    expect((await verifyChain(await t.services.forecasts.chain(a.id))).ok).toBe(true);
  });

  test('when an agent buys YES or NO with a forecast, then its stamp is the quote its fill took (the YES mid; 1 − the NO mid on a NO buy)', async () => {
    const a = await registerAgent(t);
    const yes = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10, forecast: 0.6 });
    expect(yes.status).toBe(200);
    expect(yes.body.price).toBe(0.418); // the fill took the ask of the same quote
    const no = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.no, outcome: 'NO', amount: 10, forecast: 0.3 });
    expect(no.status).toBe(200);
    expect(no.body.price).toBe(0.6);
    const listed = (await t.api.get('/api/forecasts').set(bearer(a.apiKey))).body.forecasts as Array<{ seq: number; mids: number[] }>;
    const bySeq = new Map(listed.map((f) => [f.seq, f.mids]));
    expect(bySeq.get(1)).toEqual([0.409]);
    // NO quoted 0.582/0.600: its mid 0.591, so YES 0.409.
    expect(bySeq.get(2)).toEqual([0.409]);
    expect((await verifyChain(await t.services.forecasts.chain(a.id))).ok).toBe(true);
  });

  test('when an agent places an order with a forecast, then its stamp is the live quote at placement', async () => {
    const a = await registerAgent(t);
    const res = await t.api
      .post('/api/orders')
      .set(bearer(a.apiKey))
      .send({ tokenId: m.yes, side: 'BUY', limitPrice: 0.3, amount: 10, timeInForce: 'GTC', forecast: 0.55 });
    expect(res.status).toBe(200);
    const listed = (await t.api.get('/api/forecasts').set(bearer(a.apiKey))).body.forecasts;
    expect(listed[0]).toMatchObject({ source: 'place_order', mids: [0.409] });
  });

  test('when the venue has no live quote for the market, then the forecast is stamped unknown (null), never the last sync', async () => {
    const a = await registerAgent(t);
    prices.down(m.yes);
    prices.down(m.no);
    const res = await t.api.post('/api/forecasts').set(bearer(a.apiKey)).send({ marketId: m.id, probability: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body.forecast.mids).toEqual([null]);
  });
});
