import { backends } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { agentTrader, buy, setClock } from '../../support/traders';
import { withMigrationsUndone } from '../../support/migrations';
import { BoardFolding1700000000025 } from '../../../src/db/migrations/1700000000025-board-folding';

describe.each(backends())('migration 1700000000025 (board folding) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
    m = await seedMarket(t.services.db);
    // Nothing folds on its own here: the trades below stay pending.
    await t.services.trackRecord.folder.stop();
  });
  afterAll(async () => {
    await t.close();
  });

  const ranked = async (id: string) =>
    (
      await t.services.db.query<Record<string, unknown>>(
        'SELECT w_trades, w_volume, m_trades, m_volume, a_trades, a_volume FROM trader_activity WHERE user_id = $1',
        [id],
      )
    )[0];

  test('undone, it folds what trades left pending into the ranked columns, and a buy writes them itself again; redone, a buy leaves them pending', async () => {
    setClock(clock, '2030-03-05T10:00:00Z');
    const r = await agentTrader(t);
    for (let i = 0; i < 3; i += 1) await buy(t, prices, r, m, 'YES', 2, 0.5);
    // With the migrations after this one (1700000000026), the trades wait on the account row: no board row until a fold.
    expect(await ranked(r.id)).toBeUndefined();
    await withMigrationsUndone(t.services.db.dataSource, BoardFolding1700000000025, async () => {
      expect(await ranked(r.id)).toEqual({ w_trades: 3, w_volume: 6_000_000n, m_trades: 3, m_volume: 6_000_000n, a_trades: 3, a_volume: 6_000_000n });
      const columns = await t.services.db.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'trader_activity' AND column_name ~ '^p[wma]_'`,
      );
      expect(columns).toEqual([]);
      // track_event() is version 2 again: a sale (which the service sends through the function) writes the ranked columns.
      await t.services.db.query(
        `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, 1, 1000000, 0, NULL, 1, 0, 0, 50, 50, true, false, 0, 0, 0, 0, 0, NULL, 0, 0)`,
        [r.id, '2030-03-04', '2030-03-01', '2030-03-05'],
      );
      expect(await ranked(r.id)).toEqual({ w_trades: 4, w_volume: 7_000_000n, m_trades: 4, m_volume: 7_000_000n, a_trades: 4, a_volume: 7_000_000n });
    });
    await buy(t, prices, r, m, 'YES', 2, 0.5);
    expect(await ranked(r.id)).toEqual({ w_trades: 4, w_volume: 7_000_000n, m_trades: 4, m_volume: 7_000_000n, a_trades: 4, a_volume: 7_000_000n });
    await t.services.trackRecord.folder.flush();
    expect(await ranked(r.id)).toEqual({ w_trades: 5, w_volume: 9_000_000n, m_trades: 5, m_volume: 9_000_000n, a_trades: 5, a_volume: 9_000_000n });
  });
});
