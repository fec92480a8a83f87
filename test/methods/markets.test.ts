import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import type { Queryable } from '../../src/db/database';
import { SCAN_LIMIT } from '../../src/market-data/market-search';
import { FakePolymarket } from '../market-data/support/fake-polymarket';
import { addMirrorMarkets, type MirrorMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const clock = { now: () => new Date(NOW) };

/** Markets straight into the mirror, as of NOW. */
const addMarkets = (db: Queryable, rows: MirrorMarket[]) => addMirrorMarkets(db, rows, NOW);

const ids = (res: { body: { markets: Array<{ id: string }> } }) => res.body.markets.map((m) => m.id);

describe.each(backends())('market methods on $name', (backend) => {
  describe('search, odds and history over the mirror', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend, { clock, background: false });
      await addMarkets(t.services.db, [
        ...Array.from({ length: 12 }, (_, i) => ({
          id: `lal-${i + 1}`,
          question: `Will the Lakers win game ${i + 1} of the series?`,
          category: 'Sports',
          volume: 1000 * (i + 1),
        })),
        { id: 'lal-closed', question: 'Will the Lakers win the closed game?', category: 'Sports', volume: 1e9, status: 'closed' },
        { id: 'lal-resolved', question: 'Will the Lakers win the resolved game?', category: 'Sports', volume: 1e9, status: 'resolved', winner: 'YES' },
        { id: 'fed-1', question: 'Will the Fed cut interest rates in December?', category: 'Economics', volume: 500 },
        { id: 'btc-1', question: 'Will Bitcoin close above $150,000 on December 31?', category: 'Crypto', volume: 800 },
      ]);
    });
    afterAll(async () => t.close());

    test('when searching a word, then at most 8 active markets come back, highest volume first', async () => {
      const res = await t.api.get('/api/search').query({ q: 'lakers' });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(['lal-12', 'lal-11', 'lal-10', 'lal-9', 'lal-8', 'lal-7', 'lal-6', 'lal-5']);
      const m = res.body.markets[0];
      expect(m).toMatchObject({
        id: 'lal-12',
        slug: 'lal-12-slug',
        category: 'Sports',
        yesPrice: 0.4,
        noPrice: 0.6,
        volume: 12000,
        status: 'active',
        simulated: true,
      });
      expect(m.outcomeTokens).toEqual([
        { outcome: 'YES', label: 'Yes', tokenId: 'lal-12-yes' },
        { outcome: 'NO', label: 'No', tokenId: 'lal-12-no' },
      ]);
    });

    test('when a limit is given, then at most that many markets come back, still the highest volume first; outside 1..8 it is 400', async () => {
      const three = await t.api.get('/api/search').query({ q: 'lakers', limit: 3 });
      expect(three.status).toBe(200);
      expect(ids(three)).toEqual(['lal-12', 'lal-11', 'lal-10']);
      expect(ids(await t.api.get('/api/search').query({ q: 'lakers', limit: 8 }))).toHaveLength(8);
      for (const limit of [0, 9, 2.5]) {
        const bad = await t.api.get('/api/search').query({ q: 'lakers', limit });
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('VALIDATION_ERROR');
        expect(bad.body.details[0].path).toBe('limit');
      }
      const overRpc = await rpcCall(t, 'search_prediction_markets', { q: 'lakers', limit: 1 });
      expect(overRpc.result.markets.map((m: { id: string }) => m.id)).toEqual(['lal-12']);
      const overMcp = await mcpCall(t, 'search_prediction_markets', { q: 'lakers', limit: 2 });
      expect(overMcp.result.structuredContent.markets.map((m: { id: string }) => m.id)).toEqual(['lal-12', 'lal-11']);
    });

    test('when a word is partial, mixed-case, or one of several, then it still finds its market', async () => {
      expect(ids(await t.api.get('/api/search').query({ q: 'bitc' }))).toEqual(['btc-1']);
      expect(ids(await t.api.get('/api/search').query({ q: 'FED rat' }))).toEqual(['fed-1']);
      expect(ids(await t.api.get('/api/search').query({ q: 'lakers game 3' }))).toEqual(['lal-3']);
      expect(ids(await t.api.get('/api/search').query({ q: 'crypto' }))).toEqual(['btc-1']); // the category counts too
    });

    test('when no word matches but the query is close (a typo), then the trigram fallback finds it', async () => {
      expect(ids(await t.api.get('/api/search').query({ q: 'bitcoim' }))).toEqual(['btc-1']);
    });

    test('when q is shorter than 2 characters or has no word, then the list is empty; when q is missing, then 400', async () => {
      for (const q of ['', 'l', ' ', '!!']) {
        const res = await t.api.get('/api/search').query({ q });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ markets: [], nextCursor: null });
      }
      const missing = await t.api.get('/api/search');
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('VALIDATION_ERROR');
    });

    test('when a common word matches more than the scan window holds, then both passes of the plan still return the true top 8', async () => {
      // SCAN_LIMIT + 100 'alpha' markets outrank everything; 'omega' is in 3 of the top SCAN_LIMIT and 7 far below.
      const n = SCAN_LIMIT + 100;
      const alpha = Array.from({ length: n }, (_, i) => ({ id: `alpha-${i}`, question: `Alpha question ${i}`, volume: 1e6 + i }));
      for (const i of [5, 500, 900]) alpha[n - 1 - i]!.question += ' omega';
      const low = Array.from({ length: 7 }, (_, i) => ({ id: `omega-low-${i}`, question: `Omega question ${i}`, volume: 10 + i }));
      await addMarkets(t.services.db, [...alpha, ...low]);
      const top = await t.api.get('/api/search').query({ q: 'alpha' });
      expect(ids(top)).toEqual(Array.from({ length: 8 }, (_, i) => `alpha-${n - 1 - i}`));
      const omega = await t.api.get('/api/search').query({ q: 'omega' });
      expect(ids(omega)).toEqual([
        `alpha-${n - 6}`,
        `alpha-${n - 501}`,
        `alpha-${n - 901}`,
        'omega-low-6',
        'omega-low-5',
        'omega-low-4',
        'omega-low-3',
        'omega-low-2',
      ]);
      await t.services.db.query(`DELETE FROM market_tokens WHERE market_id LIKE 'alpha-%' OR market_id LIKE 'omega-%'`);
      await t.services.db.query(`DELETE FROM markets WHERE id LIKE 'alpha-%' OR id LIKE 'omega-%'`);
    });

    test('when the search backend fails, then 500 UPSTREAM_UNAVAILABLE without internals', async () => {
      await t.services.db.query('ALTER TABLE market_tokens RENAME TO market_tokens_away');
      try {
        const res = await t.api.get('/api/search').query({ q: 'lakers' });
        expect(res.status).toBe(500);
        expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(JSON.stringify(res.body)).not.toMatch(/market_tokens|relation|SELECT/i);
      } finally {
        await t.services.db.query('ALTER TABLE market_tokens_away RENAME TO market_tokens');
      }
    });

    test('when odds are read by id or slug, then the market comes with both books, their age and its status', async () => {
      const byId = await t.api.get('/api/markets/fed-1');
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({
        id: 'fed-1',
        question: 'Will the Fed cut interest rates in December?',
        status: 'active',
        winner: null,
        volume: 500,
        endDate: new Date(NOW + 7 * 86_400_000).toISOString(),
        // The simulated venue does not quote these hand-made tokens: the mirror's book is shown, with its age.
        odds: { yes: { bid: 0.395, ask: 0.405, mid: 0.4 }, no: { bid: 0.595, ask: 0.605, mid: 0.6 }, ageSeconds: 300, live: false, source: 'mirror' },
      });
      const bySlug = await t.api.get('/api/markets/fed-1-slug');
      expect(bySlug.body.id).toBe('fed-1');
    });

    test('when odds are read over JSON-RPC and MCP, then marketId and marketSlug name the market as paper_trade takes them', async () => {
      const byId = await rpcCall(t, 'get_market_odds', { marketId: 'fed-1' });
      expect(byId.result).toMatchObject({ id: 'fed-1', slug: 'fed-1-slug' });
      const bySlug = await mcpCall(t, 'get_market_odds', { marketSlug: 'fed-1-slug' });
      expect(bySlug.result.structuredContent).toMatchObject({ id: 'fed-1', slug: 'fed-1-slug' });
      const both = await rpcCall(t, 'get_market_odds', { marketId: 'fed-1', marketSlug: 'fed-1-slug' });
      expect(both.result.id).toBe('fed-1');
      // Each name means what it says: a slug sent as marketId, or an id sent as marketSlug, is no market.
      expect((await rpcCall(t, 'get_market_odds', { marketId: 'fed-1-slug' })).error.data.code).toBe('NOT_FOUND');
      expect((await mcpCall(t, 'get_market_odds', { marketSlug: 'fed-1' })).result.structuredContent.code).toBe('NOT_FOUND');
    });

    test('when the deprecated idOrSlug is sent, then it still reads the market by id or by slug, on every surface', async () => {
      expect((await rpcCall(t, 'get_market_odds', { idOrSlug: 'fed-1' })).result.id).toBe('fed-1');
      expect((await rpcCall(t, 'get_market_odds', { idOrSlug: 'fed-1-slug' })).result.id).toBe('fed-1');
      expect((await mcpCall(t, 'get_market_odds', { idOrSlug: 'btc-1-slug' })).result.structuredContent.id).toBe('btc-1');
      // On REST the path segment is that argument, and query identifiers must agree with it.
      expect((await t.api.get('/api/markets/btc-1').query({ marketSlug: 'btc-1-slug' })).body.id).toBe('btc-1');
      // The tool's schema says so, for clients that read it.
      const { result } = await t.api
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .then((r) => r.body as { result: { tools: Array<{ name: string; inputSchema: { properties: Record<string, { deprecated?: boolean }> } }> } });
      const props = result.tools.find((tool) => tool.name === 'get_market_odds')!.inputSchema.properties;
      expect(props.idOrSlug!.deprecated).toBe(true);
      expect(props.marketId!.deprecated).toBeUndefined();
      expect(props.marketSlug!.deprecated).toBeUndefined();
    });

    test('when no identifier is sent, or the identifiers name different markets, then 400 VALIDATION_ERROR', async () => {
      const none = await rpcCall(t, 'get_market_odds', {});
      expect(none.error.data).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'marketId' }] });
      const mixed = await rpcCall(t, 'get_market_odds', { marketId: 'fed-1', marketSlug: 'btc-1-slug' });
      expect(mixed.error.data.code).toBe('VALIDATION_ERROR');
      const restMixed = await t.api.get('/api/markets/fed-1').query({ marketId: 'btc-1' });
      expect(restMixed.status).toBe(400);
      expect(restMixed.body.code).toBe('VALIDATION_ERROR');
    });

    test('when a market has resolved, then its odds show the winner; an unknown market is 404', async () => {
      const res = await t.api.get('/api/markets/lal-resolved');
      expect(res.body).toMatchObject({ status: 'resolved', winner: 'YES', odds: { live: false } });
      const missing = await t.api.get('/api/markets/no-such-market');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
    });

    test('when the mirror holds snapshots for the whole range, then price history comes from it, bucketed per step', async () => {
      const points = Array.from({ length: 130 }, (_, i) => [new Date(NOW - i * 30_000).toISOString(), 400000 + i * 100] as const);
      await t.services.db.query(
        `INSERT INTO price_snapshots (token_id, t, price_micro) SELECT 'fed-1-yes', x.t, x.p FROM unnest($1::timestamptz[], $2::int8[]) AS x(t, p)`,
        [points.map((p) => p[0]), points.map((p) => p[1])],
      );
      const res = await t.api.get('/api/price-history').query({ tokenId: 'fed-1-yes', interval: '1h' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ tokenId: 'fed-1-yes', interval: '1h', resolutionSeconds: 60, source: 'mirror', simulated: true });
      const ts = res.body.history.map((p: { t: number }) => p.t);
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
      expect(res.body.history.length).toBeGreaterThanOrEqual(60);
      expect(res.body.history[res.body.history.length - 1]).toEqual({ t: NOW / 1000, p: 0.4 });
    });

    test('when tokenId is missing or the interval is unknown, then 400; when the token is unknown, then 404', async () => {
      const missing = await t.api.get('/api/price-history');
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('VALIDATION_ERROR');
      const bad = await t.api.get('/api/price-history').query({ tokenId: 'fed-1-yes', interval: '2h' });
      expect(bad.status).toBe(400);
      const unknown = await t.api.get('/api/price-history').query({ tokenId: 'nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOT_FOUND');
    });
  });

  describe('price history from the simulated venue', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend, { clock, background: false });
      await t.services.marketSync.runOnce();
    });
    afterAll(async () => t.close());

    test.each([
      ['1h', 60, 3600],
      ['6h', 300, 6 * 3600],
      ['1d', 900, 86_400],
      ['1w', 3600, 7 * 86_400],
      ['1m', 6 * 3600, 30 * 86_400],
    ])('when the interval is %s, then points every %i s cover the interval and end now', async (interval, step, span) => {
      const [row] = await t.services.db.query<{ token_id: string }>(
        `SELECT t.token_id FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.status = 'active' AND m.created_at < $1 ORDER BY m.volume DESC LIMIT 1`,
        [new Date(NOW - 40 * 86_400_000).toISOString()],
      );
      const res = await t.api.get('/api/price-history').query({ tokenId: row!.token_id, interval });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ interval, resolutionSeconds: step, source: 'simulated', simulated: true });
      const h: Array<{ t: number; p: number }> = res.body.history;
      expect(h.length).toBe(span / step + 1);
      for (let i = 1; i < h.length; i++) expect(h[i]!.t - h[i - 1]!.t).toBe(step);
      expect(h[h.length - 1]!.t).toBe(NOW / 1000);
      for (const p of h) expect(p.p > 0 && p.p < 1).toBe(true);
    });

    test('when a simulated market is read, then it carries the venue’s trading figures: 24 h volume within its volume, the 0.001 tick, last trade at the mirrored YES price', async () => {
      const [row] = await t.services.db.query<{ id: string }>(`SELECT id FROM markets WHERE status = 'active' ORDER BY volume DESC LIMIT 1`);
      const res = await t.api.get(`/api/markets/${row!.id}`);
      expect(res.status).toBe(200);
      const m = res.body;
      expect(m.volume24h).toBeGreaterThanOrEqual(0);
      expect(m.volume24h).toBeLessThanOrEqual(m.volume);
      expect(m.openInterest).toBeGreaterThan(0);
      expect(m).toMatchObject({ tickSize: 0.001, minOrderShares: 1 });
      // The mirrored YES price (the odds' own mid comes live and may be newer), rounded to the tick.
      const [tok] = await t.services.db.query<{ price_micro: string }>(`SELECT price_micro FROM market_tokens WHERE market_id = $1 AND outcome = 'YES'`, [
        row!.id,
      ]);
      expect(m.lastTradePrice).toBeCloseTo(Math.round(Number(tok!.price_micro) / 1000) / 1000, 6);
    });

    test('when no interval is given, then it is 1w; with max, then the points start at the market creation', async () => {
      const [row] = await t.services.db.query<{ token_id: string; created_at: Date }>(
        `SELECT t.token_id, m.created_at FROM market_tokens t JOIN markets m ON m.id = t.market_id WHERE m.status = 'active' ORDER BY m.created_at LIMIT 1`,
      );
      const def = await t.api.get('/api/price-history').query({ tokenId: row!.token_id });
      expect(def.body.interval).toBe('1w');
      const max = await t.api.get('/api/price-history').query({ tokenId: row!.token_id, interval: 'max' });
      const first = max.body.history[0].t;
      expect(first).toBeGreaterThanOrEqual(row!.created_at.getTime() / 1000);
      expect(first - row!.created_at.getTime() / 1000).toBeLessThanOrEqual(max.body.resolutionSeconds);
      expect(max.body.history.length).toBeLessThanOrEqual(302);
    });
  });

  describe('price history when the Polymarket feed is down', () => {
    let fake: FakePolymarket;
    let t: TestApp;
    const FED_YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
    beforeAll(async () => {
      fake = await new FakePolymarket().start();
      fake.histories.set(FED_YES, {
        history: [
          { t: Math.floor(Date.now() / 1000) - 7200, p: 0.51 },
          { t: Math.floor(Date.now() / 1000) - 3600, p: 0.52 },
        ],
      });
      t = await startTestApp(backend, { config: { MARKET_FEED: 'polymarket', POLYMARKET_GAMMA_URL: fake.url, POLYMARKET_CLOB_URL: fake.url } });
    });
    afterAll(async () => {
      await t.close();
      await fake.close();
    });

    test('when a mirrored market states its trading figures, then get_market_odds carries them as the venue said, on every surface', async () => {
      const figures = { volume24h: 21873.01, openInterest: null, lastTradePrice: 0.53, tickSize: 0.001, minOrderShares: 5 };
      const odds = await t.api.get('/api/markets/516710');
      expect(odds.status).toBe(200);
      expect(odds.body).toMatchObject(figures);
      const rpc = await rpcCall(t, 'get_market_odds', { marketId: '516710' });
      expect(rpc.result).toMatchObject(figures);
    });

    test('when the venue answers, then its points are served', async () => {
      const res = await t.api.get('/api/price-history').query({ tokenId: FED_YES, interval: '1d' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ source: 'polymarket', simulated: false });
      expect(res.body.history.map((p: { p: number }) => p.p)).toEqual([0.51, 0.52]);
    });

    test('when the venue is down, then the mirror’s own points serve; with none for the range, then 500 UPSTREAM_UNAVAILABLE', async () => {
      fake.fail('/prices-history', { kind: 'status', status: 500 });
      const partial = await t.api.get('/api/price-history').query({ tokenId: FED_YES, interval: '1d' });
      expect(partial.status).toBe(200);
      expect(partial.body.source).toBe('mirror');
      expect(partial.body.history).toHaveLength(1); // the snapshot taken by the start-up sync
      await t.services.db.query('DELETE FROM price_snapshots WHERE token_id = $1', [FED_YES]);
      const none = await t.api.get('/api/price-history').query({ tokenId: FED_YES, interval: '1d' });
      expect(none.status).toBe(500);
      expect(none.body.code).toBe('UPSTREAM_UNAVAILABLE');
    });
  });
});
