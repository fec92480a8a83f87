import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import { VENUE } from './accounts';
import { debit } from './cash';

/**
 * A venue's fee on a trade (issue 50 item 3): a transfer of `amountMicro` from the account's cash to the venue's
 * account, journaled as a 'fee' entry whose ref is the trade. Call it in the trade's transaction, after the trade's own
 * statement; refused with INSUFFICIENT_BALANCE (and the trade with it) when available cash does not cover it. A zero
 * fee moves nothing. Returns the balance after.
 */
export async function chargeFee(tx: Queryable, f: { userId: string; amountMicro: Micro; tradeId: string; at: Date }): Promise<Micro | null> {
  if (f.amountMicro === 0n) return null;
  return debit(
    tx,
    { userId: f.userId, counter: VENUE, type: 'fee', amountMicro: f.amountMicro, ref: f.tradeId, at: f.at },
    'Insufficient available balance for this trade and its fee.',
  );
}
