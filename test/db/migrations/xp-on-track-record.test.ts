import { backends } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { agentTrader, buy, setClock, type Trader } from '../../support/traders';
import { trackStatementFor } from '../../../src/domain/track-record/track-sql';
import { withMigrationsUndone } from '../../support/migrations';
import { XpOnTrackRecord1700000000009 } from '../../../src/db/migrations/1700000000009-xp-on-track-record';

describe.each(backends())('migration 1700000000009 (XP on the activity row) on $name', (backend) => {
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

  /** The XP total and the card's copy. The total is on the figures row since migration 80 (`onAccount`: on the account row, before it). */
  const stored = async (id: string, onAccount = false) =>
    (
      await t.services.db.query<{ users_xp: number; card_xp: number | null }>(
        `SELECT u.xp AS users_xp, (SELECT a.xp FROM trader_activity a WHERE a.user_id = u.${onAccount ? 'id' : 'user_id'}) AS card_xp
         FROM ${onAccount ? 'users u WHERE u.id = $1' : 'track_figures u WHERE u.user_id = $1'}`,
        [id],
      )
    )[0];
  const statsXp = async (id: string) => (await t.api.get('/api/user/stats').query({ userId: id })).body.level.xp as number;
  const referTo = async (r: Trader) => {
    const code = (await t.services.db.query<{ referral_code: string }>('SELECT referral_code FROM users WHERE id = $1', [r.id]))[0]!.referral_code;
    const n = Math.random().toString(36).slice(2, 10);
    const res = await t.api
      .post('/api/auth/register')
      .send({ email: `ref-${n}@example.com`, password: 'password123', displayName: `Ref${n}`, isAgent: true, referralCode: code });
    expect(res.status).toBe(201);
  };

  // With the migrations after this one, the total lives on the account row again (1700000000026), and the activity row
  // (the board's card) holds the board folder's copy of it.
  test('XP has one total, before and after the first trade; the card is its copy once folded', async () => {
    setClock(clock, '2030-03-04T10:00:00Z');
    const r = await agentTrader(t);
    await referTo(r);
    expect(await stored(r.id)).toEqual({ users_xp: 50, card_xp: null });
    expect(await statsXp(r.id)).toBe(50);
    await buy(t, prices, r, m, 'YES', 1, 0.5);
    await buy(t, prices, r, m, 'YES', 1, 0.5);
    await t.services.trackRecord.folder.flush();
    expect(await stored(r.id)).toEqual({ users_xp: 70, card_xp: 70 });
    await referTo(r);
    await t.services.trackRecord.folder.flush();
    expect(await stored(r.id)).toEqual({ users_xp: 120, card_xp: 120 });
    expect(await statsXp(r.id)).toBe(120);
  });

  test('undone, it brings users.xp up to the total and track_event() writes both copies again; redone, one total again', async () => {
    setClock(clock, '2030-03-05T10:00:00Z');
    const r = await agentTrader(t);
    await buy(t, prices, r, m, 'YES', 1, 0.5);
    await t.services.trackRecord.folder.flush();
    expect(await stored(r.id)).toEqual({ users_xp: 10, card_xp: 10 });
    await withMigrationsUndone(t.services.db.dataSource, XpOnTrackRecord1700000000009, async () => {
      expect(await stored(r.id, true)).toEqual({ users_xp: 10, card_xp: 10 });
      // The first version of track_event() is back (the service's own code follows the latest migration).
      const { params } = trackStatementFor({
        userId: r.id,
        side: 'BUY',
        marketId: m.id,
        tokenId: m.yes,
        quantityMicro: 2_000_000n,
        cashMicro: 1_000_000n,
        realizedPnlMicro: 0n,
        at: clock.now(),
      });
      // Called as the listener called it then (its rules are the track record's own statements since migration 78).
      const call = `SELECT * FROM track_event($1::uuid, $2::date, $3::date, $4::date, $5::int, $6::bigint, $7::bigint, $8::text, $9::bigint,
        $10::int, $11::int, $12::int, $13::int, $14::boolean, $15::boolean, $16::bigint, $17::int, $18::int, $19::int, $20::int, $21::smallint, $22::bigint, $23::bigint)`;
      await t.services.db.transaction((tx) => tx.query(call, params));
      expect(await stored(r.id, true)).toEqual({ users_xp: 20, card_xp: 20 });
    });
    await buy(t, prices, r, m, 'YES', 1, 0.5);
    await t.services.trackRecord.folder.flush();
    expect(await stored(r.id)).toEqual({ users_xp: 30, card_xp: 30 });
    expect(await statsXp(r.id)).toBe(30);
  });
});
