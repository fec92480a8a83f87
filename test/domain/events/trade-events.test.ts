import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, resolveMarket, seedMarket } from '../../support/markets';
import { sessionCookieOf, ManualClock, HOUR } from '../../support/identity';
import { notify } from '../../../src/domain/notifications/notify';

/** What each change of an account writes to its event log, in the change's own transaction. */
describe.each(backends())('events written by trades, settlements, notifications and cash on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    t = await startTestApp(backend, { prices, clock, background: false });
  });
  afterAll(() => t.close());

  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const log = async (userId: string, after = 0n) => t.services.events.after(userId, after, 100);

  test('when an account registers, then its log opens with the balance of its grant', async () => {
    const a = await registerAgent(t);
    expect((await log(a.id)).map((e) => [e.seq, e.type, e.data])).toEqual([[1, 'balance', { balance: 1000, reserved: 0, available: 1000 }]]);
  });

  test('when an account buys and sells, then each trade is followed by its balance, in order, with the fill', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.4, 0.5);
    const start = await t.services.events.latest(a.id);
    const buy = await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 });
    expect(buy.status).toBe(200);
    const sell = await t.api.post(`/api/positions/${buy.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 50 });
    expect(sell.status).toBe(200);
    const all = await log(a.id, start);
    // The first trade also earned the First Trade badge: its notification follows the trade's balance.
    expect(all.map((e) => e.type)).toEqual(['trade', 'balance', 'notification', 'trade', 'balance']);
    expect(all.map((e) => Number(e.seq))).toEqual([1, 2, 3, 4, 5].map((i) => Number(start) + i));
    expect(all[2]!.data).toMatchObject({ kind: 'badge', ref: 'first_trade' });
    const events = all.filter((e) => e.type !== 'notification');
    expect(events[0]!.data).toEqual({ marketId: m.id, tokenId: m.yes, side: 'BUY', shares: 200, price: 0.5, cash: 100, realizedPnl: 0 });
    expect(events[1]!.data).toEqual({ balance: 900, reserved: 0, available: 900 });
    expect(events[2]!.data).toEqual({
      marketId: m.id,
      tokenId: m.yes,
      side: 'SELL',
      shares: 50,
      price: 0.4,
      cash: 20,
      realizedPnl: -5,
      positionId: buy.body.positionId,
    });
    expect(events[3]!.data).toEqual({ balance: 920, reserved: 0, available: 920 });
  });

  test('when a buy is refused, then no event is written', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    const before = await t.services.events.latest(a.id);
    const res = await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 5000 });
    expect(res.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await t.services.events.latest(a.id)).toBe(before);
  });

  test('when a market resolves, then each holder gets its settlement, balance and resolution notification', async () => {
    const a = await registerAgent(t);
    const m = await seedMarket(t.services.db);
    prices.set(m.yes, 0.5, 0.5);
    await t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 50 });
    const start = await t.services.events.latest(a.id);
    await resolveMarket(t.services.db, m.id, 'YES');
    await t.services.settlement.runOnce(clock.now());
    const events = await log(a.id, start);
    // The resolution notification, and the Called It badge it earned.
    expect(events.map((e) => e.type).sort()).toEqual(['balance', 'notification', 'notification', 'settlement']);
    const settlement = events.find((e) => e.type === 'settlement')!;
    expect(settlement.data).toMatchObject({ marketId: m.id, tokenId: m.yes, shares: 100, price: 1, cash: 100, realizedPnl: 50, won: true });
    expect(events.find((e) => e.type === 'balance')!.data).toEqual({ balance: 1050, reserved: 0, available: 1050 });
    expect(events.filter((e) => e.type === 'notification').map((e) => e.data.kind)).toEqual(expect.arrayContaining(['resolution', 'badge']));
    expect(events.find((e) => e.data.kind === 'resolution')!.data).toMatchObject({ title: 'Your position won' });
    // The balance follows its settlement.
    expect(events.findIndex((e) => e.type === 'balance')).toBeGreaterThan(events.findIndex((e) => e.type === 'settlement'));
  });

  test('when a notification repeats its ref, then only the first one writes an event', async () => {
    const a = await registerAgent(t);
    const start = await t.services.events.latest(a.id);
    const n = { userId: a.id, type: 'badge' as const, title: 'First trade', message: 'You traded.', ref: 'first-trade', at: clock.now() };
    await t.services.db.transaction((tx) => notify(tx, n));
    await t.services.db.transaction((tx) => notify(tx, n));
    const events = await log(a.id, start);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['notification', { id: expect.any(String), kind: 'badge', title: 'First trade', message: 'You traded.', ref: 'first-trade' }],
    ]);
  });

  test('when a community market is funded, traded and settled, then the cash moves are balance events and the trades trade events', async () => {
    const a = await registerAgent(t, 'Creator');
    const login = await t.api.post('/api/auth/login').set('Origin', t.config.BASE_URL!).send({ email: a.email, password: 'password123' });
    const cookie = sessionCookieOf(login)!;
    const trader = await registerAgent(t);
    const startA = await t.services.events.latest(a.id);
    const created = await t.api
      .post('/api/user-markets')
      .set('Cookie', cookie)
      .set('Origin', t.config.BASE_URL!)
      .send({
        question: 'Which band headlines the harbour festival?',
        category: 'Culture',
        outcomes: ['Alpha', 'Beta'],
        endDate: new Date(clock.now().getTime() + 48 * HOUR).toISOString(),
        liquidity: 100,
      });
    expect(created.status).toBe(200);
    expect((await log(a.id, startA)).map((e) => [e.type, e.data])).toEqual([['balance', { balance: 900, reserved: 0, available: 900 }]]);
    const token = created.body.outcomeTokens[0].tokenId as string;
    const startT = await t.services.events.latest(trader.id);
    const buy = await t.api.post('/api/user-markets/trade').set(bearer(trader.apiKey)).send({ tokenId: token, amount: 10 });
    expect(buy.status).toBe(200);
    const events = await log(trader.id, startT);
    // No First Trade badge: a community market counts in no track record until it has had COMMUNITY_MIN_TRADERS traders
    // besides its creator (record-rule.ts), and this one has had one.
    expect(events.map((e) => e.type)).toEqual(['trade', 'balance']);
    expect(events[0]!.data).toMatchObject({
      marketId: created.body.id,
      tokenId: token,
      side: 'BUY',
      cash: 10,
      shares: buy.body.quantity,
      price: buy.body.price,
    });
    clock.advance(48 * HOUR + 1000); // past its end date
    const resolved = await t.api
      .post(`/api/user-markets/${created.body.id}/resolve`)
      .set('Cookie', cookie)
      .set('Origin', t.config.BASE_URL!)
      .send({ outcome: 'Alpha' });
    expect(resolved.status).toBe(200);
    const afterResolve = await log(a.id, startA + 1n);
    // The creator gets what the pool has left: a balance event.
    expect(afterResolve.map((e) => e.type)).toContain('balance');
  });
});
