import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';
import { ManualClock, DAY, MINUTE } from '../support/identity';
import { ControlledPrices, seedMarket, type SeededMarket } from '../support/markets';
import { agentTrader, buy, personTrader, sell, setClock, settle, type Trader } from '../support/traders';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { challengeForDay, type ChallengeType } from '../../src/domain/track-record/challenges';
import { dayOf } from '../../src/domain/track-record/periods';

/** The first UTC day on or after `from` whose daily challenge has this type. */
function dayWith(type: ChallengeType, from: string): string {
  let t = Date.parse(`${from}T00:00:00Z`);
  while (challengeForDay(dayOf(new Date(t))).type !== type) t += DAY;
  return dayOf(new Date(t));
}

describe.each(backends())('XP, badges, referrals, daily challenges and notifications on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock();
  let m: SeededMarket;

  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock });
  });
  afterAll(async () => {
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    await t.close();
  });
  beforeEach(async () => {
    m = await seedMarket(t.services.db);
  });

  const stats = async (who: Trader) => (await t.api.get('/api/user/stats').query({ userId: who.id })).body;
  const badgeNames = async (who: Trader) => (await stats(who)).badges.map((b: { name: string }) => b.name);
  const notes = async (who: Trader) => {
    const res = await t.api.get('/api/notifications').set(who.headers).query({ limit: 100 });
    expect(res.status).toBe(200);
    return res.body as {
      notifications: Array<{ id: string; type: string; title: string; message: string; ref: string | null; read: boolean; createdAt: string }>;
      unreadCount: number;
    };
  };
  const challenge = async (who: Trader) => {
    const res = await t.api.get('/api/challenges').set(who.headers);
    expect(res.status).toBe(200);
    return res.body;
  };
  const claim = (who: Trader, challengeId: string) => t.api.post('/api/challenges').set(who.headers).send({ challengeId });
  const balance = async (who: Trader) => (await stats(who)).stats.balance as number;

  describe('XP and levels', () => {
    test('each trade earns 10 XP, at most 100 a UTC day; the next day earns again', async () => {
      setClock(clock, '2030-07-01T08:00:00Z');
      const a = await agentTrader(t);
      for (let i = 0; i < 12; i += 1) await buy(t, prices, a, m, 'YES', 1, 0.5);
      expect((await stats(a)).level).toEqual({ current: 2, title: 'Apprentice', xp: 100, progress: 0, xpToNext: 200 });
      clock.advance(DAY);
      await buy(t, prices, a, m, 'YES', 1, 0.5);
      expect((await stats(a)).level).toMatchObject({ current: 2, xp: 110, progress: 0.05, xpToNext: 190 });
    });

    test('a position settled on the winning side earns 25 XP, at most 100 a UTC day; a losing one earns none', async () => {
      setClock(clock, '2030-07-03T08:00:00Z');
      const a = await agentTrader(t);
      const ms: SeededMarket[] = [];
      for (let i = 0; i < 7; i += 1) ms.push(await seedMarket(t.services.db));
      for (let i = 0; i < 6; i += 1) await buy(t, prices, a, ms[i]!, 'YES', 1, 0.5);
      await buy(t, prices, a, ms[6]!, 'NO', 1, 0.5);
      expect((await stats(a)).level.xp).toBe(70);
      clock.advance(DAY);
      await settle(t, ms[0]!, 'YES');
      expect((await stats(a)).level.xp).toBe(95);
      for (let i = 1; i < 7; i += 1) await settle(t, ms[i]!, 'YES'); // 5 more wins (capped) and the NO position's loss
      expect((await stats(a)).level.xp).toBe(170);
    });

    test('crossing into a level writes one level_up notification', async () => {
      setClock(clock, '2030-07-05T08:00:00Z');
      const p = await personTrader(t);
      for (let i = 0; i < 12; i += 1) await buy(t, prices, p, m, 'YES', 1, 0.5);
      clock.advance(DAY);
      await buy(t, prices, p, m, 'YES', 1, 0.5);
      const ups = (await notes(p)).notifications.filter((n) => n.type === 'level_up');
      expect(ups.map((n) => n.title)).toEqual(['Level 2: Apprentice']);
    });
  });

  describe('badges', () => {
    test('First Trade and Active Trader are earned at the 1st and 10th trade, once each, each with one notification', async () => {
      setClock(clock, '2030-07-08T08:00:00Z');
      const p = await personTrader(t);
      await buy(t, prices, p, m, 'YES', 1, 0.5);
      expect(await badgeNames(p)).toEqual(['First Trade']);
      for (let i = 0; i < 10; i += 1) {
        clock.advance(MINUTE);
        await buy(t, prices, p, m, 'YES', 1, 0.5);
      }
      expect(await badgeNames(p)).toEqual(['First Trade', 'Active Trader']);
      const badgeNotes = (await notes(p)).notifications.filter((n) => n.type === 'badge');
      expect(badgeNotes.map((n) => n.title).sort()).toEqual(['Badge earned: 📈 Active Trader', 'Badge earned: 🎯 First Trade'].sort());
    });

    test('Centurion is earned at the 100th trade, not the 99th', async () => {
      setClock(clock, '2030-07-09T08:00:00Z');
      const a = await agentTrader(t);
      for (let i = 0; i < 99; i += 1) await buy(t, prices, a, m, 'YES', 1, 0.5);
      expect(await badgeNames(a)).not.toContain('Centurion');
      await buy(t, prices, a, m, 'YES', 1, 0.5);
      expect(await badgeNames(a)).toContain('Centurion');
    });

    test('In the Green is earned by the first sale at a profit, not by a losing sale', async () => {
      setClock(clock, '2030-07-10T08:00:00Z');
      const a = await agentTrader(t);
      const pos = await buy(t, prices, a, m, 'YES', 10, 0.5); // 20 shares
      await sell(t, prices, a, m, 'YES', pos.positionId, 0.4, 10);
      expect(await badgeNames(a)).not.toContain('In the Green');
      clock.advance(MINUTE);
      await sell(t, prices, a, m, 'YES', pos.positionId, 0.6);
      expect(await badgeNames(a)).toEqual(['First Trade', 'In the Green']);
    });

    test('Called It is earned when a held side wins at resolution, not when it loses', async () => {
      setClock(clock, '2030-07-11T08:00:00Z');
      const a = await agentTrader(t);
      const m2 = await seedMarket(t.services.db);
      await buy(t, prices, a, m, 'NO', 1, 0.5);
      await buy(t, prices, a, m2, 'YES', 1, 0.5);
      await settle(t, m, 'YES');
      expect(await badgeNames(a)).not.toContain('Called It');
      await settle(t, m2, 'YES');
      expect(await badgeNames(a)).toContain('Called It');
    });

    test('trading on 3 consecutive UTC days earns On a Roll and on 7 Week Streak; a day without a trade restarts the count', async () => {
      setClock(clock, '2030-07-15T23:00:00Z');
      const steady = await agentTrader(t);
      const gappy = await agentTrader(t);
      for (let d = 0; d < 7; d += 1) {
        await buy(t, prices, steady, m, 'YES', 1, 0.5);
        if (d !== 1) await buy(t, prices, gappy, m, 'YES', 1, 0.5); // gappy skips the second day
        if (d === 1) expect(await badgeNames(steady)).not.toContain('On a Roll');
        if (d === 2) expect(await badgeNames(steady)).toContain('On a Roll');
        if (d === 5) expect(await badgeNames(steady)).not.toContain('Week Streak');
        clock.advance(DAY);
      }
      expect(await badgeNames(steady)).toEqual(['First Trade', 'On a Roll', 'Week Streak']);
      // gappy: 1 day, then 5 consecutive days → On a Roll from day 5, never Week Streak.
      expect(await badgeNames(gappy)).toEqual(['First Trade', 'On a Roll']);
    });

    test('Well Calibrated needs 20 settled positions whose entry prices matched how often they won', async () => {
      setClock(clock, '2030-07-24T08:00:00Z');
      const calibrated = await agentTrader(t);
      const overconfident = await agentTrader(t);
      const ms: SeededMarket[] = [];
      for (let i = 0; i < 20; i += 1) {
        const mk = await seedMarket(t.services.db);
        ms.push(mk);
        await buy(t, prices, calibrated, mk, 'YES', 5, 0.5);
        await buy(t, prices, overconfident, mk, 'YES', 9, 0.9);
      }
      for (let i = 0; i < 20; i += 1) {
        if (i === 19) expect(await badgeNames(calibrated)).not.toContain('Well Calibrated');
        await settle(t, ms[i]!, i % 2 ? 'YES' : 'NO');
      }
      // Half of the 0.5 forecasts won (error 0); half of the 0.9 forecasts won (error 0.4).
      expect(await badgeNames(calibrated)).toContain('Well Calibrated');
      expect(await badgeNames(overconfident)).not.toContain('Well Calibrated');
    });
  });

  test('a referral earns the referrer 50 XP (first 10 referrals only), the Recruiter badge once and a notification each, and no cash', async () => {
    const r = await personTrader(t);
    const code = (await t.services.db.query<{ referral_code: string }>('SELECT referral_code FROM users WHERE id = $1', [r.id]))[0]!.referral_code;
    for (let i = 0; i < 11; i += 1) {
      const res = await t.api
        .post('/api/auth/register')
        .send({ email: `ref${i}-${Date.now()}@example.com`, password: 'password123', displayName: `Ref${i}`, isAgent: true, referralCode: code.toLowerCase() });
      expect(res.status).toBe(201);
    }
    const s = await stats(r);
    expect(s.level.xp).toBe(500);
    expect(s.badges.map((b: { name: string }) => b.name)).toEqual(['Recruiter']);
    expect(s.stats.balance).toBe(1000);
    const referral = (await notes(r)).notifications.filter((n) => n.type === 'referral');
    expect(referral).toHaveLength(11);
    expect(referral.filter((n) => /earned 50 XP/.test(n.message))).toHaveLength(10);
    // Referral XP crosses levels like any other XP: 500 XP is level 3.
    expect(
      (await notes(r)).notifications
        .filter((n) => n.type === 'level_up')
        .map((n) => n.title)
        .sort(),
    ).toEqual(['Level 2: Apprentice', 'Level 3: Trader']);
    expect(s.level).toMatchObject({ current: 3, title: 'Trader' });
    const rewards = await t.services.db.query(`SELECT 1 FROM transfers WHERE ('cash:' || $1::text) IN (debit_account, credit_account) AND kind <> 'grant'`, [
      r.id,
    ]);
    expect(rewards).toHaveLength(0);
  });

  describe('daily challenge', () => {
    test('it is session-only: an API key gets 401 SESSION_REQUIRED, and so does an anonymous call', async () => {
      const a = await agentTrader(t);
      for (const res of [
        await t.api.get('/api/challenges').set(a.headers),
        await t.api.post('/api/challenges').set(a.headers).send({ challengeId: 'daily-2030-01-01' }),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('SESSION_REQUIRED');
      }
      expect((await t.api.get('/api/challenges')).status).toBe(401);
    });

    test('there is one challenge per UTC day, the same for everyone, drawn from the pool by the date', async () => {
      setClock(clock, '2030-08-01T10:00:00Z');
      const [p, q] = [await personTrader(t), await personTrader(t)];
      const a = await challenge(p);
      expect(await challenge(q)).toEqual(a);
      const expected = challengeForDay('2030-08-01');
      expect(a.challenge).toMatchObject({
        id: 'daily-2030-08-01',
        type: expected.type,
        title: expected.title,
        xpReward: expected.xpReward,
        day: '2030-08-01',
        expiresAt: '2030-08-02T00:00:00.000Z',
      });
      expect(a.progress).toMatchObject({ current: 0, completed: false, claimed: false, percentComplete: 0 });
      clock.advance(DAY);
      expect((await challenge(p)).challenge.id).toBe('daily-2030-08-02');
    });

    const scenarios: Array<[ChallengeType, (p: Trader) => Promise<void>, (p: Trader) => Promise<void>, number, number]> = [
      [
        'trade_count',
        async (p) => {
          await buy(t, prices, p, m, 'YES', 1, 0.5);
          await buy(t, prices, p, m, 'NO', 1, 0.5);
        },
        async (p) => void (await buy(t, prices, p, m, 'YES', 1, 0.5)),
        2,
        3,
      ],
      [
        'trade_volume',
        async (p) => {
          const pos = await buy(t, prices, p, m, 'YES', 200, 0.5); // 400 shares
          await sell(t, prices, p, m, 'YES', pos.positionId, 0.5, 20); // +10 sold
        },
        async (p) => {
          const pf = await t.api.get('/api/positions').set(p.headers);
          await sell(t, prices, p, m, 'YES', pf.body.positions[0].id, 0.5, 80); // +40 sold
        },
        210,
        250,
      ],
      [
        'distinct_markets',
        async (p) => {
          const m2 = await seedMarket(t.services.db);
          await buy(t, prices, p, m, 'YES', 1, 0.5);
          await buy(t, prices, p, m, 'NO', 1, 0.5); // the same market again
          await buy(t, prices, p, m2, 'YES', 1, 0.5);
        },
        async (p) => void (await buy(t, prices, p, await seedMarket(t.services.db), 'YES', 1, 0.5)),
        2,
        3,
      ],
      [
        'profitable_sale',
        async (p) => {
          const pos = await buy(t, prices, p, m, 'YES', 10, 0.5); // 20 shares
          await sell(t, prices, p, m, 'YES', pos.positionId, 0.4, 10); // a loss
        },
        async (p) => {
          const pf = await t.api.get('/api/positions').set(p.headers);
          await sell(t, prices, p, m, 'YES', pf.body.positions[0].id, 0.6);
        },
        0,
        1,
      ],
    ];

    test.each(scenarios)(
      "%s: progress follows the day's trades; once completed it is notified and claimed once, paying cash through the ledger and XP",
      async (type, partly, finish, partial, target) => {
        setClock(clock, `${dayWith(type, '2030-09-01')}T09:00:00Z`);
        const p = await personTrader(t);
        const id = `daily-${dayOf(clock.now())}`;
        await partly(p);
        const half = await challenge(p);
        expect(half.challenge).toMatchObject({ id, type });
        expect(half.progress).toMatchObject({ current: partial, target, completed: false, claimed: false });
        expect(half.progress.percentComplete).toBe(Math.floor((partial / target) * 10000) / 100);
        const early = await claim(p, id);
        expect(early.status).toBe(400);
        expect(early.body.code).toBe('NOT_COMPLETED');

        await finish(p);
        const done = await challenge(p);
        expect(done.progress).toMatchObject({ completed: true, claimed: false, percentComplete: 100 });
        const completion = (await notes(p)).notifications.filter((n) => n.type === 'challenge');
        expect(completion).toHaveLength(1);
        expect(completion[0]!.message).toContain(id);

        const before = await balance(p);
        const xpBefore = (await stats(p)).level.xp;
        const paid = await claim(p, id);
        expect(paid.status).toBe(200);
        expect(paid.body).toMatchObject({
          success: true,
          cashReward: half.challenge.cashReward,
          xpReward: half.challenge.xpReward,
          xp: xpBefore + half.challenge.xpReward,
        });
        expect(paid.body.balance).toBe(before + half.challenge.cashReward);
        expect(await balance(p)).toBe(before + half.challenge.cashReward);
        expect((await stats(p)).level.xp).toBe(xpBefore + half.challenge.xpReward);
        const ledger = await t.services.db.query<{ amount_micro: bigint; ref: string }>(
          `SELECT amount_micro, ref FROM transfers WHERE credit_account = 'cash:' || $1::text AND kind = 'challenge_reward'`,
          [p.id],
        );
        expect(ledger).toEqual([{ amount_micro: BigInt(Math.round(half.challenge.cashReward * 1e6)), ref: id }]);
        expect((await challenge(p)).progress.claimed).toBe(true);

        const again = await claim(p, id);
        expect(again.status).toBe(400);
        expect(again.body.code).toBe('ALREADY_CLAIMED');
        expect(await balance(p)).toBe(before + half.challenge.cashReward);
      },
    );

    test("yesterday's completed challenge can still be claimed; older, future and malformed ids are 404", async () => {
      const day = dayWith('trade_count', '2030-10-01');
      setClock(clock, `${day}T22:00:00Z`);
      const [p, q, r] = [await personTrader(t), await personTrader(t), await personTrader(t)];
      for (const who of [p, q, r]) for (let i = 0; i < 3; i += 1) await buy(t, prices, who, m, 'YES', 1, 0.5);
      clock.advance(DAY);
      expect((await claim(p, `daily-${day}`)).status).toBe(200);
      // Trading on the new day first does not lose yesterday's completed progress.
      await buy(t, prices, r, m, 'YES', 1, 0.5);
      expect((await challenge(r)).progress.current).toBeLessThanOrEqual(1);
      expect((await claim(r, `daily-${day}`)).status).toBe(200);
      clock.advance(DAY);
      const expired = await claim(q, `daily-${day}`);
      expect(expired.status).toBe(404);
      expect(expired.body.code).toBe('NOT_FOUND');
      const tomorrow = dayOf(new Date(clock.now().getTime() + DAY));
      for (const id of [`daily-${tomorrow}`, 'daily-2030-13-45', 'weekly-1', '']) {
        const res = await claim(q, id);
        expect([400, 404]).toContain(res.status);
        expect(res.body.code).toBe(id === '' ? 'VALIDATION_ERROR' : 'NOT_FOUND');
      }
    });
  });

  describe('notifications', () => {
    test("they are the caller's own, newest first, with the unread count", async () => {
      setClock(clock, '2030-11-04T08:00:00Z');
      const p = await personTrader(t);
      await buy(t, prices, p, m, 'YES', 1, 0.5); // First Trade badge
      clock.advance(MINUTE);
      await settle(t, m, 'YES'); // resolution, then the Called It badge
      const list = await notes(p);
      expect(list.unreadCount).toBe(list.notifications.length);
      expect(list.notifications.map((n) => n.type).sort()).toEqual(['badge', 'badge', 'resolution']);
      const times = list.notifications.map((n) => n.createdAt);
      expect(times).toEqual([...times].sort().reverse());
      expect(list.notifications.at(-1)!.title).toBe('Badge earned: 🎯 First Trade');
      // Each names what it is about: the settled position, the badge.
      const positions = (await t.api.get('/api/positions').set(p.headers)).body as { positions: { id: string }[] };
      expect(list.notifications.find((n) => n.type === 'resolution')!.ref).toBe(positions.positions[0]!.id);
      expect(list.notifications.at(-1)!.ref).toBe('first_trade');
      const one = await t.api.get('/api/notifications').set(p.headers).query({ limit: 1 });
      expect(one.body.notifications).toHaveLength(1);
      expect(one.body.unreadCount).toBe(3);
    });

    test("marking listed ids changes only the caller's own; ids of others, unknown or malformed ids are ignored and never touched", async () => {
      const [p, q] = [await personTrader(t), await personTrader(t)];
      await buy(t, prices, p, m, 'YES', 1, 0.5);
      await buy(t, prices, q, m, 'YES', 1, 0.5);
      const mine = (await notes(p)).notifications[0]!;
      const theirs = (await notes(q)).notifications[0]!;
      const res = await t.api
        .post('/api/notifications')
        .set(p.headers)
        .send({ notificationIds: [mine.id, theirs.id, '00000000-0000-4000-8000-000000000000', 'garbage'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, updated: 1 });
      expect((await notes(p)).notifications.find((n) => n.id === mine.id)!.read).toBe(true);
      const other = await notes(q);
      expect(other.notifications.find((n) => n.id === theirs.id)!.read).toBe(false);
      expect(other.unreadCount).toBe(1);
    });

    test("markAll marks every one of the caller's read; with neither field nothing changes", async () => {
      const p = await personTrader(t);
      const q = await personTrader(t);
      for (let i = 0; i < 10; i += 1) await buy(t, prices, p, m, 'YES', 1, 0.5);
      await buy(t, prices, q, m, 'YES', 1, 0.5);
      const none = await t.api.post('/api/notifications').set(p.headers).send({});
      expect(none.body).toEqual({ success: true, updated: 0 });
      const unread = (await notes(p)).unreadCount;
      expect(unread).toBeGreaterThanOrEqual(3); // two badges and a level-up
      const all = await t.api.post('/api/notifications').set(p.headers).send({ markAll: true });
      expect(all.body).toEqual({ success: true, updated: unread });
      expect((await notes(p)).unreadCount).toBe(0);
      expect((await notes(q)).unreadCount).toBe(1);
    });

    test('they are session-only: an API key gets 401 SESSION_REQUIRED', async () => {
      const a = await agentTrader(t);
      for (const res of [await t.api.get('/api/notifications').set(a.headers), await t.api.post('/api/notifications').set(a.headers).send({ markAll: true })]) {
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('SESSION_REQUIRED');
      }
    });
  });
});
