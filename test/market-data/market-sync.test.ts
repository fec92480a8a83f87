import { backends, describeOnPostgres, type Backend } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { openDatabase } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startService, type RunningService } from '../../src/start';
import { parseMarketRef } from '../../src/market-data/simulated/catalog';
import type { SimulatedFeed } from '../../src/market-data/simulated/simulated-feed';
import { MarketStore } from '../../src/market-data/market-store';
import { MarketSync } from '../../src/market-data/market-sync';
import { FakePolymarket, fixture } from './support/fake-polymarket';

class TestClock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const silent = createLogger('silent');

const polymarketConfig = (url: string) => ({ MARKET_FEED: 'polymarket', POLYMARKET_GAMMA_URL: url, POLYMARKET_CLOB_URL: url });

describe.each(backends())('the market mirror on $name', (backend) => {
  describe('fed by the simulated venue', () => {
    let t: TestApp;
    const clock = new TestClock(NOW);
    beforeAll(async () => {
      t = await startTestApp(backend, { clock, background: false });
    });
    afterAll(async () => t.close());
    const q = <T>(sql: string, params: unknown[] = []) => t.services.db.query<T>(sql, params);

    test('when the venue syncs, then at least 200 active markets are stored with both tokens, YES + NO = 1, and a snapshot per token', async () => {
      const outcome = await t.services.marketSync.runOnce();
      expect(outcome).toMatchObject({ status: 'ran', complete: true });
      const [counts] = await q<{ active: bigint; tokens: bigint; bad: bigint; snaps: bigint }>(
        `SELECT (SELECT count(*) FROM markets WHERE status = 'active' AND source = 'simulated') AS active,
                (SELECT count(*) FROM market_tokens) AS tokens,
                (SELECT count(*) FROM markets m JOIN market_tokens y ON y.market_id = m.id AND y.outcome = 'YES'
                   JOIN market_tokens n ON n.market_id = m.id AND n.outcome = 'NO' WHERE y.price_micro + n.price_micro <> 1000000) AS bad,
                (SELECT count(*) FROM price_snapshots) AS snaps`,
      );
      expect(counts!.active).toBeGreaterThanOrEqual(200n);
      expect(counts!.tokens).toBe(2n * counts!.active);
      expect(counts!.bad).toBe(0n);
      expect(counts!.snaps).toBe(counts!.tokens);
    });

    test('when time passes, then the next sync moves prices and adds a snapshot per token', async () => {
      const before = await q<{ token_id: string; price_micro: bigint }>('SELECT token_id, price_micro FROM market_tokens');
      clock.t += 30 * 60_000;
      expect((await t.services.marketSync.runOnce()).status).toBe('ran');
      const after = new Map(
        (await q<{ token_id: string; price_micro: bigint }>('SELECT token_id, price_micro FROM market_tokens')).map((r) => [r.token_id, r.price_micro]),
      );
      const moved = before.filter((r) => after.get(r.token_id) !== r.price_micro).length;
      expect(moved).toBeGreaterThan(before.length / 4);
      const [snaps] = await q<{ per_token: bigint }>(`SELECT max(n) AS per_token FROM (SELECT count(*) AS n FROM price_snapshots GROUP BY token_id) s`);
      expect(snaps!.per_token).toBe(2n);
    });

    test('when a market ends and then resolves in the venue, then the mirror closes it, resolves it with the venue winner and emits one event', async () => {
      const feed = t.services.feed as SimulatedFeed;
      const ids = await q<{ id: string }>(`SELECT id FROM markets WHERE status = 'active' AND source = 'simulated'`);
      const spec = ids.map((r) => feed.spec(parseMarketRef(r.id)!)).sort((a, b) => a.endAtMs - b.endAtMs)[0]!;

      clock.t = spec.endAtMs + 1000;
      await t.services.marketSync.runOnce({ force: true });
      const [closed] = await q<{ status: string; events: bigint }>(
        `SELECT status, (SELECT count(*) FROM market_events WHERE market_id = $1) AS events FROM markets WHERE id = $1`,
        [spec.id],
      );
      expect(closed).toEqual({ status: 'closed', events: 0n });

      clock.t = spec.resolveAtMs + 1000;
      const outcome = await t.services.marketSync.runOnce({ force: true });
      expect(outcome.status === 'ran' && outcome.resolved).toContain(spec.id);
      const winner = feed.winnerOf(spec);
      const [m] = await q<{ status: string; winner: string; resolved_at: Date }>('SELECT status, winner, resolved_at FROM markets WHERE id = $1', [spec.id]);
      expect(m).toEqual({ status: 'resolved', winner, resolved_at: new Date(spec.resolveAtMs) });
      const events = await q<{ winner: string; processed_at: Date | null }>(
        `SELECT e.winner, s.processed_at FROM market_events e LEFT JOIN market_settlements s ON s.event_id = e.id WHERE e.market_id = $1 AND e.type = 'resolved'`,
        [spec.id],
      );
      expect(events).toHaveLength(1);
      expect(events[0]!.winner).toBe(winner);
      // The sync hands resolutions to settlement right away.
      expect(events[0]!.processed_at).not.toBeNull();

      const again = await t.services.marketSync.runOnce({ force: true });
      expect(again.status === 'ran' && again.resolved).toEqual([]);
      const [n] = await q<{ n: bigint }>(`SELECT count(*) AS n FROM market_events WHERE market_id = $1`, [spec.id]);
      expect(n!.n).toBe(1n);
    });

    test('when the same process syncs again within half an interval, then it skips unless forced', async () => {
      expect((await t.services.marketSync.runOnce()).status).toBe('fresh');
      expect((await t.services.marketSync.runOnce({ force: true })).status).toBe('ran');
    });

    test('when a sync logs that it is done, then its success is already recorded (a process killed after the line leaves a fresh mirror)', async () => {
      // The cluster test kills the leader the moment this line appears and expects no other process to sync within
      // half an interval; that holds only if the line follows the record of success.
      let recorded = false;
      const seen: boolean[] = [];
      class WatchedStore extends MarketStore {
        override async recordSyncSuccess(...args: Parameters<MarketStore['recordSyncSuccess']>): Promise<void> {
          await super.recordSyncSuccess(...args);
          recorded = true;
        }
      }
      const log = createLogger('debug', {}, (line) => {
        if (line.includes('"market sync done"')) seen.push(recorded);
      });
      const sync = new MarketSync({
        db: t.services.db,
        feed: t.services.feed,
        store: new WatchedStore(t.services.db, log),
        log,
        clock,
        intervalS: 60,
      });
      expect((await sync.runOnce({ force: true })).status).toBe('ran');
      expect(seen).toEqual([true]);
    });
  });

  describe('fed by Polymarket (a fake upstream)', () => {
    let fake: FakePolymarket;
    let t: TestApp;
    beforeAll(async () => {
      fake = await new FakePolymarket().start();
      // Started with the background job: the first sync runs before the app answers anything.
      t = await startTestApp(backend, { config: { ...polymarketConfig(fake.url), MARKET_SYNC_INTERVAL_S: 60 } });
    });
    afterAll(async () => {
      await t.close();
      await fake.close();
    });
    const q = <T>(sql: string, params: unknown[] = []) => t.services.db.query<T>(sql, params);

    test('when the service starts, then the upstream is already mirrored: valid markets searchable, malformed ones absent', async () => {
      const ids = (await q<{ id: string }>('SELECT id FROM markets ORDER BY id')).map((r) => r.id);
      expect(ids).toEqual(['516710', '516711', '516714', '516720', '516722']);
      const res = await t.api.get('/api/search').query({ q: 'fed cut' });
      expect(res.status).toBe(200);
      expect(res.body.markets.map((m: { id: string }) => m.id)).toEqual(['516710']);
      expect(res.body.markets[0]).toMatchObject({ source: 'polymarket', simulated: false, yesPrice: 0.535, category: 'Economy' });
    });

    test('when markets resolve upstream, then the next sync marks them resolved (YES, VOID) and emits each event once', async () => {
      for (const page of fake.keysetPages) page.markets = page.markets.filter((m) => !['516714', '516722'].includes((m as { id: string }).id));
      fake.byId.set('516714', fixture('gamma-market-resolved'));
      fake.byId.set('516722', fixture('gamma-market-void'));
      const outcome = await t.services.marketSync.runOnce({ force: true });
      expect(outcome.status === 'ran' && [...outcome.resolved].sort()).toEqual(['516714', '516722']);
      const rows = await q<{ id: string; status: string; winner: string; events: bigint }>(
        `SELECT m.id, m.status, m.winner, (SELECT count(*) FROM market_events e WHERE e.market_id = m.id AND e.type = 'resolved') AS events
         FROM markets m WHERE m.id IN ('516714', '516722') ORDER BY m.id`,
      );
      expect(rows).toEqual([
        { id: '516714', status: 'resolved', winner: 'YES', events: 1n },
        { id: '516722', status: 'resolved', winner: 'VOID', events: 1n },
      ]);
      await t.services.marketSync.runOnce({ force: true });
      const [n] = await q<{ n: bigint }>(`SELECT count(*) AS n FROM market_events`);
      expect(n!.n).toBe(2n);
      // A resolved market never returns to active, even if the upstream lists it again.
      fake.keysetPages[0]!.markets.push(fixture<{ markets: Array<{ id: string }> }>('gamma-markets-keyset-page-1').markets.find((m) => m.id === '516714'));
      await t.services.marketSync.runOnce({ force: true });
      const [m] = await q<{ status: string }>(`SELECT status FROM markets WHERE id = '516714'`);
      expect(m!.status).toBe('resolved');
    });

    test('when the upstream fails during a sync, then the run fails, the failure is recorded, and the mirror is unchanged', async () => {
      const dump = async () =>
        JSON.stringify(await q('SELECT m.*, t.* FROM markets m JOIN market_tokens t ON t.market_id = m.id ORDER BY t.token_id'), (_k, v) =>
          typeof v === 'bigint' ? v.toString() : v,
        );
      const before = await dump();
      fake.fail('/markets/keyset', { kind: 'status', status: 500 });
      fake.fail('/markets', { kind: 'status', status: 503 });
      const outcome = await t.services.marketSync.runOnce({ force: true });
      fake.heal();
      expect(outcome.status).toBe('failed');
      expect(await dump()).toBe(before);
      const [state] = await q<{ last_error: string }>(`SELECT last_error FROM market_sync_state WHERE feed = 'polymarket'`);
      expect(state!.last_error).toMatch(/Gamma API did not answer/);
      const ready = await t.api.get('/ready');
      expect(ready.body.checks.marketFeed).toMatch(/^polymarket (up|degraded)/);
    });

    test('when an unknown slug is asked for, then the adapter fetches it by slug and mirrors it', async () => {
      fake.byId.set('516799', {
        ...fixture<{ markets: object[] }>('gamma-markets-keyset-page-2').markets[0],
        id: '516799',
        slug: 'fetched-on-demand',
        clobTokenIds: '["5551", "5552"]',
      });
      const res = await t.api.get('/api/markets/fetched-on-demand');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: '516799', slug: 'fetched-on-demand', source: 'polymarket' });
      expect(fake.count('/markets/slug/fetched-on-demand')).toBe(1);
      const [m] = await q<{ id: string }>(`SELECT id FROM markets WHERE slug = 'fetched-on-demand'`);
      expect(m!.id).toBe('516799');
    });
  });
});

// Two processes cannot share one PGlite directory (its lockfile refuses the second): PostgreSQL only.
describeOnPostgres('two processes on one $name database', (backend) => {
  let fake: FakePolymarket;
  let a: RunningService;
  let b: RunningService;
  let close: () => Promise<void>;
  beforeAll(async () => {
    fake = await new FakePolymarket().start();
    // The resolved market is in the listing from the start, so each run would emit its event.
    fake.keysetPages[1]!.markets.push(fixture('gamma-market-resolved'));
    fake.keysetPages[0]!.markets = fake.keysetPages[0]!.markets.filter((m) => (m as { id: string }).id !== '516714');
    const opened = await (backend as Backend).open();
    const second = await openDatabase(testConfig({ DATABASE_URL: opened.url!, DB_POOL_SIZE: 5 }), silent);
    const config = testConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'silent', DATABASE_URL: opened.url!, ...polymarketConfig(fake.url) });
    a = await startService(config, silent, { db: opened.db, background: false });
    b = await startService(config, silent, { db: second, background: false });
    close = async () => {
      await a.stop();
      await b.stop();
      await second.close();
      await opened.drop();
      await fake.close();
    };
  });
  afterAll(async () => close());

  test('when both sync at the same moment, then one mirrors, the other skips, the upstream is listed once and the event is emitted once', async () => {
    const outcomes = await Promise.all([a.services.marketSync.runOnce(), b.services.marketSync.runOnce()]);
    const statuses = outcomes.map((o) => o.status);
    expect(statuses.filter((s) => s === 'ran')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'locked' || s === 'fresh')).toHaveLength(1);
    expect(fake.count('/markets/keyset')).toBe(2); // pages 1 and 2, by one process
    const again = await Promise.all([a.services.marketSync.runOnce(), b.services.marketSync.runOnce()]);
    // Within the interval neither syncs again (one may find the other holding the lock while it checks).
    for (const o of again) expect(['fresh', 'locked']).toContain(o.status);
    expect(fake.count('/markets/keyset')).toBe(2);
    const events = await a.services.db.query<{ market_id: string; winner: string }>(`SELECT market_id, winner FROM market_events`);
    expect(events).toEqual([{ market_id: '516714', winner: 'YES' }]);
  });
});
