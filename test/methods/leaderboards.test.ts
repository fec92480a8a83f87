import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, MINUTE } from '../support/identity';
import { ControlledPrices, seedMarket } from '../support/markets';
import { agentTrader, buy, personTrader, sell, setClock, settle, type Trader } from '../support/traders';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

interface Row {
  rank: number;
  user: { id: string; displayName: string; level: number; badges: Array<{ icon: string; name: string }> };
  value: number;
  isCurrentUser?: boolean;
}

describe.each(backends())('leaderboards, trader stats and reputation on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });

  const board = async (q: Record<string, string | number>, who?: Trader) => {
    const req = t.api.get('/api/leaderboard').query(q);
    const res = await (who ? req.set(who.headers) : req);
    expect(res.status).toBe(200);
    return res.body as { period: string; metric: string; audience: string; periodStart: string | null; leaderboard: Row[]; currentUserRank: number | null };
  };
  // Past the cache tests, what a test asks is the boards' figures, not how fast the fold is: each read waits for this
  // process's fold (a loaded database may take longer than the quarter second a board read waits for it, READ_WAIT_MS;
  // the cache tests cover that path).
  const foldedBoard = async (q: Record<string, string | number>, who?: Trader) => {
    await t.services.trackRecord.folder.beforeRead(10_000);
    return board(q, who);
  };
  const valueOf = (b: { leaderboard: Row[] }, who: Trader) => b.leaderboard.find((r) => r.user.id === who.id)?.value;
  const ids = (b: { leaderboard: Row[] }) => b.leaderboard.map((r) => r.user.id);

  describe('the boards cache', () => {
    test('when a trade, a sale or a settlement commits in this process, then the very next read of the same board shows it', async () => {
      setClock(clock, '2031-01-15T12:00:00Z');
      const m = await seedMarket(t.services.db);
      const a = await agentTrader(t);
      const q = { period: 'weekly', metric: 'volume', audience: 'bots', limit: 100 };
      const before = await board(q);
      expect(valueOf(before, a)).toBeUndefined();
      const pos = await buy(t, prices, a, m, 'YES', 30, 0.5);
      expect(valueOf(await board(q), a)).toBe(30);
      await sell(t, prices, a, m, 'YES', pos.positionId, 0.5, 10);
      expect(valueOf(await board(q), a)).toBe(35);
      const pnl = { period: 'weekly', metric: 'pnl', audience: 'bots', limit: 100 };
      const beforeSettle = valueOf(await board(pnl), a);
      await settle(t, m, 'YES'); // 50 shares left, cost 25: +25 realized
      expect(valueOf(await board(pnl), a)).toBe((beforeSettle ?? 0) + 25);
    });

    test('when another process writes to the shared database, then the board shows it within two seconds', async () => {
      setClock(clock, '2031-01-22T12:00:00Z');
      const m = await seedMarket(t.services.db);
      const a = await agentTrader(t);
      await buy(t, prices, a, m, 'YES', 10, 0.5);
      const q = { period: 'alltime', metric: 'trades', audience: 'bots', limit: 100 };
      const first = valueOf(await board(q), a)!;
      // What another gateway process's trade does to the aggregate row, without this process knowing.
      await t.services.db.query('UPDATE trader_activity SET a_trades = a_trades + 1 WHERE user_id = $1', [a.id]);
      // Within its first second the board is reused as it was.
      expect(valueOf(await board(q), a)).toBe(first);
      await new Promise((r) => setTimeout(r, 1100));
      // Past it, the first request may still get it while one read replaces it; the requests after it do not.
      expect([first, first + 1]).toContain(valueOf(await board(q), a));
      await new Promise((r) => setTimeout(r, 400));
      expect(valueOf(await board(q), a)).toBe(first + 1);
    });
  });

  test('when agents and people trade, then audience all ranks people only, bots agents only, and everyone both', async () => {
    setClock(clock, '2030-02-13T12:00:00Z');
    const m = await seedMarket(t.services.db);
    const a = await agentTrader(t);
    const b = await agentTrader(t);
    const p = await personTrader(t);
    await buy(t, prices, a, m, 'YES', 100, 0.5);
    await buy(t, prices, p, m, 'YES', 50, 0.5);
    await buy(t, prices, b, m, 'NO', 20, 0.5);
    const all = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'all' });
    const bots = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' });
    const everyone = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone' });
    expect(all.leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([[1, p.id, 50]]);
    expect(bots.leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([
      [1, a.id, 100],
      [2, b.id, 20],
    ]);
    expect(everyone.leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([
      [1, a.id, 100],
      [2, p.id, 50],
      [3, b.id, 20],
    ]);
    // Defaults: weekly, pnl, people only. The pnl board lists traders who realized something (sold or settled).
    const defaults = await foldedBoard({});
    expect(defaults).toMatchObject({ period: 'weekly', metric: 'pnl', audience: 'all', periodStart: '2030-02-11T00:00:00.000Z', leaderboard: [] });
    const pos = await buy(t, prices, p, m, 'NO', 10, 0.5);
    await sell(t, prices, p, m, 'NO', pos.positionId, 0.6);
    expect((await foldedBoard({})).leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([[1, p.id, 2]]);
  });

  test('pnl is realized PnL of sales and settlements; volume is dollars bought and sold; trades counts buys and sells — and the stats agree', async () => {
    setClock(clock, '2030-02-06T12:00:00Z');
    const [m1, m2, m3] = [await seedMarket(t.services.db), await seedMarket(t.services.db), await seedMarket(t.services.db)];
    const a = await agentTrader(t);
    const p1 = await buy(t, prices, a, m1, 'YES', 100, 0.5); // 200 shares
    clock.advance(MINUTE);
    await sell(t, prices, a, m1, 'YES', p1.positionId, 0.6, 100); // proceeds 60, realized +10
    await buy(t, prices, a, m2, 'YES', 50, 0.5); // 100 shares, then marked up to 0.9: +40 unrealized, not pnl
    await t.services.db.query('UPDATE market_tokens SET price_micro = 900000 WHERE token_id = $1', [m2.yes]);
    await buy(t, prices, a, m3, 'NO', 40, 0.4); // 100 shares
    clock.advance(MINUTE);
    await settle(t, m3, 'NO'); // payout 100, realized +60; a settlement is neither volume nor a trade

    for (const period of ['weekly', 'monthly', 'alltime']) {
      expect(valueOf(await foldedBoard({ period, metric: 'pnl', audience: 'bots' }), a)).toBe(70);
      expect(valueOf(await foldedBoard({ period, metric: 'volume', audience: 'bots' }), a)).toBe(250);
      expect(valueOf(await foldedBoard({ period, metric: 'trades', audience: 'bots' }), a)).toBe(4);
    }
    const stats = await t.api.get('/api/user/stats').query({ userId: a.id });
    expect(stats.status).toBe(200);
    expect(stats.body.stats).toEqual({
      balance: 970,
      totalPnl: 70,
      unrealizedPnl: 40,
      totalTrades: 4,
      totalVolume: 250,
      winRate: 100, // the sale and the settlement both realized a profit
      accuracy: 100,
      settledPositions: 1,
      weeklyPnl: 70,
      monthlyPnl: 70,
    });
    expect(stats.body.user).toMatchObject({ id: a.id, isAgent: true });
    expect(stats.body.level).toEqual({ current: 1, title: 'Novice', xp: 65, progress: 0.65, xpToNext: 35 }); // 4 trades × 10 + 1 win × 25
    expect(stats.body.badges.map((b: { name: string }) => b.name)).toEqual(['First Trade', 'In the Green', 'Called It']);
    for (const b of stats.body.badges)
      expect(b).toEqual({ icon: expect.any(String), name: expect.any(String), description: expect.any(String), earnedAt: expect.any(String) });
  });

  test('periods are UTC calendar periods: weekly from Monday 00:00, monthly from the 1st; alltime keeps everything', async () => {
    const m = await seedMarket(t.services.db);
    const x = await agentTrader(t);
    setClock(clock, '2030-03-31T23:59:59Z'); // a Sunday, the last second of March
    await buy(t, prices, x, m, 'YES', 10, 0.5);
    setClock(clock, '2030-04-01T00:00:00Z'); // Monday and the 1st: a new week and a new month
    const weekly = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' }, x);
    expect(weekly.periodStart).toBe('2030-04-01T00:00:00.000Z');
    expect(weekly.currentUserRank).toBeNull();
    expect((await foldedBoard({ period: 'monthly', metric: 'volume', audience: 'bots' }, x)).currentUserRank).toBeNull();
    expect(valueOf(await foldedBoard({ period: 'alltime', metric: 'volume', audience: 'bots' }, x), x)).toBe(10);
    expect((await foldedBoard({ period: 'alltime', metric: 'volume', audience: 'bots' })).periodStart).toBeNull();
    await buy(t, prices, x, m, 'YES', 20, 0.5);
    expect(valueOf(await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' }), x)).toBe(20);
    expect(valueOf(await foldedBoard({ period: 'monthly', metric: 'volume', audience: 'bots' }), x)).toBe(20);
    expect(valueOf(await foldedBoard({ period: 'alltime', metric: 'volume', audience: 'bots' }), x)).toBe(30);

    const y = await agentTrader(t);
    setClock(clock, '2030-04-30T10:00:00Z'); // Tuesday of the week that began Monday 29 April
    await buy(t, prices, y, m, 'YES', 5, 0.5);
    setClock(clock, '2030-05-01T10:00:00Z'); // same week, new month
    await buy(t, prices, y, m, 'YES', 7, 0.5);
    const w = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' });
    const mo = await foldedBoard({ period: 'monthly', metric: 'volume', audience: 'bots' });
    expect(w.periodStart).toBe('2030-04-29T00:00:00.000Z');
    expect(mo.periodStart).toBe('2030-05-01T00:00:00.000Z');
    expect(valueOf(w, y)).toBe(12);
    expect(valueOf(mo, y)).toBe(7);
  });

  test('accuracy is the percent of settled positions on the winning side, ranked only from 5 settled; void markets do not count', async () => {
    setClock(clock, '2030-02-20T12:00:00Z');
    const ms = [];
    for (let i = 0; i < 6; i += 1) ms.push(await seedMarket(t.services.db));
    const [a, b, c] = [await agentTrader(t), await agentTrader(t), await agentTrader(t)];
    for (let i = 0; i < 5; i += 1) await buy(t, prices, a, ms[i]!, 'YES', 10, 0.5);
    for (let i = 0; i < 4; i += 1) await buy(t, prices, b, ms[i]!, 'YES', 10, 0.5);
    for (let i = 0; i < 5; i += 1) await buy(t, prices, c, ms[i]!, 'NO', 10, 0.5);
    await buy(t, prices, c, ms[5]!, 'YES', 10, 0.5);
    for (let i = 0; i < 4; i += 1) await settle(t, ms[i]!, 'YES');
    await settle(t, ms[4]!, 'NO');
    await settle(t, ms[5]!, 'VOID');
    const acc = await foldedBoard({ period: 'weekly', metric: 'accuracy', audience: 'bots' }, b);
    // a: 4 of 5; c: 1 of 5 (the void one is not a forecast); b: 4 of 4 is only 4 settled, so unranked.
    expect(acc.leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([
      [1, a.id, 80],
      [2, c.id, 20],
    ]);
    expect(acc.currentUserRank).toBeNull();
    const stats = await t.api.get('/api/user/stats').query({ userId: b.id });
    expect(stats.body.stats).toMatchObject({ accuracy: 100, settledPositions: 4 });
  });

  test('ties share a rank and the next rank skips (1, 2, 2, 4); equal values are listed by user id; currentUserRank is the same rank', async () => {
    setClock(clock, '2030-02-27T12:00:00Z');
    const m = await seedMarket(t.services.db);
    const [w, x, y, z] = [await agentTrader(t), await agentTrader(t), await agentTrader(t), await agentTrader(t)];
    await buy(t, prices, w, m, 'YES', 50, 0.5);
    await buy(t, prices, x, m, 'YES', 30, 0.5);
    await buy(t, prices, y, m, 'NO', 30, 0.5);
    await buy(t, prices, z, m, 'YES', 10, 0.5);
    const tied = [x.id, y.id].sort();
    const vol = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' });
    expect(vol.leaderboard.map((r) => [r.rank, r.user.id, r.value])).toEqual([
      [1, w.id, 50],
      [2, tied[0], 30],
      [2, tied[1], 30],
      [4, z.id, 10],
    ]);
    const trades = await foldedBoard({ period: 'weekly', metric: 'trades', audience: 'bots' });
    expect(trades.leaderboard.map((r) => r.rank)).toEqual([1, 1, 1, 1]);
    expect(ids(trades)).toEqual([w.id, x.id, y.id, z.id].sort());
    expect((await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots' }, y)).currentUserRank).toBe(2);
  });

  test('an authenticated caller gets currentUserRank even outside the top limit and isCurrentUser on its row; anonymous or unranked callers get null', async () => {
    setClock(clock, '2030-03-13T12:00:00Z');
    const m = await seedMarket(t.services.db);
    const [a, b, c] = [await agentTrader(t), await agentTrader(t), await agentTrader(t)];
    const p = await personTrader(t);
    await buy(t, prices, a, m, 'YES', 30, 0.5);
    await buy(t, prices, b, m, 'YES', 20, 0.5);
    await buy(t, prices, c, m, 'YES', 10, 0.5);
    await buy(t, prices, p, m, 'YES', 5, 0.5);
    const outside = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone', limit: 2 }, c);
    expect(ids(outside)).toEqual([a.id, b.id]);
    expect(outside.currentUserRank).toBe(3);
    expect(outside.leaderboard.every((r) => r.isCurrentUser === false)).toBe(true);
    const inside = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone' }, b);
    expect(inside.currentUserRank).toBe(2);
    expect(inside.leaderboard.filter((r) => r.isCurrentUser).map((r) => r.user.id)).toEqual([b.id]);
    const bySession = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone' }, p);
    expect(bySession.currentUserRank).toBe(4);
    expect((await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'all' }, p)).currentUserRank).toBe(1);
    const anonymous = await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone' });
    expect(anonymous.currentUserRank).toBeNull();
    expect(anonymous.leaderboard.every((r) => r.isCurrentUser === undefined)).toBe(true);
    // An agent is not on the people's board, and an account with no trade this week is on no board.
    expect((await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'all' }, a)).currentUserRank).toBeNull();
    const idle = await agentTrader(t);
    expect((await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'everyone' }, idle)).currentUserRank).toBeNull();
  });

  test("each row carries the trader's level and badges", async () => {
    setClock(clock, '2030-03-20T12:00:00Z');
    const m = await seedMarket(t.services.db);
    const l = await agentTrader(t);
    for (let i = 0; i < 10; i += 1) {
      await buy(t, prices, l, m, 'YES', 1, 0.5);
      clock.advance(MINUTE);
    }
    const row = (await foldedBoard({ period: 'weekly', metric: 'trades', audience: 'bots' })).leaderboard.find((r) => r.user.id === l.id)!;
    expect(row.value).toBe(10);
    expect(row.user.level).toBe(2); // 10 trades × 10 XP = 100 XP
    expect(row.user.badges).toEqual([
      { icon: '🎯', name: 'First Trade' },
      { icon: '📈', name: 'Active Trader' },
    ]);
    expect(row.user.displayName).toMatch(/^Bot/);
  });

  test('XP and badges earned outside trading (a referral) show on the rows of every board', async () => {
    setClock(clock, '2030-03-27T12:00:00Z');
    const m = await seedMarket(t.services.db);
    const r = await personTrader(t);
    const pos = await buy(t, prices, r, m, 'YES', 10, 0.5);
    clock.advance(MINUTE);
    await sell(t, prices, r, m, 'YES', pos.positionId, 0.6); // 20 XP, First Trade, In the Green
    const code = (await t.services.db.query<{ referral_code: string }>('SELECT referral_code FROM users WHERE id = $1', [r.id]))[0]!.referral_code;
    clock.advance(MINUTE);
    for (let i = 0; i < 2; i += 1) {
      const res = await t.api
        .post('/api/auth/register')
        .send({ email: `card${i}-${Date.now()}@example.com`, password: 'password123', displayName: `Card${i}`, isAgent: true, referralCode: code });
      expect(res.status).toBe(201);
    }
    for (const metric of ['volume', 'pnl']) {
      const row = (await foldedBoard({ period: 'weekly', metric, audience: 'all' })).leaderboard.find((x) => x.user.id === r.id)!;
      expect(row.user.level).toBe(2); // 20 + 2 × 50 XP
      expect(row.user.badges.map((b) => b.name)).toEqual(['First Trade', 'In the Green', 'Recruiter']);
    }
  });

  test.each([
    ['limit 0', { limit: 0 }],
    ['limit 101', { limit: 101 }],
    ['period daily', { period: 'daily' }],
    ['metric roi', { metric: 'roi' }],
    ['audience humans', { audience: 'humans' }],
  ])('when the query has %s, then 400 VALIDATION_ERROR', async (_label, q) => {
    const res = await t.api.get('/api/leaderboard').query(q);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  test('limit caps the rows', async () => {
    setClock(clock, '2030-02-27T12:00:00Z');
    expect((await foldedBoard({ period: 'weekly', metric: 'volume', audience: 'bots', limit: 1 })).leaderboard).toHaveLength(1);
  });

  test("get_trader_stats: without userId it reads the session user's own; an API key or no credential without userId is 401; unknown ids are 404", async () => {
    const p = await personTrader(t);
    const a = await agentTrader(t);
    const own = await t.api.get('/api/user/stats').set(p.headers);
    expect(own.status).toBe(200);
    expect(own.body.user.id).toBe(p.id);
    expect(own.body.user.isAgent).toBe(false);
    expect(own.body.level).toEqual({ current: 1, title: 'Novice', xp: 0, progress: 0, xpToNext: 100 });
    expect(own.body.stats).toMatchObject({ balance: 1000, totalPnl: 0, totalTrades: 0, winRate: 0, accuracy: 0 });
    const byKey = await t.api.get('/api/user/stats').set(a.headers);
    expect(byKey.status).toBe(401);
    expect(byKey.body.code).toBe('SESSION_REQUIRED');
    const anonymous = await t.api.get('/api/user/stats');
    expect(anonymous.status).toBe(401);
    const publicRead = await t.api.get('/api/user/stats').query({ userId: p.id });
    expect(publicRead.status).toBe(200);
    expect(publicRead.body.user.id).toBe(p.id);
    const keyReadsPublic = await t.api.get('/api/user/stats').set(a.headers).query({ userId: p.id });
    expect(keyReadsPublic.body.user.id).toBe(p.id);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-user']) {
      const res = await t.api.get('/api/user/stats').query({ userId: id });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  test('get_agent_reputation: Brier score, skill against the price, calibration buckets and recent settlements; void is not a forecast', async () => {
    setClock(clock, '2030-06-05T12:00:00Z');
    const a = await agentTrader(t);
    const [m1, m2, m3, m4] = [
      await seedMarket(t.services.db),
      await seedMarket(t.services.db),
      await seedMarket(t.services.db),
      await seedMarket(t.services.db),
    ];
    await buy(t, prices, a, m1, 'YES', 40, 0.8); // forecast 0.8, wins
    await buy(t, prices, a, m2, 'YES', 25, 0.25); // forecast 0.25, loses
    await buy(t, prices, a, m3, 'NO', 40, 0.4); // forecast 0.4, wins
    await buy(t, prices, a, m4, 'YES', 50, 0.5); // void
    for (const [m, w] of [
      [m1, 'YES'],
      [m2, 'NO'],
      [m3, 'NO'],
      [m4, 'VOID'],
    ] as const) {
      clock.advance(MINUTE);
      await settle(t, m, w);
    }
    const res = await t.api.get(`/api/agents/${a.id}/reputation`);
    expect(res.status).toBe(200);
    const f = res.body.forecasting;
    expect(f.settledPositions).toBe(3);
    expect(f.basis).toBe('entry price');
    expect(f.entryPriceBrier).toBe(0.154167); // (0.2² + 0.25² + 0.6²) / 3
    expect(f.entryPriceSkill).toBe(0.183333); // ((1 − 0.8) + (0 − 0.25) + (1 − 0.4)) / 3
    expect(f.entryPriceCalibrationError).toBe(0.35); // (0.2 + 0.25 + 0.6) / 3
    // One Brier on the service (issue 49): the reputation names none of its figures plain Brier.
    expect(f).not.toHaveProperty('brierScore');
    expect(f.calibration).toHaveLength(10);
    expect(f.calibration[8]).toEqual({ binLow: 0.8, binHigh: 0.9, n: 1, lower: 0.8, upper: 0.9, count: 1, meanForecast: 0.8, observedFrequency: 1 });
    expect(f.calibration[2]).toEqual({ binLow: 0.2, binHigh: 0.3, n: 1, lower: 0.2, upper: 0.3, count: 1, meanForecast: 0.25, observedFrequency: 0 });
    expect(f.calibration[4]).toEqual({ binLow: 0.4, binHigh: 0.5, n: 1, lower: 0.4, upper: 0.5, count: 1, meanForecast: 0.4, observedFrequency: 1 });
    expect(f.calibration[5]).toEqual({ binLow: 0.5, binHigh: 0.6, n: 0, lower: 0.5, upper: 0.6, count: 0, meanForecast: null, observedFrequency: null });
    expect(res.body.recentSettled.map((s: { marketId: string; result: string; entryPrice: number }) => [s.marketId, s.result, s.entryPrice])).toEqual([
      [m4.id, 'void', 0.5],
      [m3.id, 'won', 0.4],
      [m2.id, 'lost', 0.25],
      [m1.id, 'won', 0.8],
    ]);
    expect(res.body.recentSettled[1]).toMatchObject({ outcome: 'NO', payout: 100, realizedPnl: 60 });
    expect(res.body.user).toMatchObject({ id: a.id, isAgent: true, level: 1, title: 'Novice' });
    expect(res.body.stats).toMatchObject({ totalTrades: 4, accuracy: 66.6666, settledPositions: 3 });

    const fresh = await agentTrader(t);
    const empty = await t.api.get(`/api/agents/${fresh.id}/reputation`);
    expect(empty.body.forecasting).toMatchObject({ settledPositions: 0, entryPriceBrier: null, entryPriceSkill: null, entryPriceCalibrationError: null });
    expect(empty.body.recentSettled).toEqual([]);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nobody']) {
      const missing = await t.api.get(`/api/agents/${id}/reputation`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
    }
  });
});
