import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../src/db/database';
import { covers, coversMicro, credit, debit, releaseCash, reserveCash } from '../../../src/domain/ledger/cash';
import { GRANTS, VENUE } from '../../../src/domain/ledger/accounts';
import { AppError } from '../../../src/errors/app-error';
import { backends } from '../../support/backends';
import { startTestApp, registerAgent, type TestApp } from '../../support/app';

/**
 * An account's cash as stored, how many posted transfers moved it, and the sums of its transfers (posted: its balance;
 * pending less posted and voided: what it holds reserved). These tests call the ledger directly, with transfers no
 * trade stands behind, so auditLedger's trade-matching rules do not apply to them; the model is the check.
 */
async function cashOf(db: Database, userId: string) {
  const rows = await db.query<{ balance: bigint; reserved: bigint; entries: bigint; events: bigint; moved: bigint; held: bigint }>(
    `SELECT c.balance_micro AS balance, c.reserved_micro AS reserved,
            (SELECT coalesce(sum(CASE WHEN credit_account = 'cash:' || u.id THEN amount_micro ELSE -amount_micro END), 0) FROM transfers
              WHERE phase = 'posted' AND 'cash:' || u.id IN (debit_account, credit_account))::bigint AS moved,
            (SELECT coalesce(sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END), 0) FROM transfers
              WHERE phase <> 'posted' AND debit_account = 'cash:' || u.id)::bigint AS held,
            (SELECT count(*) FROM transfers WHERE phase = 'posted' AND 'cash:' || u.id IN (debit_account, credit_account)) AS entries,
            (SELECT count(*) FROM account_events WHERE user_id = u.id AND type = 'balance') AS events
     FROM users u JOIN cash_balances c ON c.user_id = u.id WHERE u.id = $1`,
    [userId],
  );
  const r = rows[0]!;
  return {
    balance: BigInt(r.balance),
    reserved: BigInt(r.reserved),
    entries: Number(r.entries),
    events: Number(r.events),
    moved: BigInt(r.moved),
    held: BigInt(r.held),
  };
}

/** What a refusal must leave: exactly what was there. */
const refusedWith = async (p: Promise<unknown>, code: string) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
};

const M = 1_000_000n;

describe.each(backends())('the ledger cash operations on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => t.close());
  const at = new Date('2026-11-27T12:00:00Z');

  test('when 950 of 1000 dollars are reserved, a debit of 50.000001 is refused with INSUFFICIENT_BALANCE and changes nothing; 50 goes through', async () => {
    const a = await registerAgent(t);
    await t.services.db.transaction((tx) => reserveCash(tx, a.id, 950n * M, at, randomUUID()));
    const before = await cashOf(t.services.db, a.id);
    expect(before).toMatchObject({ balance: 1000n * M, reserved: 950n * M, moved: 1000n * M, held: 950n * M });
    await refusedWith(
      t.services.db.transaction((tx) => debit(tx, { userId: a.id, counter: VENUE, type: 'pool_fund', amountMicro: 50n * M + 1n, ref: 'x', at }, 'short')),
      'INSUFFICIENT_BALANCE',
    );
    expect(await cashOf(t.services.db, a.id)).toEqual(before);
    const after = await t.services.db.transaction((tx) =>
      debit(tx, { userId: a.id, counter: VENUE, type: 'pool_fund', amountMicro: 50n * M, ref: 'x', at }, 'short'),
    );
    expect(after).toBe(950n * M);
    expect(await cashOf(t.services.db, a.id)).toMatchObject({
      balance: 950n * M,
      reserved: 950n * M,
      moved: 950n * M,
      entries: before.entries + 1,
    });
  });

  test('when a reservation would exceed available cash it is refused and changes nothing; releasing more than is reserved is a fault', async () => {
    const a = await registerAgent(t);
    const order = randomUUID();
    await t.services.db.transaction((tx) => reserveCash(tx, a.id, 600n * M, at, order));
    const before = await cashOf(t.services.db, a.id);
    await refusedWith(
      t.services.db.transaction((tx) => reserveCash(tx, a.id, 400n * M + 1n, at, randomUUID())),
      'INSUFFICIENT_BALANCE',
    );
    expect(await cashOf(t.services.db, a.id)).toEqual(before);
    await expect(t.services.db.transaction((tx) => releaseCash(tx, a.id, 600n * M + 1n, at, order))).rejects.toThrow(/does not reserve/);
    expect(await cashOf(t.services.db, a.id)).toEqual(before);
    await t.services.db.transaction((tx) => releaseCash(tx, a.id, 600n * M, at, order));
    expect(await cashOf(t.services.db, a.id)).toMatchObject({ balance: 1000n * M, reserved: 0n, held: 0n });
  });

  test('when a credit or debit is of a bad amount, it is a fault before any statement (a debit moves a positive amount)', async () => {
    const a = await registerAgent(t);
    await expect(
      t.services.db.transaction((tx) => debit(tx, { userId: a.id, counter: VENUE, type: 'buy', amountMicro: 0n, ref: 'x', at }, 'x')),
    ).rejects.toThrow(/positive/);
    await expect(
      t.services.db.transaction((tx) => credit(tx, { userId: a.id, counter: GRANTS, type: 'grant', amountMicro: -1n, ref: 'x', at })),
    ).rejects.toThrow(/non-negative/);
  });

  type Op = { kind: 'debit' | 'credit' | 'reserve' | 'release'; amount: bigint };
  const amount = fc.bigInt({ min: 1n, max: 700n * M });
  const op: fc.Arbitrary<Op> = fc.record({ kind: fc.constantFrom('debit' as const, 'credit' as const, 'reserve' as const, 'release' as const), amount });

  test('any sequence of debits, credits, reservations and releases matches a hand-kept model: refused exactly when available (or reserved) is short, each change journaled, available never negative', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const a = await registerAgent(t);
        // The model, kept independently of the code: balance and reserved in micro-dollars.
        let balance = 1000n * M;
        let reserved = 0n;
        let entries = (await cashOf(t.services.db, a.id)).entries;
        const order = randomUUID();
        for (const o of ops) {
          const run = t.services.db.transaction(async (tx) => {
            if (o.kind === 'debit') await debit(tx, { userId: a.id, counter: VENUE, type: 'buy', amountMicro: o.amount, ref: 'p', at }, 'short');
            else if (o.kind === 'credit') await credit(tx, { userId: a.id, counter: VENUE, type: 'sell', amountMicro: o.amount, ref: 'p', at });
            else if (o.kind === 'reserve') await reserveCash(tx, a.id, o.amount, at, order);
            else await releaseCash(tx, a.id, o.amount, at, order);
          });
          const allowed =
            o.kind === 'debit'
              ? balance - reserved >= o.amount
              : o.kind === 'reserve'
                ? balance - reserved >= o.amount
                : o.kind === 'release'
                  ? reserved >= o.amount
                  : true;
          const outcome = await run.then(
            () => 'ok',
            (e: unknown) => (e instanceof AppError ? e.code : 'fault'),
          );
          expect(outcome).toBe(allowed ? 'ok' : o.kind === 'release' ? 'fault' : 'INSUFFICIENT_BALANCE');
          if (allowed) {
            if (o.kind === 'debit') balance -= o.amount;
            if (o.kind === 'credit') balance += o.amount;
            if (o.kind === 'reserve') reserved += o.amount;
            if (o.kind === 'release') reserved -= o.amount;
            if (o.kind === 'debit' || o.kind === 'credit') entries += 1;
          }
          const now = await cashOf(t.services.db, a.id);
          expect(now).toMatchObject({ balance, reserved, entries, moved: balance, held: reserved });
          expect(now.balance - now.reserved >= 0n).toBe(true);
        }
      }),
      { numRuns: 15 },
    );
  });

  test("coversMicro, the engine's check of cash it read, answers as covers() does in the database, for any cash, amount and release", async () => {
    // Hand-worked: 1000 dollars with 950 reserved leave 50 available; releasing 10 of the reservation leaves 60.
    const cash = { balanceMicro: 1000n * M, reservedMicro: 950n * M };
    expect([
      coversMicro(cash, 50n * M),
      coversMicro(cash, 50n * M + 1n),
      coversMicro(cash, 60n * M, 10n * M),
      coversMicro(cash, 60n * M + 1n, 10n * M),
    ]).toEqual([true, false, true, false]);
    const micro = fc.bigInt({ min: 0n, max: 2_000n * M });
    await fc.assert(
      fc.asyncProperty(micro, micro, micro, micro, async (balance, reservedPart, amount, releasePart) => {
        const reserved = reservedPart > balance ? balance : reservedPart;
        const release = releasePart > reserved ? reserved : releasePart;
        const [row] = await t.services.db.query<{ ok: boolean }>(
          `SELECT ${covers('$3::bigint', '$4::bigint')} AS ok FROM (SELECT $1::bigint AS balance_micro, $2::bigint AS reserved_micro) c`,
          [balance.toString(), reserved.toString(), amount.toString(), release.toString()],
        );
        expect(coversMicro({ balanceMicro: balance, reservedMicro: reserved }, amount, release)).toBe(row!.ok);
        // An independent statement of the rule: what is available (the balance less what stays reserved) pays the amount.
        expect(row!.ok).toBe(balance - (reserved - release) >= amount);
      }),
      { numRuns: 60 },
    );
  });
});
