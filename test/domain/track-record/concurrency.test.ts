import { describeOnPostgres } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../../support/markets';
import { agentTrader, buy, personTrader, setClock } from '../../support/traders';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { challengeForDay } from '../../../src/domain/track-record/challenges';
import { dayOf } from '../../../src/domain/track-record/periods';

// PGlite runs transactions one at a time, so races only exist on PostgreSQL.
describeOnPostgres('track record under concurrency on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend as never, { prices, clock });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
  });

  test('when ten claims of one completed challenge race, then exactly one pays (one ledger entry, one XP reward)', async () => {
    let day = Date.parse('2030-09-01T00:00:00Z');
    while (challengeForDay(dayOf(new Date(day))).type !== 'trade_count') day += 86_400_000;
    setClock(clock, `${dayOf(new Date(day))}T10:00:00Z`);
    const c = challengeForDay(dayOf(clock.now()));
    const p = await personTrader(t);
    for (let i = 0; i < 3; i += 1) await buy(t, prices, p, m, 'YES', 1, 0.5);
    const xpBefore = (await t.api.get('/api/user/stats').query({ userId: p.id })).body.level.xp;
    const results = await Promise.all(Array.from({ length: 10 }, () => t.api.post('/api/challenges').set(p.headers).send({ challengeId: c.id })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('ALREADY_CLAIMED');
    }
    const ledger = await t.services.db.query(`SELECT 1 FROM transfers WHERE credit_account = 'cash:' || $1::text AND kind = 'challenge_reward'`, [p.id]);
    expect(ledger).toHaveLength(1);
    const after = (await t.api.get('/api/user/stats').query({ userId: p.id })).body;
    expect(after.level.xp).toBe(xpBefore + c.xpReward);
    expect(after.stats.balance).toBe(1000 - 3 + Number(c.cashRewardMicro) / 1e6);
  });

  test('when 30 buys of one account race, then every aggregate counts each exactly once and the daily XP cap holds', async () => {
    setClock(clock, '2030-10-15T10:00:00Z');
    const a = await agentTrader(t);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.api.post('/api/trade').set(a.headers).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 2 }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    // The boards' columns once this process's pending trades are folded (as before any board is read).
    await t.services.trackRecord.folder.flush();
    const rows = await t.services.db.query(
      'SELECT t.w_trades, t.w_volume, t.m_trades, t.m_volume, t.a_trades, t.a_volume, f.day_trades FROM trader_activity t JOIN track_figures f ON f.user_id = t.user_id WHERE t.user_id = $1',
      [a.id],
    );
    expect(rows).toEqual([{ w_trades: 30, w_volume: 60_000_000n, m_trades: 30, m_volume: 60_000_000n, a_trades: 30, a_volume: 60_000_000n, day_trades: 30 }]);
    const s = (await t.api.get('/api/user/stats').query({ userId: a.id })).body;
    expect(s.level.xp).toBe(100);
    expect(s.badges.map((b: { name: string }) => b.name).sort()).toEqual(['Active Trader', 'First Trade']);
  });

  test('when 15 registrations with one referral code race, then the referrer gets XP for exactly 10 of them', async () => {
    const r = await personTrader(t);
    const code = (await t.services.db.query<{ referral_code: string }>('SELECT referral_code FROM users WHERE id = $1', [r.id]))[0]!.referral_code;
    const regs = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        t.api
          .post('/api/auth/register')
          .send({ email: `race${i}-${Date.now()}@example.com`, password: 'password123', displayName: `Race${i}`, isAgent: true, referralCode: code }),
      ),
    );
    expect(regs.map((x) => [x.status, x.body.code])).toEqual(regs.map(() => [201, undefined]));
    const s = (await t.api.get('/api/user/stats').query({ userId: r.id })).body;
    expect(s.level.xp).toBe(500);
    const notes = await t.services.db.query(`SELECT 1 FROM notifications WHERE user_id = $1 AND type = 'referral'`, [r.id]);
    expect(notes).toHaveLength(15);
  });

  test("when referrals race the referrer's first trades, then every XP lands on the one total (the account row's, which the board's card copies)", async () => {
    setClock(clock, '2030-11-05T10:00:00Z');
    const r = await agentTrader(t);
    const code = (await t.services.db.query<{ referral_code: string }>('SELECT referral_code FROM users WHERE id = $1', [r.id]))[0]!.referral_code;
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () =>
        t.api.post('/api/trade').set(r.headers).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 1 }),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        t.api
          .post('/api/auth/register')
          .send({ email: `xprace${i}-${Date.now()}@example.com`, password: 'password123', displayName: `XpRace${i}`, isAgent: true, referralCode: code }),
      ),
    ]);
    expect(results.map((x) => x.status).sort()).toEqual([200, 200, 200, 200, 200, 201, 201, 201, 201, 201]);
    // 5 trades × 10 XP and 5 referrals × 50 XP, however they interleaved.
    expect((await t.api.get('/api/user/stats').query({ userId: r.id })).body.level.xp).toBe(300);
    await t.services.trackRecord.folder.flush();
    const card = await t.services.db.query<{ xp: number }>('SELECT xp FROM trader_activity WHERE user_id = $1', [r.id]);
    expect(card).toEqual([{ xp: 300 }]);
  });
});
