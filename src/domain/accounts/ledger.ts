import type { Queryable } from '../../db/database';
import { AppError } from '../../errors/app-error';
import type { Micro } from '../money/micro';
import { appendBalanceEvent } from '../events/account-events';

export const STARTING_BALANCE_MICRO: Micro = 1000n * 1_000_000n;

export type LedgerType = 'grant' | 'buy' | 'sell' | 'settlement' | 'challenge_reward' | 'referral_reward';

/**
 * The only way a balance changes: one ledger row and the cached balance move together, in the
 * caller's transaction. A debit that would go below zero is refused (the CHECK is the backstop).
 */
export async function appendLedger(tx: Queryable, e: { userId: string; type: LedgerType; amountMicro: Micro; ref: string; at: Date }): Promise<Micro> {
  const rows = await tx.query<{ balance_micro: bigint }>(
    `WITH moved AS (
       UPDATE users SET balance_micro = balance_micro + $2 WHERE id = $1 AND balance_micro + $2 >= 0 RETURNING balance_micro
     ), entry AS (
       INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at)
       SELECT $1, $3, $2, $4, $5 FROM moved RETURNING id
     )
     SELECT balance_micro FROM moved`,
    [e.userId, e.amountMicro.toString(), e.type, e.ref, e.at],
  );
  if (!rows[0])
    throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance for this operation.', { hint: 'Read GET /api/user/balance and trade a smaller amount.' });
  // Every change of cash is an event of the account (the registration grant is its first).
  await appendBalanceEvent(tx, e.userId, e.at);
  return rows[0].balance_micro;
}
