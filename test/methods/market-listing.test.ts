import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { addMirrorMarkets, type MirrorMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { listStatement } from '../../src/market-data/market-listing';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => new Date(NOW) };
const DAY = 86_400_000;

type Page = { markets: Array<{ id: string; endDate: string | null; status: string; category: string | null }>; nextCursor: string | null };

describe.each(backends())('list_markets and list_market_categories on $name', (backend) => {
  let t: TestApp;

  /** Markets a-01 … a-12 active (volume 100·i, ending in 13 − i days, created i days ago), plus closed, resolved, and oddities. */
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, background: false });
    const rows: MirrorMarket[] = [
      ...Array.from({ length: 12 }, (_, i) => ({
        id: `a-${String(i + 1).padStart(2, '0')}`,
        question: `Active market ${i + 1}?`,
        category: i % 3 === 0 ? 'Crypto' : 'Sports',
        volume: 100 * (i + 1),
      })),
      { id: 'c-1', question: 'Closed market?', category: 'Sports', volume: 1e6, status: 'closed' },
      { id: 'r-1', question: 'Resolved market?', category: 'Politics', volume: 5e5, status: 'resolved', winner: 'YES' },
    ];
    await addMirrorMarkets(t.services.db, rows, NOW);
    for (let i = 1; i <= 12; i += 1) {
      await t.services.db.query(`UPDATE markets SET end_date = $2, created_at = $3 WHERE id = $1`, [
        `a-${String(i).padStart(2, '0')}`,
        new Date(NOW + (13 - i) * DAY),
        new Date(NOW - i * DAY),
      ]);
    }
    // Same volume as a-12 (tie broken by id), and one with no volume, no end date and no category.
    await addMirrorMarkets(t.services.db, [{ id: 'a-tie', question: 'Tied market?', category: 'Sports', volume: 1200 }], NOW);
    await addMirrorMarkets(t.services.db, [{ id: 'a-bare', question: 'Bare market?', volume: 0 }], NOW);
    await t.services.db.query(`UPDATE markets SET volume = NULL, end_date = NULL, category = NULL WHERE id = 'a-bare'`);
  });
  afterAll(async () => t.close());

  const list = (query: Record<string, string | number>) => t.api.get('/api/markets').query(query);
  const ids = (body: Page) => body.markets.map((m) => m.id);

  /** Every page of a listing, following nextCursor. */
  async function walk(query: Record<string, string | number>): Promise<{ ids: string[]; pages: number }> {
    const all: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list({ ...query, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      all.push(...ids(res.body));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 50);
    return { ids: all, pages };
  }

  const byVolume = ['a-tie', 'a-12', 'a-11', 'a-10', 'a-09', 'a-08', 'a-07', 'a-06', 'a-05', 'a-04', 'a-03', 'a-02', 'a-01', 'a-bare'];

  test('when called with no input, then active markets come most traded first (ties by id, no volume last), 20 at most, in the search shape', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(byVolume);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.markets[1]).toMatchObject({
      id: 'a-12',
      slug: 'a-12-slug',
      category: 'Sports',
      volume: 1200,
      status: 'active',
      endDate: new Date(NOW + DAY).toISOString(),
      yesPrice: 0.4,
      outcomeTokens: [
        { outcome: 'YES', label: 'Yes', tokenId: 'a-12-yes' },
        { outcome: 'NO', label: 'No', tokenId: 'a-12-no' },
      ],
      simulated: true,
    });
    const search = await t.api.get('/api/search').query({ q: 'active market 12' });
    // The search shape, plus the 24 h move every listed market carries (null here: these markets have no snapshots).
    expect(res.body.markets[1]).toEqual({ ...search.body.markets.find((m: { id: string }) => m.id === 'a-12'), change24h: null });
  });

  test('when paging 3 at a time, then every active market comes exactly once, in order, and the last page has no cursor', async () => {
    const { ids: all, pages } = await walk({ limit: 3 });
    expect(all).toEqual(byVolume);
    expect(pages).toBe(5);
  });

  test('when a market is added between two pages, then the next page neither repeats nor skips a market it would have shown', async () => {
    const first = await list({ limit: 4 });
    expect(ids(first.body)).toEqual(byVolume.slice(0, 4));
    await addMirrorMarkets(t.services.db, [{ id: 'a-new', question: 'New big market?', category: 'Sports', volume: 1e9 }], NOW);
    try {
      const second = await list({ limit: 4, cursor: first.body.nextCursor });
      expect(ids(second.body)).toEqual(byVolume.slice(4, 8));
    } finally {
      await t.services.db.query(`DELETE FROM market_tokens WHERE market_id = 'a-new'`);
      await t.services.db.query(`DELETE FROM markets WHERE id = 'a-new'`);
    }
  });

  test('when sorted by ending, then the soonest end date comes first and a market without one comes last', async () => {
    const { ids: all } = await walk({ sort: 'ending', limit: 5 });
    // a-tie ends in 7 days (the fixture's default), like a-06; ties go by id.
    expect(all).toEqual(['a-12', 'a-11', 'a-10', 'a-09', 'a-08', 'a-07', 'a-06', 'a-tie', 'a-05', 'a-04', 'a-03', 'a-02', 'a-01', 'a-bare']);
  });

  test('when sorted by newest, then the most recently created comes first', async () => {
    const { ids: all } = await walk({ sort: 'newest', limit: 4 });
    // a-tie and a-bare were created 30 days before NOW, before every a-NN; their tie goes by id, descending like the sort.
    expect(all).toEqual(['a-01', 'a-02', 'a-03', 'a-04', 'a-05', 'a-06', 'a-07', 'a-08', 'a-09', 'a-10', 'a-11', 'a-12', 'a-tie', 'a-bare']);
  });

  test('when filtered by category and status, then only those markets come back, across pages', async () => {
    expect((await walk({ category: 'Crypto', limit: 2 })).ids).toEqual(['a-10', 'a-07', 'a-04', 'a-01']);
    expect(ids((await list({ status: 'closed' })).body)).toEqual(['c-1']);
    expect(ids((await list({ status: 'resolved' })).body)).toEqual(['r-1']);
    expect(ids((await list({ status: 'resolved', category: 'Sports' })).body)).toEqual([]);
    const res = await list({ status: 'resolved' });
    expect(res.body.markets[0]).toMatchObject({ status: 'resolved', winner: 'YES' });
  });

  test('when status is all, then the states are merged into one order and paged together', async () => {
    const { ids: all } = await walk({ status: 'all', limit: 3 });
    expect(all).toEqual(['c-1', 'r-1', ...byVolume]);
    const ending = await walk({ status: 'all', sort: 'ending', limit: 4 });
    expect(ending.ids).toHaveLength(16);
  });

  test.each([
    ['not base64 JSON', { cursor: '!!!' }],
    ['JSON of the wrong shape', { cursor: Buffer.from('{"x":1}').toString('base64url') }],
    ['a key that is not a number', { cursor: Buffer.from('{"s":"volume","k":"1; DROP","i":"a-01"}').toString('base64url') }],
    ['a cursor of another sort', { sort: 'ending', cursor: Buffer.from('{"s":"volume","k":"100","i":"a-01"}').toString('base64url') }],
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['an unknown sort', { sort: 'popular' }],
    ['an unknown status', { status: 'open' }],
  ])('when given %s, then 400 VALIDATION_ERROR', async (_label, query) => {
    const res = await list(query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  test('when a cursor of another sort is reused, then the error says to keep the sort', async () => {
    const first = await list({ limit: 2 });
    const res = await list({ sort: 'newest', cursor: first.body.nextCursor });
    expect(res.status).toBe(400);
    expect(res.body.hint).toContain('same sort');
  });

  test('when categories are listed, then each category with active markets comes with its count, most first, and the route is not a market slug', async () => {
    const res = await t.api.get('/api/markets/categories');
    expect(res.status).toBe(200);
    // Sports: 8 of a-01..a-12 plus a-tie; Crypto: 4; closed, resolved and uncategorised markets are not counted.
    expect(res.body).toEqual({
      categories: [
        { category: 'Sports', activeMarkets: 9 },
        { category: 'Crypto', activeMarkets: 4 },
      ],
    });
    expect((await t.api.get('/api/markets/a-12-slug')).body.id).toBe('a-12');
  });

  test('when called over JSON-RPC and MCP, then the result is the REST body', async () => {
    const rest = (await list({ category: 'Crypto', limit: 2 })).body;
    const rpc = await rpcCall(t, 'list_markets', { category: 'Crypto', limit: 2 });
    expect(rpc.result).toEqual(rest);
    const next = await rpcCall(t, 'list_markets', { category: 'Crypto', limit: 2, cursor: rest.nextCursor });
    expect(next.result.markets.map((m: { id: string }) => m.id)).toEqual(['a-04', 'a-01']);
    const mcp = await mcpCall(t, 'list_markets', { category: 'Crypto', limit: 2 });
    expect(mcp.result.structuredContent).toEqual(rest);
    const cats = await mcpCall(t, 'list_market_categories', {});
    expect(cats.result.structuredContent.categories[0]).toEqual({ category: 'Sports', activeMarkets: 9 });
    const bad = await rpcCall(t, 'list_markets', { cursor: 'nope' });
    expect(bad.error.data.code).toBe('VALIDATION_ERROR');
  });

  test.each([
    ['volume', {}, 'markets_list_volume_idx'],
    ['ending', {}, 'markets_list_ending_idx'],
    ['newest', {}, 'markets_list_newest_idx'],
    ['volume', { category: 'Sports' }, 'markets_list_category_volume_idx'],
    ['ending', { category: 'Sports' }, 'markets_list_category_ending_idx'],
    ['newest', { category: 'Sports' }, 'markets_list_category_newest_idx'],
  ])('when a page sorted by %s (%j) is planned without sequential scans, then it walks %s from the cursor', async (sort, filter, index) => {
    const q = { status: 'active' as const, sort: sort as 'volume', limit: 20, ...filter };
    const key = sort === 'volume' ? '500' : '2026-11-20 12:00:00+00';
    const { sql, params } = listStatement(q, { s: q.sort, k: key, i: 'a-05' });
    const plan = await t.services.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain(index);
    // The walk stops at the cursor by an index condition, not by filtering rows it has read.
    expect(text).toMatch(/Index Cond: .*ROW\(/);
  });
});
