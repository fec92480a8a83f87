import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { appendBalanceEvent } from '../events/account-events';
import { fromMicro, type Micro } from '../money/micro';
import { cashAccountSql, USD, VENUE } from './accounts';
import { moveCounterBalance } from './pool-cash';
import { insertTransfersSql, type CashKind } from './transfers';

/**
 * An account's cash, on its own row (table cash_balances, written by the ledger alone; migration 1700000000079):
 * `balance_micro` (what the ledger sums to) and `reserved_micro` (what its resting buy orders hold). Available =
 * balance − reserved, never negative: the rule every debit and every reservation keeps is covers(), written here once.
 * A refused debit or reservation changes nothing (its statement updates no row). Every change of either is a transfer
 * recorded in the same statement (transfers.ts), so both always equal their transfers.
 */

/** Every account starts with this many micro-dollars (its first transfer, a 'grant'). */
export const STARTING_BALANCE_MICRO: Micro = 1000n * 1_000_000n;

/** The one rule of money out: the account's available cash, counting `release` of its reservation as freed, covers `amount`. */
export const covers = (amount: string, release = '0', alias = '') => `${alias}balance_micro - (${alias}reserved_micro - ${release}) >= ${amount}`;

/**
 * covers() of cash already read (cashOf, under the account row's lock): the trade engine refuses a buy with it before
 * sending its writes. The debit's own covers() stays the guard.
 */
export const coversMicro = (cash: { balanceMicro: Micro; reservedMicro: Micro }, amount: Micro, release: Micro = 0n): boolean =>
  cash.balanceMicro - (cash.reservedMicro - release) >= amount;

export const insufficientBalance = (message: string) =>
  new AppError('INSUFFICIENT_BALANCE', message, {
    hint: 'Read get_balance (available = balance − reserved by resting buy orders); cancel resting buy orders or use a smaller amount.',
  });

/** The parts of a debit (its `UPDATE cash_balances` body): SQL expressions. */
interface DebitSql {
  user: string;
  amount: string;
  /** Reserved cash consumed by this debit (a resting buy order's fill settles its reservation): released and spent at once. */
  release?: string;
}

/**
 * The body of a debit CTE: `UPDATE cash_balances s SET ...` that moves `amount` out of the account only if its available cash
 * covers it (after `release` of its reservation is freed). Pair it with its transfer (insertTransfersSql, `from` this CTE).
 */
function debitSql(d: DebitSql): string {
  const release = d.release ?? '0';
  const sets = [`balance_micro = s.balance_micro - ${d.amount}`, ...(d.release ? [`reserved_micro = s.reserved_micro - ${release}`] : [])];
  return (
    `UPDATE cash_balances s SET ${sets.join(', ')}\n` +
    `   WHERE s.user_id = ${d.user} AND ${covers(d.amount, release, 's.')}\n` +
    `   RETURNING s.balance_micro`
  );
}

/** The body of a credit CTE: `amount` into the account. */
function creditSql(c: { user: string; amount: string }): string {
  return `UPDATE cash_balances s SET balance_micro = s.balance_micro + ${c.amount} WHERE s.user_id = ${c.user} RETURNING s.balance_micro`;
}

interface Movement {
  userId: string;
  /** The account on the other side of the transfer (accounts.ts: grants, rewards, settlement, the venue, a pool). */
  counter: string;
  type: CashKind;
  amountMicro: Micro;
  ref: string;
  at: Date;
}

const DEBIT = `WITH moved AS (${debitSql({ user: '$1', amount: '$2' })}),
  moves AS (${insertTransfersSql([{ debit: cashAccountSql('$1::text'), credit: '$6::text', asset: `'${USD}'`, amount: '$2', kind: '$3', ref: '$4', at: '$5', from: 'moved' }])})
  SELECT balance_micro FROM moved`;
const CREDIT = `WITH moved AS (${creditSql({ user: '$1', amount: '$2' })}),
  moves AS (${insertTransfersSql([{ debit: '$6::text', credit: cashAccountSql('$1::text'), asset: `'${USD}'`, amount: '$2', kind: '$3', ref: '$4', at: '$5', from: 'moved' }])})
  SELECT balance_micro FROM moved`;

/**
 * Moves `amountMicro` (> 0) out of an account as a transfer to `counter` (into the counter's maintained balance when it
 * keeps one: a pool), with its balance event, in the caller's transaction.
 * Refused beyond available cash with INSUFFICIENT_BALANCE (`refusal` says what for), changing nothing. Returns the balance after.
 */
export async function debit(tx: Queryable, m: Movement, refusal: string): Promise<Micro> {
  if (m.amountMicro <= 0n) throw new Error(`a debit moves a positive amount, not ${m.amountMicro}`);
  const rows = await tx.query<{ balance_micro: bigint }>(DEBIT, [m.userId, m.amountMicro.toString(), m.type, m.ref, m.at, m.counter], 'ledger_debit');
  if (!rows[0]) throw insufficientBalance(refusal);
  await moveCounterBalance(tx, m.counter, m.amountMicro);
  await appendBalanceEvent(tx, m.userId, m.at);
  return BigInt(rows[0].balance_micro);
}

/**
 * Moves `amountMicro` (≥ 0) into an account as a transfer from `counter` (none for 0; out of the counter's maintained
 * balance when it keeps one: a pool paying a winner or returning to its creator), with its balance event (`balanceEvent: false` when the
 * caller's trade events carry the balance, as a settlement's do). Returns the balance after.
 */
export async function credit(tx: Queryable, m: Movement, opts: { balanceEvent?: boolean } = {}): Promise<Micro> {
  if (m.amountMicro < 0n) throw new Error(`a credit moves a non-negative amount, not ${m.amountMicro}`);
  const rows = await tx.query<{ balance_micro: bigint }>(CREDIT, [m.userId, m.amountMicro.toString(), m.type, m.ref, m.at, m.counter], 'ledger_credit');
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Account not found.');
  await moveCounterBalance(tx, m.counter, -m.amountMicro);
  if (opts.balanceEvent !== false) await appendBalanceEvent(tx, m.userId, m.at);
  return BigInt(rows[0].balance_micro);
}

/** The pending transfer of a reservation, or its release (`post` at a fill, `void` otherwise): $1 user, $2 amount, $3 order, $4 time. */
const holdSql = (phase: 'pending' | 'void', from: string) =>
  insertTransfersSql([
    {
      debit: cashAccountSql('$1::text'),
      credit: `'${VENUE}'`,
      asset: `'${USD}'`,
      amount: '$2',
      kind: 'reserve',
      phase,
      order: '$3',
      ref: '$3::text',
      at: '$4',
      from,
    },
  ]);

/** Holds `amountMicro` of available cash for resting buy order `orderId` (a pending transfer); refused (nothing changed) beyond available. */
export async function reserveCash(tx: Queryable, userId: string, amountMicro: Micro, at: Date, orderId: string): Promise<void> {
  const ok = await tx.query(
    `WITH held AS (UPDATE cash_balances SET reserved_micro = reserved_micro + $2 WHERE user_id = $1 AND ${covers('$2')} RETURNING user_id AS id), pending AS (${holdSql('pending', 'held')})
     SELECT id FROM held`,
    [userId, amountMicro.toString(), orderId, at],
    'ledger_reserve_cash',
  );
  if (!ok[0]) throw insufficientBalance(`Insufficient available balance to reserve ${fromMicro(amountMicro)} dollars.`);
  await appendBalanceEvent(tx, userId, at);
}

/** Gives back `amountMicro` of order `orderId`'s reservation (cancelled, expired or amended: its pending transfer voided); the balance event follows. */
export async function releaseCash(tx: Queryable, userId: string, amountMicro: Micro, at: Date, orderId: string): Promise<void> {
  const ok = await tx.query(
    `WITH freed AS (UPDATE cash_balances SET reserved_micro = reserved_micro - $2 WHERE user_id = $1 AND reserved_micro >= $2 RETURNING user_id AS id), voided AS (${holdSql('void', 'freed')})
     SELECT id FROM freed`,
    [userId, amountMicro.toString(), orderId, at],
    'ledger_release_cash',
  );
  if (!ok[0]) throw new Error(`account ${userId} does not reserve ${amountMicro} to release`);
  await appendBalanceEvent(tx, userId, at);
}

/**
 * Opens a new account's cash row, empty (its grant is its first transfer), in the caller's transaction: the account
 * module calls this as it creates the account, so every account has one.
 */
export async function openCash(tx: Queryable, userId: string): Promise<void> {
  await tx.query('INSERT INTO cash_balances (user_id) VALUES ($1)', [userId], 'ledger_open_cash');
}

/** An account's cash and what its resting buy orders reserve of it; undefined when there is no such account. */
export async function cashOf(q: Queryable, userId: string): Promise<{ balanceMicro: Micro; reservedMicro: Micro } | undefined> {
  const rows = await q.query<{ balance_micro: bigint; reserved_micro: bigint }>(
    'SELECT balance_micro, reserved_micro FROM cash_balances WHERE user_id = $1',
    [userId],
    'ledger_cash_of',
  );
  return rows[0] ? { balanceMicro: BigInt(rows[0].balance_micro), reservedMicro: BigInt(rows[0].reserved_micro) } : undefined;
}
