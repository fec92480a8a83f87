import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { createCommunityMarket } from '../../support/community';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/**
 * The audit over the ledger of transfers: one transfer altered (its amount, its account, a pending one's order) and the
 * audit names what no longer adds up. Each alteration is undone before the next, so each is seen alone.
 */
describe.each(backends())('the ledger audit over transfers on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();
  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const violations = async () => (await auditLedger(t.services.db)).violations;
  /** Runs `change` on the database, reads the audit's violations, and puts the data back as it was. */
  async function alteredAudit(change: string, undo: string, params: unknown[]): Promise<string[]> {
    await t.services.db.query(change, params);
    try {
      return await violations();
    } finally {
      await t.services.db.query(undo, params);
    }
  }

  test('when one transfer is altered, the audit fails naming the account, position, trade or order it no longer matches', async () => {
    const m = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.5, 0.5);
    const a = await registerAgent(t);
    const bought = await t.api
      .post('/api/trade')
      .set(bearer(a.apiKey))
      .send({ marketId: m.id, marketSlug: m.slug, tokenId: m.yes, outcome: 'YES', amount: 100 });
    expect(bought.status).toBe(200);
    const placed = await t.api.post('/api/orders').set(bearer(a.apiKey)).send({ tokenId: m.yes, side: 'BUY', limitPrice: 0.4, size: 30, timeInForce: 'GTC' });
    expect(placed.body.order).toMatchObject({ state: 'open', reservedCash: 30 });
    expect(await violations()).toEqual([]);
    const ids = await t.services.db.query<{ cash: string; shares: string; pending: string }>(
      `SELECT (SELECT id FROM transfers WHERE kind = 'buy' AND asset = 'USD' AND ref = $1)::text AS cash,
              (SELECT id FROM transfers WHERE kind = 'buy' AND asset <> 'USD' AND ref = $1)::text AS shares,
              (SELECT id FROM transfers WHERE phase = 'pending' AND order_id = $2)::text AS pending`,
      [(await t.services.db.query<{ id: string }>('SELECT id::text AS id FROM trades WHERE user_id = $1', [a.id]))[0]!.id, placed.body.order.id],
    );
    const { cash, shares, pending } = ids[0]!;
    expect([cash, shares, pending].every((x) => x !== null)).toBe(true);

    const more = await alteredAudit(
      'UPDATE transfers SET amount_micro = amount_micro + 1 WHERE id = $1',
      'UPDATE transfers SET amount_micro = amount_micro - 1 WHERE id = $1',
      [cash],
    );
    expect(more.some((v) => v.startsWith(`account ${a.id}: cash 900000000`))).toBe(true);
    expect(more.some((v) => /^trade .* \(BUY\): its transfers do not move its cash, fee and shares$/.test(v))).toBe(true);

    // The buy's price relabelled as a fee: the same cash moved, but the trade records no fee, so the audit names the trade.
    const fee = await alteredAudit("UPDATE transfers SET kind = 'fee' WHERE id = $1", "UPDATE transfers SET kind = 'buy' WHERE id = $1", [cash]);
    expect(fee.filter((v) => v.startsWith('trade '))).toEqual([
      expect.stringMatching(/^trade .* \(BUY\): its transfers do not move its cash, fee and shares$/),
    ]);

    const elsewhere = await alteredAudit(
      `UPDATE transfers SET debit_account = 'cash:00000000-0000-0000-0000-000000000000' WHERE id = $1`,
      `UPDATE transfers SET debit_account = 'cash:${a.id}' WHERE id = $1`,
      [cash],
    );
    expect(elsewhere.some((v) => v.startsWith(`account ${a.id}:`))).toBe(true);

    const fewer = await alteredAudit(
      'UPDATE transfers SET amount_micro = amount_micro - 1 WHERE id = $1',
      'UPDATE transfers SET amount_micro = amount_micro + 1 WHERE id = $1',
      [shares],
    );
    expect(fewer.some((v) => /^position .*: 200000000 shares reserved 0, but its transfers give 199999999 reserved 0$/.test(v))).toBe(true);

    const held = await alteredAudit("UPDATE transfers SET phase = 'void' WHERE id = $1", "UPDATE transfers SET phase = 'pending' WHERE id = $1", [pending]);
    expect(held).toEqual(
      expect.arrayContaining([
        `account ${a.id}: cash 900000000 reserved 30000000, but its transfers give 900000000 reserved -30000000`,
        `order ${placed.body.order.id} (open): its transfers hold -30000000, but its unfilled size reserves 30000000`,
      ]),
    );

    // The reservation moved to another account's cash: the order holds from an account not its owner's.
    const stolen = await alteredAudit(
      `UPDATE transfers SET debit_account = 'cash:00000000-0000-0000-0000-000000000000' WHERE id = $1`,
      `UPDATE transfers SET debit_account = 'cash:${a.id}' WHERE id = $1`,
      [pending],
    );
    expect(stolen).toContain(`order ${placed.body.order.id} (open): its transfers hold from an account not its owner's`);
    expect(await violations()).toEqual([]);
  });

  test("when a pool's cash or one of its transfers is altered, the audit fails naming the pool", async () => {
    const market = await createCommunityMarket(t, 'Will the pool audit see an altered transfer?', 100);
    const a = await registerAgent(t);
    const bought = await t.api.post('/api/user-markets/trade').set(bearer(a.apiKey)).send({ tokenId: market.yes, amount: 10 });
    expect(bought.status).toBe(200);
    expect(await violations()).toEqual([]);
    // The pool's maintained balance: the creator's funding and the buy, both transfers into its account.
    const [pool] = await t.services.db.query<{ cash_micro: bigint }>('SELECT cash_micro FROM pool_balances WHERE market_id = $1', [market.id]);
    expect(BigInt(pool!.cash_micro)).toBe(110_000_000n);

    const balance = await alteredAudit(
      'UPDATE pool_balances SET cash_micro = cash_micro + 1 WHERE market_id = $1',
      'UPDATE pool_balances SET cash_micro = cash_micro - 1 WHERE market_id = $1',
      [market.id],
    );
    expect(balance).toContain(`pool ${market.id}: cash 110000001, but its transfers give 110000000`);

    const [buy] = await t.services.db.query<{ id: string }>(
      `SELECT id::text AS id FROM transfers WHERE kind = 'buy' AND asset = 'USD' AND credit_account = $1`,
      [`pool:${market.id}`],
    );
    const transfer = await alteredAudit(
      'UPDATE transfers SET amount_micro = amount_micro - 1 WHERE id = $1',
      'UPDATE transfers SET amount_micro = amount_micro + 1 WHERE id = $1',
      [buy!.id],
    );
    expect(transfer).toContain(`pool ${market.id}: cash 110000000, but its transfers give 109999999`);
    expect(await violations()).toEqual([]);
  });

  test("when an account's cash row is altered or missing, the audit fails naming the account", async () => {
    const a = await registerAgent(t);
    expect(await violations()).toEqual([]);
    const altered = await alteredAudit(
      'UPDATE cash_balances SET balance_micro = balance_micro + 1 WHERE user_id = $1',
      'UPDATE cash_balances SET balance_micro = balance_micro - 1 WHERE user_id = $1',
      [a.id],
    );
    expect(altered).toContain(`account ${a.id}: cash 1000000001 reserved 0, but its transfers give 1000000000 reserved 0`);
    const missing = await alteredAudit(
      'DELETE FROM cash_balances WHERE user_id = $1',
      'INSERT INTO cash_balances (user_id, balance_micro) VALUES ($1, 1000000000)',
      [a.id],
    );
    expect(missing).toContain(`account ${a.id}: has no cash row`);
    expect(await violations()).toEqual([]);
  });
});
