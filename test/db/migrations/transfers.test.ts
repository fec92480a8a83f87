import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { ControlledPrices, moveQuote, resolveMarket, seedMarket } from '../../support/markets';
import { withMigrationsUndone } from '../../support/migrations';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { Transfers1700000000048 } from '../../../src/db/migrations/1700000000048-transfers';

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe.each(backends())('migration 1700000000048 (the ledger of transfers) on $name', (backend) => {
  let t: TestApp;
  const prices = new ControlledPrices();

  beforeAll(async () => {
    t = await startTestApp(backend, { prices });
  });
  afterAll(async () => t.close());

  const transfersOf = (account: string) =>
    t.services.db.query<{ kind: string; phase: string; amount_micro: bigint; asset: string }>(
      `SELECT kind, phase, amount_micro, asset FROM transfers WHERE $1 IN (debit_account, credit_account) ORDER BY id`,
      [account],
    );

  test('a database with trades, settlements, resting orders and a community pool made before the migration audits clean after it', async () => {
    const m = await seedMarket(t.services.db);
    const settled = await seedMarket(t.services.db);
    await moveQuote(t.services.db, prices, m.yes, 0.5, 0.5);
    await moveQuote(t.services.db, prices, settled.yes, 0.25, 0.25);
    const a = await registerAgent(t);
    const b = await registerAgent(t);
    const trade = (key: string, market: typeof m, amount: number) =>
      t.api.post('/api/trade').set(bearer(key)).send({ marketId: market.id, marketSlug: market.slug, tokenId: market.yes, outcome: 'YES', amount });
    const bought = await trade(a.apiKey, m, 100);
    expect(bought.status).toBe(200);
    expect((await trade(b.apiKey, settled, 20)).status).toBe(200);
    expect((await t.api.post(`/api/positions/${bought.body.positionId}/sell`).set(bearer(a.apiKey)).send({ quantity: 50 })).status).toBe(200);
    // A resting buy (cash reserved) and a resting sell (shares reserved).
    const order = (body: Record<string, unknown>) =>
      t.api
        .post('/api/orders')
        .set(bearer(a.apiKey))
        .send({ tokenId: m.yes, timeInForce: 'GTC', ...body });
    expect((await order({ side: 'BUY', limitPrice: 0.4, size: 30 })).body.order).toMatchObject({ state: 'open', reservedCash: 30 });
    expect((await order({ side: 'SELL', limitPrice: 0.7, size: 40 })).body.order).toMatchObject({ state: 'open', reservedShares: 40 });
    await resolveMarket(t.services.db, settled.id, 'YES');
    expect(await t.services.settlement.runOnce(new Date())).toBe(1);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
    const before = await transfersOf(`cash:${a.id}`);

    await withMigrationsUndone(t.services.db.dataSource, Transfers1700000000048, async () => {
      const tables = await t.services.db.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'transfers'`);
      expect(tables).toEqual([]);
    });

    // Rebuilt from the journal, the trades and the open orders: the same movements of a's cash, and a clean audit.
    const after = await transfersOf(`cash:${a.id}`);
    expect(after.map((x) => [x.kind, x.phase, BigInt(x.amount_micro)])).toEqual(
      expect.arrayContaining(before.map((x) => [x.kind, x.phase, BigInt(x.amount_micro)])),
    );
    expect(after).toHaveLength(before.length);
    const report = await auditLedger(t.services.db);
    expect(report.violations).toEqual([]);
    // The venue's cash, summed: a's 100 and b's 20 in, a's 50 shares at 0.5 out (b's payout comes from settlement).
    expect(report.venueCashMicro).toBe(95_000_000n);
    expect((await trade(b.apiKey, m, 10)).status).toBe(200);
    expect((await auditLedger(t.services.db)).violations).toEqual([]);
  });
});
