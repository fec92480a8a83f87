import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { AppError } from '../../src/errors/app-error';
import { FakePolymarket, freshBook } from './support/fake-polymarket';

const FED_YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

/** Real time plus a shift the test controls, so upstream timestamps (real) and the service clock agree. */
class ShiftClock {
  offset = 0;
  now(): Date {
    return new Date(Date.now() + this.offset);
  }
}

class FrozenClock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

const unavailable = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: 'PRICE_UNAVAILABLE' });

describe.each(backends())('live prices on $name', (backend) => {
  describe('from Polymarket (a fake upstream)', () => {
    let fake: FakePolymarket;
    let t: TestApp;
    const clock = new ShiftClock();
    beforeAll(async () => {
      fake = await new FakePolymarket().start();
      t = await startTestApp(backend, {
        clock,
        config: { MARKET_FEED: 'polymarket', POLYMARKET_GAMMA_URL: fake.url, POLYMARKET_CLOB_URL: fake.url, PRICE_MAX_AGE_S: 120 },
      });
    });
    afterAll(async () => {
      await t.close();
      await fake.close();
    });
    beforeEach(() => {
      fake.heal();
      fake.books.clear();
      clock.offset += 10_000; // past any cached quote
    });

    test('when a burst of trades asks for one token, then one upstream call serves them all and the cache serves the next', async () => {
      fake.books.set(FED_YES, freshBook());
      const before = fake.count('/book');
      const quotes = await Promise.all(Array.from({ length: 20 }, () => t.services.prices.live(FED_YES)));
      expect(fake.count('/book') - before).toBe(1);
      for (const q of quotes) expect(q).toMatchObject({ bidMicro: 530_000n, askMicro: 540_000n, midMicro: 535_000n, source: 'polymarket' });
      await t.services.prices.live(FED_YES);
      expect(fake.count('/book') - before).toBe(1);
      clock.offset += 1_500;
      await t.services.prices.live(FED_YES);
      expect(fake.count('/book') - before).toBe(2);
    });

    test('when the venue quotes a book older than PRICE_MAX_AGE_S, then PRICE_UNAVAILABLE, and a buy is refused with 503 and nothing changes', async () => {
      fake.books.set(FED_YES, freshBook('clob-book', { timestamp: String(Date.now() - 300_000) }));
      await unavailable(t.services.prices.live(FED_YES));
      const agent = await registerAgent(t);
      const res = await t.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${agent.apiKey}`)
        .send({ marketId: '516710', marketSlug: 'will-the-fed-cut-rates-at-its-december-2026-meeting', tokenId: FED_YES, outcome: 'YES', amount: 10 });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('PRICE_UNAVAILABLE');
      const bal = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${agent.apiKey}`);
      expect(bal.body.balance).toBe(1000);
    });

    test('when the CLOB is down, then the mirror’s synced book serves while fresh, and nothing once older than PRICE_MAX_AGE_S', async () => {
      await t.services.marketSync.runOnce({ force: true });
      fake.fail('/book', { kind: 'status', status: 500 });
      const q = await t.services.prices.live(FED_YES);
      expect(q).toMatchObject({ bidMicro: 530_000n, askMicro: 540_000n, source: 'polymarket' });
      clock.offset += 121_000;
      await unavailable(t.services.prices.live(FED_YES));
    });

    test('when the venue has no price at all for a token, then PRICE_UNAVAILABLE', async () => {
      const err = await t.services.prices.live('424242').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(503);
    });
  });

  describe('from the simulated venue', () => {
    let t: TestApp;
    const clock = new FrozenClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    beforeAll(async () => {
      t = await startTestApp(backend, { clock });
    });
    afterAll(async () => t.close());

    test('when a simulated market is bought, then it fills at the live ask and the odds show the same book', async () => {
      const search = await t.api.get('/api/search').query({ q: 'bitcoin' });
      const market = search.body.markets[0];
      const yes = market.outcomeTokens.find((o: { outcome: string }) => o.outcome === 'YES');
      const odds = await t.api.get(`/api/markets/${market.id}`);
      expect(odds.body.odds).toMatchObject({ live: true, source: 'simulated', ageSeconds: 0 });
      const live = await t.services.prices.live(yes.tokenId);
      expect(live.askMicro - live.bidMicro).toBeGreaterThan(0n);
      expect(odds.body.odds.yes).toEqual({ bid: Number(live.bidMicro) / 1e6, ask: Number(live.askMicro) / 1e6, mid: Number(live.midMicro) / 1e6 });
      const agent = await registerAgent(t);
      const trade = await t.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${agent.apiKey}`)
        .send({ marketId: market.id, marketSlug: market.slug, tokenId: yes.tokenId, outcome: 'YES', amount: 25 });
      expect(trade.status).toBe(200);
      expect(trade.body.price).toBe(odds.body.odds.yes.ask);
    });

    test('when a simulated market has ended, then its price is unavailable', async () => {
      clock.t += 400 * 86_400_000; // every market open now has ended by then
      const [row] = await t.services.db.query<{ token_id: string }>(
        `SELECT token_id FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.source = 'simulated' LIMIT 1`,
      );
      await unavailable(t.services.prices.live(row!.token_id));
    });
  });
});
