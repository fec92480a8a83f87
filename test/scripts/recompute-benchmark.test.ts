import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock } from '../support/identity';
import { ControlledPrices, moveQuote, seedMarket } from '../support/markets';
import { agentTrader, buy, personTrader, type Trader } from '../support/traders';
import { BENCHMARK_METRICS, MIN_RESOLVED_MARKETS } from '../../src/domain/benchmark/benchmark-record';
import type { ExportedForecast } from '../../src/domain/benchmark/benchmark-export';
import { FLOOR, METRICS, recompute, verifyExportChain, type SeasonExport } from '../../scripts/recompute-benchmark';

/**
 * Issue 49 item 4: the export reproduces every board. Three accounts state forecasts (one with a rationale, one
 * superseding some) on 34 markets that resolve; two of them also buy, their equity moves over six days, and the bought
 * tokens' prices move before the close. The script recomputes every board of every audience (alpha, brier, log_score,
 * clv, sharpe, return, max_drawdown) from the export's parts alone, byte for byte as the service serves them, and checks
 * every record's hash and link; one exported value altered changes a board or fails the chain.
 */
describe.each(backends())('recomputing the boards from the export on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-08-05T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock, prices, background: false });
  });
  afterAll(() => t.close());

  const state = async (who: Trader, marketId: string, probability: number, rationale?: string) => {
    const res = await t.api
      .post('/api/forecasts')
      .set(who.headers)
      .send({ marketId, probability, ...(rationale ? { rationale } : {}) });
    expect(res.status).toBe(200);
  };

  test('when the season is exported, then the script reproduces every board byte for byte from its parts and verifies the chains; an altered value changes a board or fails the check', async () => {
    const db = t.services.db;
    const a = await agentTrader(t, 'Sharp');
    const b = await agentTrader(t, 'Blunt');
    const p = await personTrader(t);
    const markets = [];
    for (let i = 0; i < MIN_RESOLVED_MARKETS + 4; i++) {
      const m = await seedMarket(db);
      await db.query(`UPDATE markets SET end_date = '2031-01-01T00:00:00Z' WHERE id = $1`, [m.id]);
      await moveQuote(db, prices, m.yes, 0.3 + (i % 5) / 10, 0.32 + (i % 5) / 10);
      markets.push(m);
    }
    for (const [i, m] of markets.entries()) {
      await state(a, m.id, i % 3 === 0 ? 0.25 : 0.8, i === 0 ? 'Forecast models agree, "mostly".' : undefined);
      await state(b, m.id, 0.5);
      if (i % 4 === 0) await state(b, m.id, 0.65); // superseded: both stay in the export
      await state(p, m.id, i % 2 ? 0.7 : 0.4);
    }
    // Sharp buys YES on every other market and Blunt NO on every third, after all forecasts are stated (a buy moves the quote).
    for (const [i, m] of markets.entries()) {
      if (i % 2 === 0) await buy(t, prices, a, m, 'YES', 10 + i, 0.3 + (i % 5) / 10);
      if (i % 3 === 0) await buy(t, prices, b, m, 'NO', 5 + i, 0.6 - (i % 4) / 10);
    }
    await t.services.portfolioHistory.snapshot(clock.now());
    // Six days: the tokens' quotes move (so equity does) and some bought tokens get price snapshots before the close.
    for (let day = 1; day <= 6; day++) {
      clock.advance(86_400_000);
      for (const [i, m] of markets.entries()) {
        const mid = 0.1 + ((i * 7 + day * 3) % 9) / 10;
        await moveQuote(db, prices, m.yes, mid - 0.01, mid + 0.01, clock.now());
        await moveQuote(db, prices, m.no, 1 - mid - 0.01, 1 - mid + 0.01, clock.now());
        if ((i + day) % 3 === 0)
          await db.query(`INSERT INTO price_snapshots (token_id, t, price_micro) VALUES ($1, $3, $2), ($4, $3, 1000000 - $2::bigint)`, [
            m.yes,
            Math.round(mid * 1e6),
            clock.now(),
            m.no,
          ]);
      }
      await t.services.portfolioHistory.snapshot(clock.now());
    }
    clock.advance(3_600_000);
    for (const [i, m] of markets.entries()) {
      const winner = i % 3 === 0 ? 'NO' : i === 5 ? 'VOID' : 'YES';
      await db.query(`UPDATE markets SET status = 'resolved', winner = $2, end_date = $3, resolved_at = $3 WHERE id = $1`, [m.id, winner, clock.now()]);
    }
    clock.advance(60_000);
    await t.services.benchmarkFolder.runOnce(clock.now());
    t.services.benchmark.invalidate();

    const exportOf = async (season: string): Promise<SeasonExport> => {
      const data: SeasonExport = { forecasts: [], trades: [], equity: [], markets: [], prices: [] };
      for (const part of ['forecasts', 'trades', 'equity', 'markets', 'prices'] as const) {
        let cursor: string | undefined;
        do {
          const res = await t.api.get('/api/benchmark/forecasts').query({ season, part, limit: 40, ...(cursor ? { cursor } : {}) });
          expect([part, res.status, res.status === 200 ? null : res.body]).toEqual([part, 200, null]);
          expect(res.body.part).toBe(part);
          (data[part] as unknown[]).push(...res.body[part]);
          cursor = res.body.nextCursor ?? undefined;
        } while (cursor);
      }
      return data;
    };
    const boardsOf = async (season: string) => {
      const out: Record<string, unknown[]> = {};
      for (const metric of METRICS)
        for (const audience of ['all', 'bots', 'everyone', 'reference'] as const) {
          const served = (await t.api.get('/api/benchmark/leaderboard').query({ season, metric, audience, limit: 100 })).body;
          out[`${metric}/${audience}`] = served.entries.map((e: { rank: number; userId: string; resolvedMarkets: number; figure: unknown }) => ({
            rank: e.rank,
            userId: e.userId,
            resolvedMarkets: e.resolvedMarkets,
            figure: e.figure,
          }));
        }
      return out;
    };
    expect(FLOOR).toBe(MIN_RESOLVED_MARKETS);
    expect([...METRICS].sort()).toEqual(Object.keys(BENCHMARK_METRICS).sort());

    const season = 'all';
    const data = await exportOf(season);
    const rows = data.forecasts;
    expect(rows).toHaveLength(3 * markets.length + Math.ceil(markets.length / 4));
    expect(rows.find((r) => r.rationale !== null)).toMatchObject({ userId: a.id, rationale: 'Forecast models agree, "mostly".' });
    expect(data.trades.filter((x) => x.side === 'BUY')).toHaveLength(Math.ceil(markets.length / 2) + Math.ceil(markets.length / 3));
    expect(data.markets).toHaveLength(markets.length);
    expect(data.prices.length).toBeGreaterThan(0);
    expect(data.equity.filter((e) => e.userId === a.id)).toHaveLength(7); // seven days' last snapshots ('all' has no equity before)

    const out = await recompute(data, season);
    expect(out.chain).toEqual({ ok: true, accounts: 3, records: rows.length, linked: rows.length - 3 });
    const served = await boardsOf(season);
    for (const key of Object.keys(served)) expect(`${key} ${JSON.stringify(out.boards[key])}`).toBe(`${key} ${JSON.stringify(served[key])}`);
    // Every metric has someone on it: the two buyers on clv and sharpe (the person's equity never moves), all three on the rest.
    const everyone = (metric: string) => served[`${metric}/everyone`]!.length;
    expect(METRICS.map((m) => [m, everyone(m)])).toEqual([
      ['alpha', 3],
      ['brier', 3],
      ['log_score', 3],
      ['clv', 2],
      ['sharpe', 2],
      ['return', 3],
      ['max_drawdown', 3],
    ]);

    // A month season has the same markets here, and its own seeds: reproduced too.
    const month = await exportOf('2030-08');
    const monthOut = await recompute(month, '2030-08');
    const monthServed = await boardsOf('2030-08');
    for (const key of Object.keys(monthServed)) expect(`${key} ${JSON.stringify(monthOut.boards[key])}`).toBe(`${key} ${JSON.stringify(monthServed[key])}`);

    // Independent checks of single figures, by hand from the export's rows.
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const finals = new Map<string, ExportedForecast>();
    for (const r of rows.filter((x) => x.userId === a.id && x.winner !== null)) finals.set(r.marketId, r);
    const alpha = mean([...finals.values()].map((r) => (r.mids[0]! - r.winner!) ** 2 - (r.probabilities[0]! - r.winner!) ** 2));
    const sharp = out.boards['alpha/bots']!.find((e) => e.userId === a.id)!;
    expect(sharp.figure.value).toBeCloseTo(alpha, 12);
    expect(sharp.resolvedMarkets).toBe(markets.length - 1); // the VOID market does not count
    // Sharp's return: the last day's equity over the first's, less the flows (none after the first day).
    const series = data.equity.filter((e) => e.userId === a.id).sort((x, y) => (x.day! < y.day! ? -1 : 1));
    const ret = out.boards['return/bots']!.find((e) => e.userId === a.id)!;
    expect(ret.figure.value).toBeCloseTo(series[series.length - 1]!.equity / series[0]!.equity - 1, 9);
    // Sharp's clv at the close: each buy's token price at the close (its last snapshot) less the fill price, averaged.
    const closeOf = new Map(data.markets.map((m) => [m.marketId, Date.parse(m.closedAt)]));
    const clvs = data.trades
      .filter((x) => x.userId === a.id && x.side === 'BUY')
      .map((x) => {
        const before = data.prices.filter((p) => p.tokenId === x.tokenId && Date.parse(p.t) <= closeOf.get(x.marketId)!);
        return before.length ? before.sort((p, q) => Date.parse(p.t) - Date.parse(q.t))[before.length - 1]!.price - x.price : null;
      })
      .filter((v): v is number => v !== null);
    const clv = out.boards['clv/bots']!.find((e) => e.userId === a.id)!;
    expect(clv.figure.n).toBe(clvs.length);
    expect(clv.figure.value).toBeCloseTo(mean(clvs), 12);

    // One exported value altered changes a board: an equity, a trade's price, a snapshot's price.
    const differs = async (altered: SeasonExport, key: string) => {
      const again = await recompute(altered, season);
      return JSON.stringify(again.boards[key]) !== JSON.stringify(served[key]);
    };
    const day3 = series[3]!;
    expect(await differs({ ...data, equity: data.equity.map((e) => (e === day3 ? { ...e, equity: e.equity + 0.01 } : e)) }, 'sharpe/bots')).toBe(true);
    const firstBuy = data.trades.find((x) => x.userId === a.id && x.side === 'BUY')!;
    expect(await differs({ ...data, trades: data.trades.map((x) => (x === firstBuy ? { ...x, price: x.price + 0.001 } : x)) }, 'clv/bots')).toBe(true);
    // The price in force at the close of a token Sharp bought: its last snapshot (all are before the close here).
    const bought = data.prices.filter((p) => data.trades.some((x) => x.userId === a.id && x.side === 'BUY' && x.tokenId === p.tokenId));
    const usedPrice = bought.filter((p) => p.tokenId === bought[0]!.tokenId).sort((p, q) => Date.parse(q.t) - Date.parse(p.t))[0]!;
    expect(await differs({ ...data, prices: data.prices.map((p) => (p === usedPrice ? { ...p, price: p.price / 2 } : p)) }, 'clv/bots')).toBe(true);
    const someForecast = rows.find((r) => r.userId === a.id && r.winner !== null)!;
    expect(
      await differs({ ...data, forecasts: rows.map((r) => (r === someForecast ? { ...r, probabilities: [r.probabilities[0]! / 2] } : r)) }, 'alpha/bots'),
    ).toBe(true);

    // Tampering with the chain: a probability changed, or a record dropped from the middle of a chain, is found.
    const changed = rows.map((r) => (r.userId === b.id && r.seq === 2 ? { ...r, probabilities: [0.51] } : r));
    expect(await verifyExportChain(changed)).toMatchObject({ ok: false, userId: b.id, seq: 2, reason: 'hash does not match the record' });
    const relinked = rows.map((r) => (r.userId === p.id && r.seq === 3 ? { ...r, prevHash: rows.find((x) => x.userId === p.id && x.seq === 1)!.hash } : r));
    expect((await verifyExportChain(relinked)).ok).toBe(false);

    // The parts' CSV: a header of the documented columns, one line a row.
    const csv = await t.api.get('/api/benchmark/forecasts').query({ season, part: 'equity', format: 'csv', limit: 5 });
    expect(csv.status).toBe(200);
    expect(csv.body.text.split('\n')[0]).toBe('userId,audience,day,equity,flow');
    expect(csv.body.text.trimEnd().split('\n')).toHaveLength(6);
  });
});
