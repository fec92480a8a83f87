import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';
import { poolAccount } from './accounts';
import { credit, debit } from './cash';

/**
 * A community market's pool cash (community_pools.cash_micro): a maintained balance of the ledger account
 * `pool:<market>`, written only here and by the trade statements' pool CTEs (poolCashSql), each beside the transfer that
 * moves it. Its limit — a pool never pays out more than it holds — is checked once, in payFromPool.
 */

/** The SQL of a pool's cash moving by `delta` (an expression) for each row of `from`: the body of a CTE in a trade's statement. */
export function poolCashSql(p: { market: string; delta: string; from: string }): string {
  return `UPDATE community_pools SET cash_micro = cash_micro + (${p.delta}) WHERE market_id = ${p.market} AND EXISTS (SELECT 1 FROM ${p.from}) RETURNING market_id`;
}

/** The creator's funding of a new pool (its row already inserted with no cash): refused with INSUFFICIENT_BALANCE beyond available cash. */
export async function fundPool(tx: Queryable, f: { creatorId: string; marketId: string; amountMicro: Micro; at: Date }, refusal: string): Promise<void> {
  await debit(tx, { userId: f.creatorId, counter: poolAccount(f.marketId), type: 'pool_fund', amountMicro: f.amountMicro, ref: f.marketId, at: f.at }, refusal);
  await movePoolCash(tx, f.marketId, f.amountMicro);
}

/**
 * Pays `amountMicro` out of a pool into an account (a settlement's payout, or what is left returned to the creator), with
 * its transfer; a pool that does not hold it is a fault (its shares are always covered: auditLedger). Returns the balance after.
 */
export async function payFromPool(
  tx: Queryable,
  p: { userId: string; marketId: string; type: 'settlement' | 'pool_return'; amountMicro: Micro; ref: string; at: Date },
  opts: { balanceEvent?: boolean } = {},
): Promise<Micro> {
  await movePoolCash(tx, p.marketId, -p.amountMicro);
  return credit(tx, { userId: p.userId, counter: poolAccount(p.marketId), type: p.type, amountMicro: p.amountMicro, ref: p.ref, at: p.at }, opts);
}

async function movePoolCash(tx: Queryable, marketId: string, deltaMicro: Micro): Promise<void> {
  const ok = await tx.query(
    'UPDATE community_pools SET cash_micro = cash_micro + $2 WHERE market_id = $1::uuid AND cash_micro + $2 >= 0 RETURNING market_id',
    [marketId, deltaMicro.toString()],
    'ledger_pool_cash',
  );
  if (!ok[0]) throw new Error(`pool ${marketId} cannot move ${deltaMicro} of cash: it is missing or holds less`);
}
