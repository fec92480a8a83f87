import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { signedInPerson } from '../support/identity';
import { createCommunityMarket } from '../support/community';
import { addMirrorMarkets } from '../support/markets';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';

/**
 * Issue 51 item 4: the lists that took only `limit` are paged by an opaque keyset cursor. Each is walked to its end at a
 * small page, every row seen once and in the order an independent sort of the seeded rows gives; a row added while paging
 * moves no later page; a bad cursor is a 400 VALIDATION_ERROR.
 */
describe.each(backends())('paging the lists that had no cursor on $name', (backend) => {
  let t: TestApp;
  let agents: Array<{ id: string; apiKey: string }>;

  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    agents = [];
    for (let i = 0; i < 11; i += 1) agents.push(await registerAgent(t, 'Pager'));
  });
  afterAll(async () => t.close());

  /** Every page of a GET list, following nextCursor; `rows` picks a page's rows. */
  async function walk<R>(path: string, query: Record<string, string | number>, rows: (body: Record<string, unknown>) => R[], set?: Record<string, string>) {
    const all: R[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      let req = t.api.get(path).query({ ...query, ...(cursor ? { cursor } : {}) });
      for (const [k, v] of Object.entries(set ?? {})) req = req.set(k, v);
      const res = await req;
      expect(res.status).toBe(200);
      all.push(...rows(res.body));
      cursor = res.body.nextCursor as string | null;
      pages += 1;
    } while (cursor && pages < 50);
    return { all, pages };
  }

  const badCursors = ['not-a-cursor', Buffer.from('{"s":"x","k":"1","i":"y"}').toString('base64url')];

  test('when get_leaderboard is paged, then every ranked trader is seen once, in value then id order, with competition ranks across pages', async () => {
    // Trades (alltime): ties across page boundaries (5 a page).
    const values = [9, 7, 7, 7, 7, 7, 4, 4, 2, 1, 1];
    for (const [i, a] of agents.entries()) {
      await t.services.db.query(
        `INSERT INTO trader_activity (user_id, is_agent, display_name, xp, a_trades, a_volume) VALUES ($1, true, $2, 0, $3, 0)
         ON CONFLICT (user_id) DO UPDATE SET a_trades = EXCLUDED.a_trades`,
        [a.id, `Pager ${i}`, values[i]],
      );
    }
    t.services.trackRecord.leaderboard.invalidate();
    type Row = { rank: number; user: { id: string }; value: number };
    const { all, pages } = await walk<Row>(
      '/api/leaderboard',
      { period: 'alltime', metric: 'trades', audience: 'bots', limit: 5 },
      (b) => b.leaderboard as Row[],
    );
    // Independently: sort the seeded rows, rank = 1 + rows with a greater value.
    const seeded = agents.map((a, i) => ({ id: a.id, value: values[i]! }));
    const expected = [...seeded].sort((a, b) => b.value - a.value || (a.id < b.id ? -1 : 1));
    expect(pages).toBe(3);
    expect(all.map((r) => r.user.id)).toEqual(expected.map((r) => r.id));
    expect(all.map((r) => r.value)).toEqual(expected.map((r) => r.value));
    expect(all.map((r) => r.rank)).toEqual(expected.map((r) => 1 + seeded.filter((s) => s.value > r.value).length));
    expect(all.map((r) => r.rank)).toEqual([1, 2, 2, 2, 2, 2, 7, 7, 9, 10, 10]);

    // A trader joining the top while someone pages shifts no later page.
    const first = await t.api.get('/api/leaderboard').query({ period: 'alltime', metric: 'trades', audience: 'bots', limit: 5 });
    const late = await registerAgent(t, 'Late');
    await t.services.db.query(`INSERT INTO trader_activity (user_id, is_agent, display_name, xp, a_trades, a_volume) VALUES ($1, true, 'Late', 0, 100, 0)`, [
      late.id,
    ]);
    t.services.trackRecord.leaderboard.invalidate();
    const second = await t.api
      .get('/api/leaderboard')
      .query({ period: 'alltime', metric: 'trades', audience: 'bots', limit: 5, cursor: first.body.nextCursor as string });
    expect(second.body.leaderboard.map((r: Row) => r.user.id)).toEqual(expected.slice(5, 10).map((r) => r.id));
    // The SPEC's fields are all there, nextCursor an addition.
    expect(Object.keys(first.body).sort()).toEqual(['audience', 'currentUserRank', 'leaderboard', 'metric', 'nextCursor', 'period', 'periodStart']);
    await t.services.db.query('DELETE FROM trader_activity WHERE user_id = $1', [late.id]);
    t.services.trackRecord.leaderboard.invalidate();

    // A cursor of another board, or no cursor at all, is refused with a stable code.
    const other = await t.api.get('/api/leaderboard').query({ period: 'alltime', metric: 'volume', audience: 'bots', cursor: first.body.nextCursor as string });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('VALIDATION_ERROR');
    for (const cursor of badCursors) {
      const bad = await t.api.get('/api/leaderboard').query({ period: 'alltime', metric: 'trades', audience: 'bots', cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });

  test('when get_benchmark_leaderboard is paged, then every ranked account is seen once, by figure, resolved markets, then id', async () => {
    const alphas = [0.05, 0.02, 0.02, 0.02, 0.01, 0, 0, -0.01, -0.02, -0.02, -0.3];
    const resolved = [40, 50, 40, 40, 31, 35, 35, 30, 30, 30, 90].map((n) => n + MIN_RESOLVED_MARKETS - 30);
    for (const [i, a] of agents.entries()) {
      await t.services.db.query(
        `INSERT INTO benchmark_records (user_id, season, audience, resolved_markets, alpha, record, computed_at)
         VALUES ($1, 'all', 'agents', $2, $3, jsonb_build_object('forecasts', jsonb_build_object('alpha', jsonb_build_object('value', $3::float8, 'n', $2::int, 'low', null, 'high', null))), now())
         ON CONFLICT DO NOTHING`,
        [a.id, resolved[i], alphas[i]],
      );
    }
    t.services.benchmark.invalidate();
    type Entry = { rank: number; userId: string; resolvedMarkets: number };
    const { all } = await walk<Entry>(
      '/api/benchmark/leaderboard',
      { season: 'all', metric: 'alpha', audience: 'bots', limit: 4 },
      (b) => b.entries as Entry[],
    );
    const expected = agents
      .map((a, i) => ({ id: a.id, alpha: alphas[i]!, resolved: resolved[i]! }))
      .sort((a, b) => b.alpha - a.alpha || b.resolved - a.resolved || (a.id < b.id ? -1 : 1));
    expect(all.map((e) => e.userId)).toEqual(expected.map((e) => e.id));
    expect(all.map((e) => e.rank)).toEqual(expected.map((_, i) => i + 1));
    expect(all.map((e) => e.resolvedMarkets)).toEqual(expected.map((e) => e.resolved));
    for (const cursor of badCursors) {
      const bad = await t.api.get('/api/benchmark/leaderboard').query({ season: 'all', metric: 'alpha', audience: 'bots', cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
    await t.services.db.query(`DELETE FROM benchmark_records WHERE season = 'all'`);
    t.services.benchmark.invalidate();
  });

  test('when get_notifications is paged, then every notification is seen once, newest first, and a new one moves no later page', async () => {
    const person = await signedInPerson(t);
    const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s));
    // Seconds with repeats: ties on created_at go by id.
    const seconds = [1, 2, 2, 2, 3, 4, 4, 5, 6, 7, 7, 8];
    const ids: Array<{ id: string; at: number }> = [];
    for (const s of seconds) {
      const rows = await t.services.db.query<{ id: string }>(
        `INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES (gen_random_uuid(), $1, 'badge', 't', 'm', null, $2) RETURNING id::text AS id`,
        [person.id, at(s)],
      );
      ids.push({ id: rows[0]!.id, at: s });
    }
    const session = { Cookie: person.cookie };
    type N = { id: string };
    const { all } = await walk<N>('/api/notifications', { limit: 5 }, (b) => b.notifications as N[], session);
    const expected = [...ids].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((n) => n.id);
    expect(all.map((n) => n.id)).toEqual(expected);

    const first = await t.api.get('/api/notifications').set(session).query({ limit: 5 });
    await t.services.db.query(
      `INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES (gen_random_uuid(), $1, 'badge', 't', 'm', null, now())`,
      [person.id],
    );
    const second = await t.api
      .get('/api/notifications')
      .set(session)
      .query({ limit: 5, cursor: first.body.nextCursor as string });
    expect(second.body.notifications.map((n: N) => n.id)).toEqual(expected.slice(5, 10));
    for (const cursor of badCursors) {
      const bad = await t.api.get('/api/notifications').set(session).query({ cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });

  test('when list_community_markets is paged, then every market is seen once, newest first, and a new one moves no later page', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await createCommunityMarket(t, `Will paging test market ${i} resolve yes?`)).id);
    // Two of them created at the same instant: the tie goes by id.
    await t.services.db.query(`UPDATE community_markets SET created_at = (SELECT created_at FROM community_markets WHERE id = $1) WHERE id = $2`, [
      created[1],
      created[2],
    ]);
    type M = { id: string };
    const { all, pages } = await walk<M>('/api/user-markets', { status: 'all', limit: 2 }, (b) => b.markets as M[]);
    const rows = await t.services.db.query<{ id: string }>(`SELECT id::text AS id FROM community_markets ORDER BY created_at DESC, id DESC`);
    expect(all.map((m) => m.id)).toEqual(rows.map((r) => r.id));
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(pages).toBe(Math.ceil(rows.length / 2));
    const first = await t.api.get('/api/user-markets').query({ status: 'all', limit: 2 });
    await createCommunityMarket(t, 'Will a market created while paging stay off later pages?');
    const second = await t.api.get('/api/user-markets').query({ status: 'all', limit: 2, cursor: first.body.nextCursor as string });
    expect(second.body.markets.map((m: M) => m.id)).toEqual(rows.slice(2, 4).map((r) => r.id));
    for (const cursor of badCursors) {
      const bad = await t.api.get('/api/user-markets').query({ cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });

  test('when search_prediction_markets is paged, then every match is seen once, by volume then id, 8 at most a page, and a typo search pages too', async () => {
    const volumes = [500, 900, 900, 900, 120, 7000, 64, 900, 3, 3, 250, 1800, 900, 77, 41, 41, 5, 2000, 610, 88];
    await addMirrorMarkets(
      t.services.db,
      volumes.map((volume, i) => ({ id: `pg-${String(i).padStart(2, '0')}`, question: `Will the zanzibar paging market ${i} settle YES?`, volume })),
      Date.now(),
    );
    type M = { id: string };
    const expected = volumes
      .map((v, i) => ({ id: `pg-${String(i).padStart(2, '0')}`, v }))
      .sort((a, b) => b.v - a.v || (a.id < b.id ? -1 : 1))
      .map((m) => m.id);
    for (const [q, limit] of [
      ['zanzibar paging', 8],
      ['zanzibar', 3],
      ['zanzibr pagin', 8], // no word matches: trigrams, paged the same way
    ] as const) {
      const sizes: number[] = [];
      const { all } = await walk<M>('/api/search', { q, limit }, (b) => {
        sizes.push((b.markets as M[]).length);
        return b.markets as M[];
      });
      expect(all.map((m) => m.id)).toEqual(expected);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
    }
    const first = await t.api.get('/api/search').query({ q: 'zanzibar', limit: 8 });
    expect(first.body.markets).toHaveLength(8);
    // A cursor of another q, or none, is refused.
    for (const cursor of [...badCursors, first.body.nextCursor as string]) {
      const bad = await t.api.get('/api/search').query({ q: 'zanzibar market', cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });
});
