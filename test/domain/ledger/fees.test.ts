import { randomUUID } from 'node:crypto';
import { backends } from '../../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../../support/app';
import { auditLedger } from '../../../src/domain/audit/ledger-audit';
import { chargeFee } from '../../../src/domain/ledger/fees';
import { AppError } from '../../../src/errors/app-error';

describe.each(backends())('a venue fee through the ledger on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());
  const at = new Date('2026-12-06T12:00:00Z');

  test('a fee is one transfer from the account to the venue, journaled, and the audit stays clean; beyond available cash it is refused and changes nothing', async () => {
    const a = await registerAgent(t);
    const tradeId = randomUUID();
    const before = (await auditLedger(t.services.db)).venueCashMicro;
    const after = await t.services.db.transaction((tx) => chargeFee(tx, { userId: a.id, amountMicro: 1_500_000n, tradeId, at }));
    expect(after).toBe(998_500_000n);
    const moved = await t.services.db.query<{ debit_account: string; credit_account: string; asset: string; amount_micro: bigint; kind: string }>(
      'SELECT debit_account, credit_account, asset, amount_micro, kind FROM transfers WHERE ref = $1',
      [tradeId],
    );
    expect(moved.map((m) => ({ ...m, amount_micro: BigInt(m.amount_micro) }))).toEqual([
      { debit_account: `cash:${a.id}`, credit_account: 'venue', asset: 'USD', amount_micro: 1_500_000n, kind: 'fee' },
    ]);
    const report = await auditLedger(t.services.db);
    expect(report.violations).toEqual([]);
    expect(report.venueCashMicro - before).toBe(1_500_000n);

    const refused = await t.services.db
      .transaction((tx) => chargeFee(tx, { userId: a.id, amountMicro: 998_500_001n, tradeId: randomUUID(), at }))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('INSUFFICIENT_BALANCE');
    expect(
      (await t.services.db.query<{ n: bigint }>(`SELECT count(*) AS n FROM transfers WHERE debit_account = $1 AND kind = 'fee'`, [`cash:${a.id}`]))[0]!.n,
    ).toBe(1n);
    expect(await t.services.db.transaction((tx) => chargeFee(tx, { userId: a.id, amountMicro: 0n, tradeId: randomUUID(), at }))).toBeNull();
  });
});
