import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';
import { sessionCookieOf, ManualClock, HOUR } from '../support/identity';
import { auditLedger } from '../../src/domain/audit/ledger-audit';
import { COMMUNITY_MIN_TRADERS } from '../../src/domain/track-record/record-rule';

/**
 * Issue 33, item 10, tried as a person would: a creator buys YES for 15 dollars in their own market, resolves it YES a
 * minute later, three days before its end date, and would take first place on the profit board with 100 % accuracy and
 * the Called It badge while another trader loses 20. The creator cannot resolve early (only VOID, with a reason), and
 * their own trades in their own market never count toward the track record; the money moves as for any trade.
 */
describe.each(backends())('what counts toward the track record in community markets on $name', (backend) => {
  let t: TestApp;
  // A Wednesday noon, so the three days to the end date stay in one ISO week.
  const clock = new ManualClock(Date.parse('2031-04-09T12:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
  });
  afterAll(async () => t.close());

  type Trader = { id: string; apiKey: string; cookie: string; origin: string };
  /** An agent with both its API key (trading) and a browser session (creating and resolving). */
  const trader = async (name: string): Promise<Trader> => {
    const a = await registerAgent(t, name);
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: a.email, password: 'password123' });
    return { id: a.id, apiKey: a.apiKey, cookie: sessionCookieOf(login)!, origin: t.config.BASE_URL! };
  };
  const bearer = (who: Trader) => ({ Authorization: `Bearer ${who.apiKey}` });
  const create = async (who: Trader, endsInMs: number) => {
    const res = await t.api
      .post('/api/user-markets')
      .set('Cookie', who.cookie)
      .set('Origin', who.origin)
      .send({
        question: 'Will the harbour festival sell out this year?',
        category: 'Local',
        outcomes: ['Yes', 'No'],
        endDate: new Date(clock.now().getTime() + endsInMs).toISOString(),
        liquidity: 100,
      });
    expect(res.status).toBe(200);
    return res.body as { id: string; slug: string; outcomeTokens: Array<{ tokenId: string }> };
  };
  const buy = async (who: Trader, tokenId: string, amount: number) => {
    const res = await t.api.post('/api/user-markets/trade').set(bearer(who)).send({ tokenId, amount });
    expect(res.status).toBe(200);
    return res.body as { quantity: number; positionId: string };
  };
  const resolve = (who: Trader, id: string, body: Record<string, unknown>) =>
    t.api.post(`/api/user-markets/${id}/resolve`).set('Cookie', who.cookie).set('Origin', who.origin).send(body);
  const balance = async (who: Trader) => (await t.api.get('/api/user/balance').set(bearer(who))).body.balance as number;
  const stats = async (who: Trader) => (await t.api.get('/api/user/stats').query({ userId: who.id })).body;
  const board = async (metric: string, period = 'alltime') =>
    (await t.api.get('/api/leaderboard').query({ period, metric, audience: 'everyone' })).body.leaderboard as Array<{
      user: { id: string };
      value: number;
    }>;
  const market = async (id: string) => (await t.api.get(`/api/user-markets/${id}`)).body;
  /**
   * Traders besides the creator who buy a dollar of `tokenId` each, so the next trader is the market's
   * COMMUNITY_MIN_TRADERS-th and counts toward the record (their own buys, in a thinner market, do not).
   */
  const thicken = async (tokenId: string) => {
    const fillers: Trader[] = [];
    for (let i = 1; i < COMMUNITY_MIN_TRADERS; i++) {
      const f = await trader(`Filler${i}`);
      await buy(f, tokenId, 1);
      fillers.push(f);
    }
    return fillers;
  };
  const audit = async () => expect((await auditLedger(t.services.db)).violations).toEqual([]);
  const MINUTE = 60_000;
  const DAY = 24 * HOUR;

  test("when a creator buys YES in their own market and resolves it YES a minute later, three days before its end date, then it is refused and nothing changes; resolved after the end date, the creator's own trades count on no board, in no stats, badges, XP, challenge or forecasting record, while the other trader's loss counts", async () => {
    const creator = await trader('Creator');
    const other = await trader('Other');
    const m = await create(creator, 3 * DAY + MINUTE);
    const [yes, no] = m.outcomeTokens.map((o) => o.tokenId) as [string, string];
    const mine = await buy(creator, yes, 15);
    const fillers = await thicken(yes);
    await buy(other, no, 20);
    expect(await balance(creator)).toBe(885); // 100 into the market maker, 15 on YES: the money moves as for any trade
    expect(await balance(other)).toBe(980);

    // A minute later, three days before its end date: refused with a stable code, and nothing changes.
    clock.advance(MINUTE);
    const early = await resolve(creator, m.id, { outcome: 'Yes' });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('CONFLICT');
    expect(early.body.error).toMatch(/can only be voided/);
    expect(early.body.hint).toMatch(/VOID/);
    expect(await market(m.id)).toMatchObject({ status: 'active', resolvedOutcome: null, voidReason: null });
    expect(await balance(creator)).toBe(885);
    expect(await balance(other)).toBe(980);
    expect((await t.api.get('/api/positions').set(bearer(creator))).body.positions).toMatchObject([{ id: mine.positionId, isClosed: false }]);

    // The creator's own buy is no trade of the record: not on the trades or volume boards, no XP, no First Trade badge,
    // no challenge progress; the other trader's is.
    const before = await stats(creator);
    expect(before.stats).toMatchObject({ totalTrades: 0, totalVolume: 0 });
    expect(before.level.xp).toBe(0);
    expect(before.badges).toEqual([]);
    expect((await stats(other)).stats).toMatchObject({ totalTrades: 1, totalVolume: 20 });
    for (const metric of ['trades', 'volume']) expect((await board(metric)).map((r) => r.user.id)).toEqual([other.id]);
    const challenge = (await t.api.get('/api/challenges').set('Cookie', creator.cookie)).body;
    expect(challenge.progress.current).toBe(0);

    // After its end date the creator resolves to any outcome, and every position settles.
    clock.advance(3 * DAY);
    const done = await resolve(creator, m.id, { outcome: 'Yes' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'resolved', resolvedOutcome: 'Yes', voidReason: null });
    const positions = (await t.api.get('/api/positions').set(bearer(creator))).body.positions;
    expect(positions[0]).toMatchObject({ isClosed: true });
    expect(positions[0].realizedPnl).toBeCloseTo(mine.quantity - 15, 6); // paid 1 a share like any winner
    expect(await balance(other)).toBe(980);

    // The profit board: the other trader's loss of 20 counts; the creator's win is on no board.
    for (const period of ['weekly', 'monthly', 'alltime']) {
      const pnl = await board('pnl', period);
      expect(pnl.find((r) => r.user.id === other.id)!.value).toBe(-20);
      expect(pnl.map((r) => r.user.id)).not.toContain(creator.id);
    }
    // The fillers' settlements count (the market had enough traders by then), though their own buys came too early to.
    expect((await stats(fillers[0]!)).stats).toMatchObject({ totalTrades: 0, settledPositions: 1 });
    const c = await stats(creator);
    expect(c.stats).toMatchObject({ totalPnl: 0, totalTrades: 0, totalVolume: 0, accuracy: 0, settledPositions: 0, winRate: 0, weeklyPnl: 0 });
    expect(c.level.xp).toBe(0);
    expect(c.badges).toEqual([]); // no First Trade, no Called It
    const o = await stats(other);
    expect(o.stats).toMatchObject({ totalPnl: -20, totalTrades: 1, settledPositions: 1, accuracy: 0 });
    expect(o.badges.map((b: { name: string }) => b.name)).toEqual(['First Trade']);

    // The forecasting record: a community market is scored for nobody, its creator's nor the other trader's (issue 49
    // item 3), while the other trader's settlement counts on the accuracy board's figures (settledPositions) above.
    for (const who of [creator, other]) {
      const rep = (await t.api.get(`/api/agents/${who.id}/reputation`)).body;
      expect(rep.forecasting).toMatchObject({ settledPositions: 0 });
      expect(rep.recentSettled).toEqual([]);
    }

    // The creator is told their position settled (a notification), but earned no badge by it.
    const notes = await t.services.db.query<{ type: string }>('SELECT type FROM notifications WHERE user_id = $1 ORDER BY created_at', [creator.id]);
    expect(notes.map((n) => n.type)).toEqual(['resolution']);
    await audit();
  });

  test('when a creator buys and sells back shares of their own market, then the sale moves money but counts in no stats, board or badge', async () => {
    const creator = await trader('Seller');
    const m = await create(creator, 2 * DAY);
    const bought = await buy(creator, m.outcomeTokens[0]!.tokenId, 30);
    const sold = await t.api.post(`/api/user-markets/positions/${bought.positionId}/sell`).set(bearer(creator)).send({});
    expect(sold.status).toBe(200);
    expect(sold.body.proceeds).toBeGreaterThan(0);
    expect(await balance(creator)).toBeCloseTo(870 + sold.body.proceeds, 6);
    const s = await stats(creator);
    expect(s.stats).toMatchObject({ totalTrades: 0, totalVolume: 0, totalPnl: 0, winRate: 0 });
    expect(s.badges).toEqual([]);
    expect((await board('pnl')).map((r) => r.user.id)).not.toContain(creator.id);
  });

  test("when the creator trades another person's market, then those trades count like anyone's: the rule is about one's own market", async () => {
    const creator = await trader('Maker');
    const someone = await trader('Someone');
    const theirs = await create(someone, 2 * DAY);
    await thicken(theirs.outcomeTokens[1]!.tokenId);
    await buy(creator, theirs.outcomeTokens[0]!.tokenId, 10);
    const s = await stats(creator);
    expect(s.stats).toMatchObject({ totalTrades: 1, totalVolume: 10 });
    expect(s.badges.map((b: { name: string }) => b.name)).toEqual(['First Trade']);
  });

  test('when the creator voids their market before its end date with a reason, then every holder is paid back what they paid and the reason is shown; without a reason it is refused and nothing changes', async () => {
    const creator = await trader('Voider');
    const other = await trader('Holder');
    const m = await create(creator, 3 * DAY);
    const [yes, no] = m.outcomeTokens.map((o) => o.tokenId) as [string, string];
    await buy(creator, yes, 15);
    await buy(other, no, 20);

    const bare = await resolve(creator, m.id, { outcome: 'VOID' });
    expect(bare.status).toBe(400);
    expect(bare.body.code).toBe('VALIDATION_ERROR');
    expect(bare.body.error).toMatch(/needs a reason/);
    const blank = await resolve(creator, m.id, { outcome: 'VOID', reason: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.code).toBe('VALIDATION_ERROR');
    expect(await market(m.id)).toMatchObject({ status: 'active', resolvedOutcome: null });
    expect(await balance(other)).toBe(980);

    const voided = await resolve(creator, m.id, { outcome: 'VOID', reason: 'The festival was cancelled by the council.' });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: 'resolved', resolvedOutcome: 'VOID', voidReason: 'The festival was cancelled by the council.', poolCash: 0 });
    expect(await balance(other)).toBe(1000);
    expect(await balance(creator)).toBe(1000);
    const page = await t.api.get(`/community-markets/${m.slug}`).set('Accept', 'text/markdown');
    expect(page.text).toContain('The festival was cancelled by the council.');
    await audit();
  });

  test('when a reason is sent with an outcome other than VOID, then 400 VALIDATION_ERROR and nothing changes', async () => {
    const creator = await trader('Reasoner');
    const m = await create(creator, HOUR);
    clock.advance(HOUR + 1000);
    const res = await resolve(creator, m.id, { outcome: 'Yes', reason: 'Because.' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect((await market(m.id)).status).toBe('active');
  });

  test("when anyone reads a community market, then it says that the creator's own trades do not count toward the track record, in the API answer and on its page", async () => {
    const creator = await trader('Teller');
    const m = await create(creator, DAY);
    const got = await market(m.slug);
    expect(got.creatorTradesNote).toMatch(/creator's own trades .* do not count toward any leaderboard/);
    const listed = (await t.api.get('/api/user-markets').query({ creator: creator.id })).body.markets[0];
    expect(listed.creatorTradesNote).toBe(got.creatorTradesNote);
    const page = await t.api.get(`/community-markets/${m.slug}`).set('Accept', 'text/markdown');
    expect(page.text).toContain(got.creatorTradesNote);
  });
});
