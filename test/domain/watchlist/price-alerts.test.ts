import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { seedMarket, type SeededMarket } from '../../support/markets';
import { toMicro } from '../../../src/domain/money/micro';
import { PriceAlerts } from '../../../src/domain/watchlist/price-alerts';
import { Watchlist } from '../../../src/domain/watchlist/watchlist';
import type { PriceChange } from '../../../src/domain/trading/price-service';
import { createLogger } from '../../../src/logger';

const NOW = new Date(Date.UTC(2026, 10, 22, 12, 0, 0));
const change = (tokenId: string, bid: number, ask: number): PriceChange => ({
  tokenId,
  bidMicro: toMicro(bid),
  askMicro: toMicro(ask),
  asOf: NOW,
  source: 'simulated',
});

describe.each(backends())('price alerts on $name', (backend) => {
  let t: TestApp;
  let alerts: PriceAlerts;
  let watchlist: Watchlist;
  beforeAll(async () => {
    t = await startTestApp(backend, { background: false });
    alerts = new PriceAlerts(t.services.db, createLogger('silent'));
    watchlist = new Watchlist(t.services.db, 10);
  });
  afterAll(async () => t.close());

  async function watcher(m: SeededMarket, above: number | null, below: number | null): Promise<string> {
    const user = await registerAgent(t);
    await watchlist.watch(user.id, { marketId: m.id, alertAbove: above, alertBelow: below }, NOW);
    return user.id;
  }
  const notes = (userId: string) =>
    t.services.db.query<{ title: string; message: string; ref: string }>(
      "SELECT title, message, ref FROM notifications WHERE user_id = $1 AND type = 'price_alert' ORDER BY created_at",
      [userId],
    );

  test('when the YES mid reaches a threshold exactly, the alert fires; one a hair short does not', async () => {
    const m = await seedMarket(t.services.db, { question: 'Exact threshold?' });
    const up = await watcher(m, 0.6, null);
    const down = await watcher(m, null, 0.4);
    // Mid (0.58 + 0.61) / 2 = 0.595: short of 0.60.
    expect(await alerts.onPriceChanges([change(m.yes, 0.58, 0.61)], NOW)).toBe(0);
    // Mid (0.59 + 0.61) / 2 = 0.60: at the threshold.
    expect(await alerts.onPriceChanges([change(m.yes, 0.59, 0.61)], NOW)).toBe(1);
    expect(await notes(up)).toEqual([
      { title: 'Price alert: Exact threshold?', message: 'YES is at 60¢, at or above your alert at 60¢.', ref: `${m.id}:above:${NOW.getTime()}` },
    ]);
    expect(await notes(down)).toEqual([]);
    // Mid 0.395 is at or below 0.40.
    expect(await alerts.onPriceChanges([change(m.yes, 0.39, 0.4)], NOW)).toBe(1);
    expect((await notes(down)).map((n) => n.message)).toEqual(['YES is at 39.5¢, at or below your alert at 40¢.']);
  });

  test('when an alert has fired, later crossings stay quiet until it is set again', async () => {
    const m = await seedMarket(t.services.db);
    const user = await watcher(m, 0.7, null);
    expect(await alerts.onPriceChanges([change(m.yes, 0.7, 0.72)], NOW)).toBe(1);
    expect(await alerts.onPriceChanges([change(m.yes, 0.8, 0.82)], NOW)).toBe(0);
    const later = new Date(NOW.getTime() + 1000);
    await watchlist.watch(user, { marketId: m.id, alertAbove: 0.7 }, later);
    expect(await alerts.onPriceChanges([change(m.yes, 0.8, 0.82)], later)).toBe(1);
    expect(await notes(user)).toHaveLength(2);
  });

  test('when only the NO token moves, or a market is not watched, nothing fires', async () => {
    const m = await seedMarket(t.services.db);
    const user = await watcher(m, 0.1, null);
    expect(await alerts.onPriceChanges([change(m.no, 0.9, 0.92)], NOW)).toBe(0);
    const other = await seedMarket(t.services.db);
    expect(await alerts.onPriceChanges([change(other.yes, 0.95, 0.97)], NOW)).toBe(0);
    expect(await notes(user)).toEqual([]);
  });

  test('when a threshold is cleared with null, it no longer fires, and an omitted one is kept', async () => {
    const m = await seedMarket(t.services.db);
    const user = await watcher(m, 0.6, 0.3);
    const { market } = await watchlist.watch(user, { marketId: m.id, alertAbove: null }, NOW);
    expect(market.alert).toEqual({ above: null, aboveFiredAt: null, below: 0.3, belowFiredAt: null });
    expect(await alerts.onPriceChanges([change(m.yes, 0.9, 0.9)], NOW)).toBe(0);
    expect(await alerts.onPriceChanges([change(m.yes, 0.2, 0.2)], NOW)).toBe(1);
  });
});
