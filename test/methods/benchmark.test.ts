import { backends, type Backend } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';
import { seasonOf } from '../../src/domain/benchmark/seasons';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

type Row = { id: string; userId: string; seq: number; marketId: string; probabilities: number[]; mids: Array<number | null>; winner: number | null };

function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  const markets: SeededMarket[] = [];
  let sharp: { id: string; apiKey: string };
  let even: { id: string; apiKey: string };
  let few: { id: string; apiKey: string };
  const N = MIN_RESOLVED_MARKETS + 2; // 32: 24 resolve YES, 8 NO

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
    sharp = await registerAgent(t, 'Sharp');
    even = await registerAgent(t, 'Even');
    few = await registerAgent(t, 'Few');
    for (let i = 0; i < N; i++) {
      const m = await seedMarket(t.services.db);
      await moveQuote(t.services.db, prices, m.yes, 0.59, 0.61); // mid 0.60
      markets.push(m);
    }
    const state = (key: string, m: SeededMarket, probability: number) =>
      t.api.post('/api/forecasts').set(bearer(key)).send({ marketId: m.id, probability }).expect(200);
    for (const m of markets) {
      await state(sharp.apiKey, m, 0.55); // replaced below: only the final forecast counts as final
      await state(sharp.apiKey, m, 0.7);
      await state(even.apiKey, m, 0.5);
    }
    for (const m of markets.slice(0, 5)) await state(few.apiKey, m, 0.9);
    for (const [i, m] of markets.entries()) await resolveMarket(t.services.db, m.id, i < 24 ? 'YES' : 'NO');
    await t.services.benchmarkFolder.runOnce(new Date());
    // Some 200 calls and a fold: a minute is not always enough on a loaded machine.
  }, 240_000);
  afterAll(() => t.close());

  const record = async (userId: string, season = 'all') => {
    const res = await t.api.get('/api/benchmark/record').query({ userId, season });
    expect(res.status).toBe(200);
    return res.body;
  };

  test('when an agent states forecasts and its markets resolve, then its record shows Brier, log score and alpha against the market with n and an interval', async () => {
    const r = await record(sharp.id);
    // Final forecasts 0.7; market mid 0.6 at each. YES: (0.7−1)² = 0.09, NO: 0.7² = 0.49 → (24·0.09 + 8·0.49)/32 = 6.08/32 = 0.19.
    // The market: YES (0.6−1)² = 0.16, NO 0.36 → (24·0.16 + 8·0.36)/32 = 6.72/32 = 0.21. alpha = 0.21 − 0.19 = 0.02.
    expect(r.forecasts.questions).toBe(N);
    expect(r.forecasts.brier.value).toBeCloseTo(0.19, 10);
    expect(r.forecasts.brier.n).toBe(N);
    expect(r.forecasts.marketBrier.value).toBeCloseTo(0.21, 10);
    expect(r.forecasts.alpha.value).toBeCloseTo(0.02, 10);
    expect(r.forecasts.alpha.low).toBeLessThanOrEqual(0.02);
    expect(r.forecasts.alpha.high).toBeGreaterThanOrEqual(0.02);
    // Log: (24·ln 0.7 + 8·ln 0.3)/32.
    expect(r.forecasts.logScore.value).toBeCloseTo((24 * Math.log(0.7) + 8 * Math.log(0.3)) / 32, 10);
    expect(r.resolvedMarkets).toBe(N);
    expect(r.ranked).toBe(true);
    expect(r.minimumMarkets).toBe(MIN_RESOLVED_MARKETS);
    expect(r.computedAt).not.toBeNull();
    expect(r.season).toBe('all');
    // The same record for the month the markets resolved in.
    expect((await record(sharp.id, seasonOf(new Date()))).forecasts.brier.value).toBeCloseTo(0.19, 10);
  });

  test('when the boards rank a season, then only accounts with the minimum of resolved markets are ranked, and the caller sees its own place', async () => {
    const res = await t.api.get('/api/benchmark/leaderboard').set(bearer(few.apiKey)).query({ season: 'all', metric: 'alpha', audience: 'bots' });
    expect(res.status).toBe(200);
    // Even states 0.5: Brier 0.25 everywhere, alpha = 0.21 − 0.25 = −0.04.
    expect(res.body.entries.map((e: { userId: string }) => e.userId)).toEqual([sharp.id, even.id]);
    expect(res.body.entries[1].figure.value).toBeCloseTo(-0.04, 10);
    expect(res.body.minimumMarkets).toBe(MIN_RESOLVED_MARKETS);
    expect(res.body.you).toMatchObject({ rank: null, resolvedMarkets: 5 });
    // Scoring v1's ranking figures (docs/scoring.md): 32 markets is under 100, so both rows are provisional; n ≥ 30, so
    // the shrunk alpha is the alpha; Sharp's per-market alpha is 0.07 (24 YES) or −0.13 (8 NO), whose detectable edge is
    // (1.96 + 0.84) s / √32; the ranks each interval allows hold the row's own rank within the board's 2 rows.
    expect(res.body.rankedRows).toBe(2);
    const [top, second] = res.body.entries;
    expect(top).toMatchObject({ provisional: true, shrunkAlpha: expect.closeTo(0.02, 10) });
    expect(second.shrunkAlpha).toBeCloseTo(-0.04, 10);
    const alphas = [...Array<number>(24).fill(0.07), ...Array<number>(8).fill(-0.13)];
    const sd = Math.sqrt(alphas.reduce((a, x) => a + (x - 0.02) ** 2, 0) / 31);
    expect(top.minimumDetectableEdge).toBeCloseTo(((1.959963984540054 + 0.8416212335729143) * sd) / Math.sqrt(32), 10);
    for (const [i, e] of res.body.entries.entries()) expect(e.rankLow <= i + 1 && i + 1 <= e.rankHigh && e.rankHigh <= 2).toBe(true);
    // Holm over two rows: the smaller p doubled, and Sharp (better than the market) the smaller.
    expect(top.pValue).toBeLessThan(second.pValue);
    expect(second.pValue).toBeLessThanOrEqual(1);
    const brier = await t.api.get('/api/benchmark/leaderboard').set(bearer(even.apiKey)).query({ season: 'all', metric: 'brier', audience: 'everyone' });
    expect(brier.body.entries.map((e: { userId: string }) => e.userId)).toEqual([sharp.id, even.id]);
    expect(brier.body.you.rank).toBe(2);
    const people = await t.api.get('/api/benchmark/leaderboard').query({ season: 'all', audience: 'all' });
    expect(people.body.entries).toEqual([]);
    expect(people.body.you).toBeNull();
  });

  test("when a caller is below the board's rows, then their place is found among the season's figures, a tie counted by the database, and another process's record shows within the bound", async () => {
    const board = (key: string) =>
      t.api.get('/api/benchmark/leaderboard').set(bearer(key)).query({ season: 'all', metric: 'brier', audience: 'everyone', limit: 1 });
    const below = await board(even.apiKey);
    expect(below.body.entries.map((e: { userId: string }) => e.userId)).toEqual([sharp.id]);
    expect(below.body.you).toMatchObject({ rank: 2, resolvedMarkets: N });
    expect(below.body.you.figure.value).toBeCloseTo(0.25, 10);
    // Another process writes a record with Even's very figures (a twin): nothing here invalidates; the benchmark's
    // change counter moves, so within twice the cache's second both see the tie, broken by id.
    const twin = await registerAgent(t, 'Twin');
    await t.services.db.query(
      `INSERT INTO benchmark_records (user_id, season, audience, resolved_markets, alpha, brier, log_score, clv, sharpe, return, max_drawdown, record, computed_at)
       SELECT $1, season, audience, resolved_markets, alpha, brier, log_score, clv, sharpe, return, max_drawdown, record, computed_at
       FROM benchmark_records WHERE user_id = $2`,
      [twin.id, even.id],
    );
    try {
      const evenFirst = even.id < twin.id;
      const deadline = Date.now() + 3000;
      let seen = below;
      while (seen.body.you.rank === 2 && !evenFirst && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        seen = await board(even.apiKey);
      }
      expect(seen.body.you.rank).toBe(evenFirst ? 2 : 3);
      let twinSeen = await board(twin.apiKey);
      while (twinSeen.body.you.rank === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        twinSeen = await board(twin.apiKey);
      }
      expect(twinSeen.body.you.rank).toBe(evenFirst ? 3 : 2);
    } finally {
      await t.services.db.query('DELETE FROM benchmark_records WHERE user_id = $1', [twin.id]);
      t.services.benchmark.invalidate();
    }
  });

  test('when anyone exports the season, then the forecasts and outcomes recompute the record (JSON, JSON lines, CSV)', async () => {
    const rows: Row[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.api.get('/api/benchmark/forecasts').query({ season: 'all', limit: 25, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      rows.push(...res.body.forecasts);
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(rows).toHaveLength(N * 3 + 5);
    // Recompute Sharp's final Brier and alpha from the export alone: the newest forecast per market.
    const finals = new Map<string, Row>();
    for (const r of rows.filter((x) => x.userId === sharp.id)) if ((finals.get(r.marketId)?.seq ?? 0) < r.seq) finals.set(r.marketId, r);
    const brier = [...finals.values()].map((r) => (r.probabilities[0]! - r.winner!) ** 2);
    const market = [...finals.values()].map((r) => (r.mids[0]! - r.winner!) ** 2);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const r = await record(sharp.id);
    expect(mean(brier)).toBeCloseTo(r.forecasts.brier.value, 10);
    expect(mean(market) - mean(brier)).toBeCloseTo(r.forecasts.alpha.value, 10);

    // Every page of a text format (a page holds at most 100 rows), each page's lines.
    const textPages = async (format: 'jsonl' | 'csv') => {
      const pages: string[][] = [];
      let next: string | undefined;
      do {
        const res = await t.api.get('/api/benchmark/forecasts').query({ season: 'all', limit: 100, format, ...(next ? { cursor: next } : {}) });
        expect(res.status).toBe(200);
        pages.push((res.body.text as string).trimEnd().split('\n'));
        next = res.body.nextCursor ?? undefined;
      } while (next);
      return pages;
    };
    const lines = (await textPages('jsonl')).flat();
    expect(lines).toHaveLength(rows.length);
    expect(JSON.parse(lines[0]!)).toEqual(rows[0]);
    // Each CSV page starts with the header line.
    const csvPages = await textPages('csv');
    for (const page of csvPages) expect(page[0]).toBe(csvPages[0]![0]);
    const csvLines = [csvPages[0]![0]!, ...csvPages.flatMap((page) => page.slice(1))];
    expect(csvLines[0]).toBe('id,userId,audience,seq,marketId,venue,source,createdAt,probabilities,mids,rationale,winner,closedAt,resolvedAt,hash,prevHash');
    expect(csvLines).toHaveLength(rows.length + 1);
    // A one-element array has no comma, so it goes unquoted (RFC 4180 quotes only fields that need it).
    expect(csvLines[1]!.split(',')).toEqual([
      rows[0]!.id,
      rows[0]!.userId,
      'agents',
      String(rows[0]!.seq),
      rows[0]!.marketId,
      'mirrored',
      'stated',
      expect.any(String),
      `[${rows[0]!.probabilities[0]}]`,
      `[${rows[0]!.mids[0]}]`,
      '',
      '1',
      expect.any(String),
      expect.any(String),
      expect.any(String),
      '',
    ]);
  });

  test('when the record is read on JSON-RPC and MCP, then it is the same record', async () => {
    const rest = await record(sharp.id);
    const rpc = await rpcCall(t, 'get_benchmark_record', { userId: sharp.id, season: 'all' });
    expect(rpc.result).toEqual(rest);
    const mcp = await mcpCall(t, 'get_benchmark_record', { userId: sharp.id, season: 'all' });
    expect(mcp.result.structuredContent).toEqual(rest);
  });

  test('when the boards are indexed, then each index holds exactly the ranked rows (its predicate is the minimum the boards apply)', async () => {
    const rows = await t.services.db.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'benchmark_records' AND indexname LIKE 'benchmark_records_%' AND indexname NOT IN ('benchmark_records_user', 'benchmark_records_pkey')`,
    );
    expect(rows).toHaveLength(7);
    for (const r of rows) expect([r.indexname, r.indexdef]).toEqual([r.indexname, expect.stringContaining(`resolved_markets >= ${MIN_RESOLVED_MARKETS}`)]);
  });

  test('when the queue is longer than a run may take, then the run scores one batch and leaves the rest queued for the next', async () => {
    const db = t.services.db;
    await db.query(
      `INSERT INTO users (id, email, password_hash, display_name, referral_code)
       SELECT gen_random_uuid(), 'queued-' || i || '@example.com', 'x', 'Queued ' || i, 'QUEUE' || i FROM generate_series(1, 150) i`,
    );
    await db.query(`INSERT INTO benchmark_dirty (user_id, season) SELECT id, 'all' FROM users WHERE email LIKE 'queued-%'`);
    const first = await t.services.benchmarkFolder.runOnce(new Date(), 0);
    expect(first.scored).toBe(100);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM benchmark_dirty'))[0]!.n).toBe(50);
    const second = await t.services.benchmarkFolder.runOnce(new Date(), 0);
    expect(second.scored).toBe(50);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM benchmark_dirty'))[0]!.n).toBe(0);
  });

  test('when an account has nothing resolved, or a season is malformed, then the record is empty or the call is refused', async () => {
    const fresh = await registerAgent(t, 'Fresh');
    const r = await record(fresh.id);
    expect(r).toMatchObject({ computedAt: null, resolvedMarkets: 0, ranked: false });
    expect(r.forecasts.brier).toEqual({ value: null, n: 0, low: null, high: null });
    for (const season of ['2026-13', 'alltime', '1999-01']) {
      const bad = await t.api.get('/api/benchmark/record').query({ userId: fresh.id, season });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await t.api.get('/api/benchmark/record').query({ userId: 'nope' })).status).toBe(404);
    expect((await t.api.get('/api/benchmark/record').set(bearer(fresh.apiKey))).body.userId).toBe(fresh.id);
  });

  // Last: it renames and deletes the suite's accounts. Records and boards are served from memory between folds; what
  // this process writes must show at once all the same.
  test('when a ranked account is renamed, folded again or deleted, then its record and the boards show it at once', async () => {
    const board = async () =>
      (await t.api.get('/api/benchmark/leaderboard').set(bearer(sharp.apiKey)).query({ season: 'all', metric: 'brier', audience: 'bots' })).body;
    const before = await board();
    expect(before.entries.map((e: { userId: string }) => e.userId)).toEqual([sharp.id, even.id]);
    expect((await record(even.id)).displayName).not.toBe('Renamed Even');
    expect((await t.api.post('/api/user/profile').set(bearer(even.apiKey)).send({ displayName: 'Renamed Even' })).status).toBe(200);
    expect((await board()).entries[1].displayName).toBe('Renamed Even');
    expect((await record(even.id)).displayName).toBe('Renamed Even');

    // A fold that changes a figure (here, a record rewritten and requeued) shows on the next read.
    const computedAt = (await record(sharp.id)).computedAt;
    await t.services.benchmarkFolder.requeue(sharp.id, 'all');
    await t.services.benchmarkFolder.runOnce(new Date(Date.now() + 60_000));
    expect((await record(sharp.id)).computedAt).not.toBe(computedAt);

    expect((await board()).entries).toHaveLength(2);
    expect((await record(even.id)).userId).toBe(even.id);
    expect((await t.api.post('/api/user/delete').set(bearer(even.apiKey)).send({ password: 'password123' })).status).toBe(200);
    const after = await board();
    expect(after.entries.map((e: { userId: string }) => e.userId)).toEqual([sharp.id]);
    expect(after.you.rank).toBe(1);
    expect((await t.api.get('/api/benchmark/record').query({ userId: even.id, season: 'all' })).status).toBe(404);
  });

  test('when a reference forecaster has nothing resolved yet, then every board names it with its resolved markets, ranked ones with theirs', async () => {
    const boardOf = async (season: string, audience: string) =>
      (await t.api.get('/api/benchmark/leaderboard').query({ season, metric: 'alpha', audience })).body as {
        entries: { userId: string }[];
        references: { userId: string; displayName: string; reference: string; resolvedMarkets: number }[];
      };
    expect((await boardOf('all', 'everyone')).references).toEqual([]);
    // A new account flagged as a reference, as the reference forecasters flag theirs (reference-accounts.ts), and the
    // ranked Sharp flagged too: one with nothing resolved, one with every market.
    const fresh = await registerAgent(t, 'Reference: coin flip');
    await t.services.db.query(`UPDATE users SET reference = 'coin_flip' WHERE id = $1`, [fresh.id]);
    await t.services.db.query(`UPDATE users SET reference = 'market' WHERE id = $1`, [sharp.id]);
    // Flagged here in SQL, past the service: its kept boards start over as they do after any change they watch.
    t.services.benchmark.invalidate();
    for (const audience of ['everyone', 'all', 'bots', 'reference']) {
      for (const season of ['all', seasonOf(new Date())]) {
        const board = await boardOf(season, audience);
        // In the order of their kinds' names: coin_flip, favourite, market.
        expect(board.references).toEqual([
          { userId: fresh.id, displayName: expect.stringMatching(/^Reference: coin flip/), reference: 'coin_flip', resolvedMarkets: 0 },
          { userId: sharp.id, displayName: expect.stringMatching(/^Sharp/), reference: 'market', resolvedMarkets: N },
        ]);
        expect(board.entries.map((e) => e.userId)).not.toContain(fresh.id);
      }
    }
  });
}

describe.each(backends())('forecasting benchmark on $name', suite);
