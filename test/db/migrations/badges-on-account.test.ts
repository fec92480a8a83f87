import { backends } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { agentTrader, buy, setClock } from '../../support/traders';
import { withMigrationsUndone } from '../../support/migrations';
import { BadgesOnAccount1700000000027 } from '../../../src/db/migrations/1700000000027-badges-on-account';

describe.each(backends())('migration 1700000000027 (badges on the account row) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
    m = await seedMarket(t.services.db);
  });
  afterAll(async () => {
    await t.close();
  });

  // The account row's badges since moved, with the rest of the track record's figures, to the figures row (migration 80).
  const accountBadges = async (id: string) =>
    (await t.services.db.query<{ badges: string[] }>('SELECT badges FROM track_figures WHERE user_id = $1', [id]))[0]?.badges;
  const cardBadges = async (id: string) =>
    (await t.services.db.query<{ badges: string[] }>('SELECT badges FROM trader_activity WHERE user_id = $1', [id]))[0]?.badges;

  test('a badge is appended to the account row as it is earned, and the fold copies it onto the card', async () => {
    setClock(clock, '2030-03-05T10:00:00Z');
    const r = await agentTrader(t);
    expect(await accountBadges(r.id)).toEqual([]);
    await buy(t, prices, r, m, 'YES', 2, 0.5);
    expect(await accountBadges(r.id)).toEqual(['first_trade']);
    // No trade writes the board row: the card has the badge once the fold has copied the account row.
    await t.services.trackRecord.folder.flush();
    expect(await cardBadges(r.id)).toEqual(['first_trade']);
  });

  test('a badge whose notification was already there (nothing new to tell) still joins the account row and the card', async () => {
    setClock(clock, '2030-03-05T11:00:00Z');
    const r = await agentTrader(t);
    await t.services.db.query(
      `INSERT INTO notifications (id, user_id, type, title, message, ref, created_at) VALUES (gen_random_uuid(), $1, 'badge', 'earlier', 'earlier', 'first_trade', now())`,
      [r.id],
    );
    await buy(t, prices, r, m, 'YES', 2, 0.5);
    expect(await accountBadges(r.id)).toEqual(['first_trade']);
    await t.services.trackRecord.folder.flush();
    expect(await cardBadges(r.id)).toEqual(['first_trade']);
    // Nothing new was told: the one notification is the earlier one.
    const told = await t.services.db.query<{ title: string }>(`SELECT title FROM notifications WHERE user_id = $1 AND type = 'badge'`, [r.id]);
    expect(told).toEqual([{ title: 'earlier' }]);
  });

  test('undone, the column is gone; redone, every account row has its badges from user_badges, in the order earned', async () => {
    setClock(clock, '2030-03-06T10:00:00Z');
    const r = await agentTrader(t);
    await buy(t, prices, r, m, 'YES', 2, 0.5);
    // A badge earned earlier, as a row of user_badges only: the backfill orders by the time each was earned.
    await t.services.db.query(`INSERT INTO user_badges (user_id, badge, earned_at) VALUES ($1, 'first_profit', '2030-01-01T00:00:00Z')`, [r.id]);
    await withMigrationsUndone(t.services.db.dataSource, BadgesOnAccount1700000000027, async () => {
      const columns = await t.services.db.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'badges'`);
      expect(columns).toEqual([]);
    });
    expect(await accountBadges(r.id)).toEqual(['first_profit', 'first_trade']);
    const untouched = await t.services.db.query<{ n: bigint }>(
      `SELECT count(*) AS n FROM track_figures f WHERE f.badges <> ARRAY(SELECT b.badge FROM user_badges b WHERE b.user_id = f.user_id ORDER BY b.earned_at, b.badge)`,
    );
    expect(untouched[0]!.n).toBe(0n);
  });
});
