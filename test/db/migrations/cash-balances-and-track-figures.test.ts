import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { withMigrationsUndone } from '../../support/migrations';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { CashBalances1700000000079 } from '../../../src/db/migrations/1700000000079-cash-balances';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('migrations 1700000000079 and 80 (cash and track figures off the account row) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const CASH = 'balance_micro, reserved_micro';
  const FIGURES = 'xp, a_trades, a_volume, w_trades, streak, day_trades, progress, trade_xp, track_seq, badges';
  const columnsOf = async (table: string) =>
    (
      await t.services.db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() ORDER BY column_name`,
        [table],
      )
    ).map((c) => c.column_name);

  test("the account row's cash and figures move to rows of their own with the values they had, and back down, and trading goes on", async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.5, 0.5);
    const a = await registerAgent(t);
    const idle = await registerAgent(t);
    const trade = () => t.api.post('/api/trade').set(bearer(a.apiKey)).send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 10 });
    expect((await trade()).status).toBe(200);
    // A resting buy order of 50 dollars below the ask: its cash is reserved.
    const placed = await t.api.post('/api/orders').set(bearer(a.apiKey)).send({ tokenId: m.yes, side: 'BUY', timeInForce: 'GTC', limitPrice: 0.2, size: 50 });
    expect(placed.status).toBe(200);
    const ids = [a.id, idle.id];
    const now = async () => ({
      cash: await t.services.db.query(`SELECT user_id, ${CASH} FROM cash_balances WHERE user_id = ANY($1::uuid[]) ORDER BY user_id`, [ids]),
      figures: await t.services.db.query(`SELECT user_id, ${FIGURES} FROM track_figures WHERE user_id = ANY($1::uuid[]) ORDER BY user_id`, [ids]),
    });
    const before = await now();
    expect(before.cash).toContainEqual({ user_id: a.id, balance_micro: 990_000_000n, reserved_micro: 50_000_000n });
    expect(before.figures).toContainEqual(expect.objectContaining({ user_id: a.id, xp: 10, a_trades: 1, a_volume: 10_000_000n, badges: ['first_trade'] }));
    expect(before.figures).toContainEqual(expect.objectContaining({ user_id: idle.id, xp: 0, a_trades: 0, track_seq: 0n }));

    await withMigrationsUndone(t.services.db.dataSource, CashBalances1700000000079, async () => {
      // As before migration 79: the figures and the cash are columns of the account row, with the same values.
      expect(await columnsOf('cash_balances')).toEqual([]);
      expect(await columnsOf('track_figures')).toEqual([]);
      const onAccount = await t.services.db.query(`SELECT id AS user_id, ${CASH} FROM users WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]);
      expect(onAccount).toEqual(before.cash);
      expect(await t.services.db.query(`SELECT id AS user_id, ${FIGURES} FROM users WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids])).toEqual(before.figures);
    });
    // Moved back into rows of their own, the account row holding neither.
    expect(await now()).toEqual(before);
    const account = await columnsOf('users');
    for (const c of ['balance_micro', 'reserved_micro', 'xp', 'badges', 'track_seq', 'a_trades', 'streak']) expect(account).not.toContain(c);
    expect(account).toContain('last_active_at');
    expect((await auditLedger(t.services.db)).violations).toEqual([]);

    expect((await trade()).status).toBe(200);
    expect((await t.api.get('/api/user/balance').set(bearer(a.apiKey))).body).toEqual({ balance: 980, reserved: 50, available: 930 });
    expect((await t.api.get('/api/user/stats').query({ userId: a.id })).body.level.xp).toBe(20);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
});
