import { backends, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { faultProxy, type FaultProxy } from '../support/fault-proxy';
import { FakePolymarket, fixture } from '../market-data/support/fake-polymarket';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createMarketData } from '../../src/market-data/market-data';
import type { PolymarketFeed } from '../../src/market-data/polymarket/polymarket-feed';
import { venueOf } from '../../src/market-data/mirror-history/recording-feed';

const FED_ID = '516710';
const FED_SLUG = 'will-the-fed-cut-rates-at-its-december-2026-meeting';
const FED_YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const TIMEOUT_MS = 300;
const RETRIES = 1;
const PRICE_MAX_AGE_S = 30;
/** Past the adapter's circuit-breaker cool-down (30 s), so a mended venue is asked again at once. */
const BREAKER_COOLDOWN_MS = 30_000;

/** A clock the test moves forward: the mirror's prices go stale and the venue's circuit cools down without waiting. */
class SteppedClock {
  private offset = 0;
  now = (): Date => new Date(Date.now() + this.offset);
  advance(ms: number): void {
    this.offset += ms;
  }
}

/** A two-sided book without a timestamp: the adapter dates it "now" on the service's clock. */
const book = () => {
  const { timestamp: _ignored, ...rest } = fixture('clob-book');
  return rest;
};

interface Fault {
  name: string;
  /** Breaks the venue (the fake behind the proxy, or the proxy itself). */
  start(fake: FakePolymarket, proxy: FaultProxy): Promise<void> | void;
  /** Undoes what start did beyond the fake's faults (which fake.heal() clears). */
  end?(proxy: FaultProxy): Promise<void>;
}

const answering =
  (status: number, contentType: string, body: string): Fault['start'] =>
  (fake) =>
    fake.fail('*', { kind: 'body', status, contentType, body });

const FAULTS: Fault[] = [
  { name: 'the venue is down (connection refused)', start: (_fake, proxy) => proxy.down(), end: (proxy) => proxy.up() },
  { name: 'the venue answers only after 10 s', start: (fake) => fake.fail('*', { kind: 'slow', ms: 10_000 }) },
  { name: 'the venue answers 500', start: (fake) => fake.fail('*', { kind: 'status', status: 500 }) },
  {
    name: 'the venue answers an HTML page',
    start: answering(200, 'text/html', '<!doctype html><html><body><h1>Cloudflare: checking your browser</h1></body></html>'),
  },
  { name: 'the venue answers truncated JSON', start: (fake) => fake.fail('*', { kind: 'garbage' }) },
  { name: 'the venue answers JSON of the wrong shape', start: answering(200, 'application/json', '{"data":"maintenance","markets":"none","bids":7}') },
];

/**
 * The Polymarket venue down, slow or answering garbage, behind a proxy and a fake the test controls. Prices
 * answer 503 PRICE_UNAVAILABLE in time and nothing trades; /ready reports the feed and stays ready; the sync
 * fails without blocking the process or touching the mirror, and resumes when the venue comes back.
 */
describe.each(backends())('the market venue failing on $name', (backend: Backend) => {
  let fake: FakePolymarket;
  let proxy: FaultProxy;
  let t: TestApp;
  const clock = new SteppedClock();
  let agent: { id: string; apiKey: string };
  let positionId: string;
  let deadlineMs: number;

  beforeAll(async () => {
    fake = await new FakePolymarket().start();
    fake.indexFixtures();
    fake.books.set(FED_YES, book());
    proxy = await faultProxy(new URL(fake.url));
    t = await startTestApp(backend, {
      clock,
      background: false,
      config: {
        MARKET_FEED: 'polymarket',
        POLYMARKET_GAMMA_URL: proxy.url,
        POLYMARKET_CLOB_URL: proxy.url,
        POLYMARKET_TIMEOUT_MS: TIMEOUT_MS,
        POLYMARKET_RETRIES: RETRIES,
        PRICE_MAX_AGE_S,
      },
    });
    const feed = venueOf(t.services.feed) as PolymarketFeed;
    deadlineMs = feed.clob.deadlineMs;
    expect(await t.services.marketSync.runOnce({ force: true })).toMatchObject({ status: 'ran', complete: true });
    agent = await registerAgent(t);
    const bought = await trade('setup-buy');
    expect(bought.status).toBe(200);
    positionId = bought.body.positionId;
  }, 30_000);

  afterAll(async () => {
    await t.close();
    await proxy.close();
    await fake.close();
  });

  const trade = (key: string) =>
    t.api
      .post('/api/trade')
      .set('Authorization', `Bearer ${agent.apiKey}`)
      .set('Idempotency-Key', key)
      .send({ marketId: FED_ID, marketSlug: FED_SLUG, tokenId: FED_YES, outcome: 'YES', amount: 10 });
  const sell = (key: string) =>
    t.api.post(`/api/positions/${positionId}/sell`).set('Authorization', `Bearer ${agent.apiKey}`).set('Idempotency-Key', key).send({ quantity: 1 });
  const quote = () => t.api.post('/api/trade/quote').send({ side: 'BUY', tokenId: FED_YES, amount: 5 });

  /** Everything a trade would change for the agent, and the whole mirror. */
  const books = async () => {
    const q = t.services.db.query.bind(t.services.db);
    const [row] = await q<{ balance: bigint; trades: bigint; shares: bigint | null; ledger: bigint }>(
      `SELECT (SELECT balance_micro FROM cash_balances WHERE user_id = $1) AS balance, (SELECT count(*) FROM trades WHERE user_id = $1) AS trades,
              (SELECT sum(quantity_micro)::bigint FROM positions WHERE user_id = $1) AS shares,
              (SELECT count(*) FROM transfers WHERE asset = 'USD' AND phase = 'posted' AND ('cash:' || $1::text) IN (debit_account, credit_account)) AS ledger`,
      [agent.id],
    );
    return { balance: row!.balance, trades: Number(row!.trades), shares: row!.shares, ledger: Number(row!.ledger) };
  };
  const mirror = async () =>
    JSON.stringify(
      await t.services.db.query(
        `SELECT m.id, m.question, m.status, m.updated_at, t.token_id, t.price_micro, t.price_at FROM markets m JOIN market_tokens t ON t.market_id = m.id ORDER BY t.token_id`,
      ),
      (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
    );
  /** The time a price may take on a failing venue: every attempt timing out, the backoffs, and the service's own work. */
  const inTime = () => deadlineMs + 1500;

  test.each(FAULTS)(
    'when $name, then prices answer 503 in time, nothing trades, /ready stays ready, and the sync resumes when it is back',
    async (fault) => {
      // The last synced book goes stale, so a price can only come from the venue.
      clock.advance((PRICE_MAX_AGE_S + 1) * 1000);
      const before = await books();
      const mirrored = await mirror();
      await fault.start(fake, proxy);
      const key = `buy-${fault.name}`;

      for (const call of [quote, () => trade(key), () => sell(`sell-${fault.name}`), () => trade(key)]) {
        const started = Date.now();
        const res = await call();
        expect(Date.now() - started).toBeLessThan(inTime());
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({ code: 'PRICE_UNAVAILABLE' });
        // Venue trouble, said as such (the mirror's price is too old to stand in): never blamed on the market, which still trades.
        expect(res.body.error).toMatch(/market feed is unreachable|latest price is \d+ s old/);
        expect(res.body.error).not.toMatch(/not trading/);
      }
      expect(await books()).toEqual(before);
      // Reads of the market still answer, from the mirror, saying so.
      const read = Date.now();
      const odds = await t.api.get(`/api/markets/${FED_ID}`);
      expect(Date.now() - read).toBeLessThan(inTime());
      expect(odds.status).toBe(200);
      expect(odds.body.odds).toMatchObject({ live: false, source: 'mirror' });

      // The sync fails in the background; meanwhile the process answers, and /ready reports the feed without failing.
      const started = Date.now();
      const sync = t.services.marketSync.runOnce({ force: true });
      const balance = await t.api.get('/api/user/balance').set('Authorization', `Bearer ${agent.apiKey}`);
      expect(balance.status).toBe(200);
      const ready = await t.api.get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ready');
      expect(ready.body.checks.marketFeed).toMatch(/^polymarket (up|degraded|down): /);
      expect(ready.body.checks.marketSync).toEqual(expect.any(String));
      expect(Date.now() - started).toBeLessThan(2000);
      const outcome = await sync;
      // Two listings (keyset, then the legacy pages) at most, each bounded like a price.
      expect(Date.now() - started).toBeLessThan(2 * deadlineMs + 2000);
      expect(['failed', 'ran']).toContain(outcome.status);
      if (outcome.status === 'ran') expect(outcome.markets).toBe(0); // wrongly shaped records are skipped, never stored
      expect(await mirror()).toBe(mirrored);
      expect((await t.api.get('/ready')).status).toBe(200);

      // The venue comes back with news: the next sync mirrors it, prices answer, and the refused buy trades once with its key.
      fake.heal();
      await fault.end?.(proxy);
      const question = `Will the Fed cut rates in December? (after ${fault.name})`;
      (fake.keysetPages[0]!.markets[0] as { question: string }).question = question;
      clock.advance(BREAKER_COOLDOWN_MS + 1000);
      expect(await t.services.marketSync.runOnce({ force: true })).toMatchObject({ status: 'ran', complete: true });
      const [fed] = await t.services.db.query<{ question: string }>('SELECT question FROM markets WHERE id = $1', [FED_ID]);
      expect(fed!.question).toBe(question);
      expect((await quote()).status).toBe(200);
      const retried = await trade(key);
      expect(retried.status).toBe(200);
      expect((await trade(key)).body).toEqual(retried.body); // a replay, not a second trade
      const after = await books();
      expect(after.trades).toBe(before.trades + 1);
      expect(after.balance).toBe(before.balance - 10_000_000n);
      expect((await auditLedger(t.services.db)).violations).toEqual([]);
    },
    20_000,
  );
});

/** The defaults bound a price too: one attempt at the default timeout answers 503 in about 4 s, and a call with the default retries in about 13 s. */
describe.each(backends().slice(0, 1))('the default venue timeouts on $name', (backend: Backend) => {
  test('when the venue never answers and only the retries are configured away, then a trade answers 503 within the default timeout', async () => {
    const fake = await new FakePolymarket().start();
    fake.indexFixtures();
    const clock = new SteppedClock();
    const t = await startTestApp(backend, {
      clock,
      background: false,
      config: { MARKET_FEED: 'polymarket', POLYMARKET_GAMMA_URL: fake.url, POLYMARKET_CLOB_URL: fake.url, POLYMARKET_RETRIES: 0, PRICE_MAX_AGE_S },
    });
    try {
      expect(t.config.POLYMARKET_TIMEOUT_MS).toBe(4000);
      expect((venueOf(t.services.feed) as PolymarketFeed).clob.deadlineMs).toBe(4000);
      expect(await t.services.marketSync.runOnce({ force: true })).toMatchObject({ status: 'ran' });
      const agent = await registerAgent(t);
      clock.advance((PRICE_MAX_AGE_S + 1) * 1000);
      fake.fail('/book', { kind: 'hang' });
      const started = Date.now();
      const res = await t.api
        .post('/api/trade')
        .set('Authorization', `Bearer ${agent.apiKey}`)
        .send({ marketId: FED_ID, marketSlug: FED_SLUG, tokenId: FED_YES, outcome: 'YES', amount: 10 });
      const ms = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('PRICE_UNAVAILABLE');
      expect(ms).toBeGreaterThanOrEqual(3900);
      expect(ms).toBeLessThan(5500);
      expect((await auditLedger(t.services.db)).violations).toEqual([]);

      // With nothing configured, one call to the venue is bounded too: three 4-s attempts and at most 1.125 s of backoff.
      const defaults = createMarketData({ config: testConfig({ MARKET_FEED: 'polymarket' }), db: t.services.db, log: createLogger('silent'), clock });
      expect((venueOf(defaults.feed) as PolymarketFeed).clob.deadlineMs).toBe(3 * 4000 + 1.5 * (250 + 500));
    } finally {
      await t.close();
      await fake.close();
    }
  }, 20_000);
});
