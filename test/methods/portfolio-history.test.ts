import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { mcpCall, rpcCall } from '../support/rpc';
import { PortfolioHistoryService } from '../../src/domain/portfolio/portfolio-history';

type Point = { time: string; equity: number; cash: number; positionsValue: number; profitLoss: number; profitLossPct: number | null; live: boolean };

/**
 * An agent buys 200 YES shares for 100 dollars at 2030-01-01 00:05; the mirrored price then moves while the sync
 * leader's hooks run at several hours over three days (the test clock stands in for time).
 */
describe.each(backends())('get_portfolio_history on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  let m: SeededMarket;
  let agent: { id: string; apiKey: string };
  let late: { id: string; apiKey: string };

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const markAt = (price: number) => t.services.db.query('UPDATE market_tokens SET price_micro = $2 WHERE token_id = $1', [m.yes, Math.round(price * 1e6)]);
  /** What the sync leader does after each sync, at the clock's time. */
  const leaderHooks = async () => {
    for (const hook of t.services.marketSync.afterSync) await hook(clock.now());
  };
  const at = (iso: string) => clock.advance(Date.parse(iso) - clock.now().getTime());
  const history = (key: string, query: Record<string, string> = {}) => t.api.get('/api/portfolio/history').set(bearer(key)).query(query);

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock, background: false });
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    agent = await registerAgent(t, 'Curve');
    at('2030-01-01T00:05:00Z');
    expect(
      (await t.api.post('/api/trade').set(bearer(agent.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 })).body
        .quantity,
    ).toBe(200);
    // Hour 00: 900 cash + 200 × 0.50; hour 01: × 0.60; hour 02: × 0.55; the next days at noon and 23:00.
    const marks: Array<[string, number]> = [
      ['2030-01-01T00:30:00Z', 0.5],
      ['2030-01-01T01:10:00Z', 0.6],
      ['2030-01-01T02:10:00Z', 0.55],
      ['2030-01-02T12:00:00Z', 0.4],
      ['2030-01-02T23:00:00Z', 0.45],
      ['2030-01-03T09:00:00Z', 0.7],
    ];
    for (const [time, price] of marks) {
      at(time);
      if (time === '2030-01-02T12:00:00Z') late = await registerAgent(t, 'Late');
      await markAt(price);
      await leaderHooks();
    }
    at('2030-01-03T10:20:00Z');
    await markAt(0.75);
  });
  afterAll(async () => t.close());

  test('when the leader runs its hooks, then each account has one snapshot per hour bucket, and a second run in the hour changes nothing', async () => {
    const rows = await t.services.db.query<{ bucket: Date; cash_micro: bigint; positions_value_micro: bigint }>(
      'SELECT bucket, cash_micro, positions_value_micro FROM portfolio_snapshots WHERE user_id = $1 ORDER BY bucket',
      [agent.id],
    );
    expect(rows.map((r) => [new Date(r.bucket).toISOString(), Number(r.cash_micro) / 1e6, Number(r.positions_value_micro) / 1e6])).toEqual([
      ['2030-01-01T00:00:00.000Z', 900, 100],
      ['2030-01-01T01:00:00.000Z', 900, 120],
      ['2030-01-01T02:00:00.000Z', 900, 110],
      ['2030-01-02T12:00:00.000Z', 900, 80],
      ['2030-01-02T23:00:00.000Z', 900, 90],
      ['2030-01-03T09:00:00.000Z', 900, 140],
    ]);
    // Another process (a new leader) in the same hour: the statement runs and writes nothing.
    at('2030-01-03T09:59:00Z');
    expect(await new PortfolioHistoryService(t.services.db).snapshot(clock.now())).toBe(0);
    at('2030-01-03T10:20:00Z');
    // The account registered on day 2 has rows only from then on.
    const lateRows = await t.services.db.query<{ bucket: Date }>('SELECT bucket FROM portfolio_snapshots WHERE user_id = $1 ORDER BY bucket', [late.id]);
    expect(lateRows.map((r) => new Date(r.bucket).toISOString())).toEqual(['2030-01-02T12:00:00.000Z', '2030-01-02T23:00:00.000Z', '2030-01-03T09:00:00.000Z']);
  });

  test('when the last day is asked at 1h, then the hourly snapshots of the last 24 hours come, then the live point priced now', async () => {
    const res = await history(agent.apiKey, { period: '1d' });
    expect(res.status).toBe(200);
    // The window is the last 24 hours (from 2030-01-02T10:20); the base is its first point's equity, 980.
    expect(res.body).toMatchObject({ period: '1d', timeframe: '1h', baseValue: 980 });
    const points: Point[] = res.body.points;
    expect(points).toEqual([
      { time: '2030-01-02T12:00:00.000Z', equity: 980, cash: 900, positionsValue: 80, profitLoss: 0, profitLossPct: 0, live: false },
      { time: '2030-01-02T23:00:00.000Z', equity: 990, cash: 900, positionsValue: 90, profitLoss: 10, profitLossPct: 0.010204, live: false },
      { time: '2030-01-03T09:00:00.000Z', equity: 1040, cash: 900, positionsValue: 140, profitLoss: 60, profitLossPct: 0.061224, live: false },
      // Live: 200 shares at the mirrored 0.75 of now, as get_portfolio marks them.
      { time: '2030-01-03T10:20:00.000Z', equity: 1050, cash: 900, positionsValue: 150, profitLoss: 70, profitLossPct: 0.071428, live: true },
    ]);
    const portfolio = await t.api.get('/api/positions').set(bearer(agent.apiKey));
    expect(portfolio.body.totals).toMatchObject({ cash: 900, marketValue: 150, equity: 1050 });
  });

  test('when all time is asked (daily by default), then each day shows its last snapshot, and the base is the first day', async () => {
    const res = await history(agent.apiKey, { period: 'all' });
    expect(res.body).toMatchObject({ period: 'all', timeframe: '1d', baseValue: 1010 });
    expect(res.body.points.map((p: Point) => [p.time, p.equity, p.profitLoss, p.live])).toEqual([
      ['2030-01-01T02:00:00.000Z', 1010, 0, false],
      ['2030-01-02T23:00:00.000Z', 990, -20, false],
      ['2030-01-03T09:00:00.000Z', 1040, 30, false],
      ['2030-01-03T10:20:00.000Z', 1050, 40, true],
    ]);
    const week = await history(agent.apiKey);
    expect(week.body).toMatchObject({ period: '1w', timeframe: '1h', baseValue: 1000 });
    expect(week.body.points).toHaveLength(7);
    const monthHourly = await history(agent.apiKey, { period: '1m', timeframe: '1h' });
    expect(monthHourly.body.points).toHaveLength(7);
  });

  test('when the same history is read over JSON-RPC and MCP, then it is the same; without a key it is 401; 1h over all is 400', async () => {
    const rest = (await history(agent.apiKey, { period: '1w', timeframe: '1d' })).body;
    expect(rest.points.map((p: Point) => p.time)).toEqual([
      '2030-01-01T02:00:00.000Z',
      '2030-01-02T23:00:00.000Z',
      '2030-01-03T09:00:00.000Z',
      '2030-01-03T10:20:00.000Z',
    ]);
    expect((await rpcCall(t, 'get_portfolio_history', { period: '1w', timeframe: '1d' }, bearer(agent.apiKey))).result).toEqual(rest);
    expect((await mcpCall(t, 'get_portfolio_history', { period: '1w', timeframe: '1d' }, bearer(agent.apiKey))).result.structuredContent).toEqual(rest);
    expect((await t.api.get('/api/portfolio/history')).status).toBe(401);
    const bad = await history(agent.apiKey, { period: 'all', timeframe: '1h' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect((await history(agent.apiKey, { period: '2d' })).status).toBe(400);
  });

  test('when an account has no snapshot in the period yet, then the live point alone is its history', async () => {
    const fresh = await registerAgent(t, 'Fresh');
    const res = await history(fresh.apiKey, { period: '1d' });
    expect(res.body.points).toEqual([
      { time: '2030-01-03T10:20:00.000Z', equity: 1000, cash: 1000, positionsValue: 0, profitLoss: 0, profitLossPct: 0, live: true },
    ]);
    expect(res.body.baseValue).toBe(1000);
  });

  test('when an account is deleted, then later hours take no snapshot of it; the other accounts still get theirs', async () => {
    const gone = await registerAgent(t, 'Gone');
    expect((await t.api.post('/api/user/delete').set(bearer(gone.apiKey)).send({ password: 'password123' })).status).toBe(200);
    at('2030-01-03T11:05:00Z');
    await leaderHooks();
    const rows = await t.services.db.query<{ user_id: string }>("SELECT user_id FROM portfolio_snapshots WHERE bucket = '2030-01-03T11:00:00Z'");
    const ids = rows.map((r) => r.user_id);
    expect(ids).toEqual(expect.arrayContaining([agent.id, late.id]));
    expect(ids).not.toContain(gone.id);
  });
});
