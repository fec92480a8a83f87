import { backends, type Backend } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { agentTrader, buy, setClock } from '../../support/traders';

/**
 * A record read from the books, hand-computed: one stated forecast, one buy, the token's price snapshots after it, the
 * account's daily equity with a reward in the middle. Every figure below is worked out in the comments.
 */
function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-02-28T23:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, prices, background: false });
  });
  afterAll(() => t.close());

  test('when an account forecast, bought, saw the price move and its equity change, then its record shows the hand-computed scores', async () => {
    const db = t.services.db;
    // Another account states 0.2 on a market on the last evening of February; it resolves NO on 1 March.
    const early = await agentTrader(t);
    const feb = await seedMarket(db);
    await moveQuote(db, prices, feb.yes, 0.3, 0.3);
    expect((await t.api.post('/api/forecasts').set(early.headers).send({ marketId: feb.id, probability: 0.2 })).status).toBe(200);
    await db.query(
      `UPDATE markets SET status = 'resolved', winner = 'NO', end_date = '2030-03-01T00:30:00Z', resolved_at = '2030-03-01T01:00:00Z' WHERE id = $1`,
      [feb.id],
    );
    setClock(clock, '2030-03-10T10:30:00Z');
    const who = await agentTrader(t);
    const m = await seedMarket(db, { category: 'Weather' });
    await moveQuote(db, prices, m.yes, 0.4, 0.4); // mid 0.40
    await db.query(`UPDATE markets SET end_date = '2030-03-12T12:00:00Z' WHERE id = $1`, [m.id]);
    // A peer states 0.4 on it at 10:30, half an hour before the account's own forecast.
    const peer = await agentTrader(t);
    expect((await t.api.post('/api/forecasts').set(peer.headers).send({ marketId: m.id, probability: 0.4 })).status).toBe(200);
    // Equity before the buy, for the Kelly stake: 1,000.
    await db.query(
      `INSERT INTO portfolio_snapshots (user_id, bucket, cash_micro, positions_value_micro, taken_at) VALUES ($1, '2030-03-10T10:00:00Z', 1000000000, 0, '2030-03-10T10:00:00Z')`,
      [who.id],
    );
    setClock(clock, '2030-03-10T11:00:00Z');
    expect((await t.api.post('/api/forecasts').set(who.headers).send({ marketId: m.id, probability: 0.7 })).status).toBe(200);
    setClock(clock, '2030-03-10T12:00:00Z');
    await buy(t, prices, who, m, 'YES', 40, 0.4); // 100 shares at 0.40
    // The YES token after the buy: 0.50 at +30 min (in force at +1 h), 0.60 at +20 h (in force at +24 h), 0.65 just before the close.
    await db.query(
      `INSERT INTO price_snapshots (token_id, t, price_micro) VALUES ($1, '2030-03-10T12:30:00Z', 500000), ($1, '2030-03-11T08:00:00Z', 600000),
         ($1, '2030-03-12T11:00:00Z', 650000), ($1, '2030-03-12T13:00:00Z', 1000000)`,
      [m.yes],
    );
    await db.query(`UPDATE markets SET status = 'resolved', winner = 'YES', resolved_at = '2030-03-12T14:00:00Z' WHERE id = $1`, [m.id]);
    // Daily equity at each day's last snapshot: 1,000, 1,100, 990 (after a reward of 100 that day), 1,089.
    await db.query(
      `INSERT INTO portfolio_snapshots (user_id, bucket, cash_micro, positions_value_micro, taken_at)
       SELECT $1, b::timestamptz, e, 0, b::timestamptz FROM (VALUES ('2030-03-10T23:00:00Z', 1000000000), ('2030-03-11T22:00:00Z', 1050000000),
         ('2030-03-11T23:00:00Z', 1100000000), ('2030-03-12T23:00:00Z', 990000000), ('2030-03-13T23:00:00Z', 1089000000)) v(b, e)`,
      [who.id],
    );
    await db.query(
      `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, ref, created_at)
       VALUES ('rewards', 'cash:' || $1::text, 'USD', 100000000, 'challenge_reward', 'test', '2030-03-12T12:00:00Z')`,
      [who.id],
    );
    setClock(clock, '2030-03-14T00:00:00Z');
    await t.services.benchmarkFolder.runOnce(clock.now());
    const r = (await t.api.get('/api/benchmark/record').query({ userId: who.id, season: 'all' })).body;

    // Forecast 0.7 on a market that resolved YES, the mid 0.40 stamped with it: Brier (0.7 − 1)² = 0.09, the market's
    // (0.4 − 1)² = 0.36, alpha 0.27; log ln 0.7. One market: no interval.
    expect(r.forecasts.brier).toEqual({ value: expect.closeTo(0.09, 12), n: 1, low: null, high: null });
    expect(r.forecasts.marketBrier.value).toBeCloseTo(0.36, 12);
    expect(r.forecasts.alpha.value).toBeCloseTo(0.27, 12);
    expect(r.forecasts.logScore.value).toBeCloseTo(Math.log(0.7), 12);
    expect(r.byCategory).toEqual([
      expect.objectContaining({ category: 'Weather', questions: 1, brier: expect.objectContaining({ value: expect.closeTo(0.09, 12) }) }),
    ]);
    // The buy had a stated forecast, so no entry-price question.
    expect(r.entryPrice.questions).toBe(0);

    // Closing-line value of the YES buy at 0.40: +1 h 0.50 − 0.40 = 0.10, +24 h 0.60 − 0.40 = 0.20, close 0.65 − 0.40 = 0.25.
    expect(r.timing.buys).toBe(1);
    expect(r.timing.h1.mean.value).toBeCloseTo(0.1, 12);
    expect(r.timing.h24.mean.value).toBeCloseTo(0.2, 12);
    expect(r.timing.close.mean.value).toBeCloseTo(0.25, 12);
    expect(r.timing.close.positiveShare.value).toBe(1);

    // Kelly: q 0.7 at c 0.40 → f* = 0.3 / 0.6 = 0.5; stake 40 / 1,000 = 0.04 → ratio 0.08, not over Kelly.
    expect(r.risk.kellyRatio.value).toBeCloseTo(0.08, 12);
    expect(r.risk.overKellyShare.value).toBe(0);

    // Days from the first day's end (1,000): 1,100/1,000 − 1 = 0.10; (990 − 100)/1,100 − 1 = −0.190909…; 1,089/990 − 1 = 0.10.
    // TWR = 1.1 × 0.809090… × 1.1 − 1 = −0.021; index 1 → 1.1 → 0.89 → 0.979: max drawdown 1 − 0.89/1.1, current 1 − 0.979/1.1.
    const rs = [0.1, 890 / 1100 - 1, 0.1];
    expect(r.risk.days).toBe(3);
    expect(r.risk.timeWeightedReturn.value).toBeCloseTo(1.1 * (890 / 1100) * 1.1 - 1, 12);
    expect(r.risk.maxDrawdown.value).toBeCloseTo(1 - 0.89 / 1.1, 12);
    expect(r.risk.currentDrawdown.value).toBeCloseTo(1 - 0.979 / 1.1, 12);
    const mean = rs.reduce((s, x) => s + x, 0) / 3;
    const sd = Math.sqrt(rs.reduce((s, x) => s + (x - mean) ** 2, 0) / 2);
    expect(r.risk.sharpe.value).toBeCloseTo(mean / sd, 12);
    // Exposure now: the open position, 100 shares marked at the YES mid 0.40 = 40, over the last equity 1,089.
    expect(r.risk.exposure).toBeCloseTo(40 / 1089, 12);
    expect(r.resolvedMarkets).toBe(1);

    // Life scores (docs/scoring.md v1): own 0.7 from 11:00 on 10 March to the close at 12:00 on the 12th (49 h) on a YES,
    // the peer's 0.4 held the whole time. Baseline 100 log₂ 1.4; peer 100 ln(0.7/0.4); coverage 49 h of 49.5 h.
    expect(r.scoringVersion).toBe('v1');
    expect(r.life.baseline).toMatchObject({ value: expect.closeTo(100 * Math.log2(1.4), 10), n: 1 });
    expect(r.life.peer.value).toBeCloseTo(100 * Math.log(0.7 / 0.4), 10);
    expect(r.life.coverage.value).toBeCloseTo(49 / 49.5, 12);
    expect(r.life.peerQuestions).toBe(1);
    // Horizons: 7 d before the close precedes the forecast (n 0); 1 d (12:00 on the 11th): the snapshot 0.60 → 0.16 − 0.09;
    // 1 h (11:00 on the 12th): 0.65 → 0.1225 − 0.09.
    const [d7, d1, h1] = r.life.horizons;
    expect(d7.alpha).toEqual({ value: null, n: 0, low: null, high: null });
    expect(d1.alpha.value).toBeCloseTo(0.07, 12);
    expect(h1.alpha.value).toBeCloseTo(0.0325, 12);
  });

  test('when a forecast stated in one month resolves in the next, then it counts in the month its market resolved', async () => {
    const early = (await t.services.db.query<{ user_id: string }>(`SELECT user_id FROM forecasts WHERE created_at < '2030-03-01'`))[0]!.user_id;
    const season = async (s: string) => (await t.api.get('/api/benchmark/record').query({ userId: early, season: s })).body;
    expect((await season('2030-02')).forecasts.questions).toBe(0);
    // 0.2 on a market that resolved NO: (0.2 − 0)² = 0.04.
    expect((await season('2030-03')).forecasts.brier).toMatchObject({ value: expect.closeTo(0.04, 12), n: 1 });
    expect((await season('all')).forecasts.brier.value).toBeCloseTo(0.04, 12);
  });
}

describe.each(backends())('benchmark inputs on $name', suite);
