import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';

/**
 * A community pool's cash: the maintained balance of the ledger account `pool:<market>` (table pool_balances, written
 * by this module alone). It moves only with a transfer the ledger records against that account — a creator's funding,
 * a trade's cash, a settlement's payout, the return of what is left — in the same transaction, so it always equals the
 * sum of the account's transfers (the audit checks it). Its limit: it never goes below 0.
 */

const POOL = /^pool:([0-9a-f-]{36})$/i;

/** The community market of a pool account's name, or undefined for an account that keeps no pool balance. */
const poolOf = (account: string): string | undefined => POOL.exec(account)?.[1];

const ADD = `INSERT INTO pool_balances AS b (market_id, cash_micro) VALUES ($1::uuid, $2::bigint)
  ON CONFLICT (market_id) DO UPDATE SET cash_micro = b.cash_micro + EXCLUDED.cash_micro`;
const TAKE = 'UPDATE pool_balances SET cash_micro = cash_micro - $2::bigint WHERE market_id = $1::uuid AND cash_micro >= $2::bigint RETURNING cash_micro';

/**
 * Moves the maintained balance of `account` by `deltaMicro` when it is a pool (positive: the transfer credits the pool),
 * in the caller's transaction; nothing for an account without one (a person's cash has its own row, the venue none).
 * A pool that cannot pay is a broken invariant (the curve never owes more than its cash), so it throws.
 */
export async function moveCounterBalance(tx: Queryable, account: string, deltaMicro: Micro): Promise<void> {
  const marketId = poolOf(account);
  if (marketId === undefined || deltaMicro === 0n) return;
  if (deltaMicro > 0n) {
    await tx.query(ADD, [marketId, deltaMicro.toString()], 'ledger_pool_add');
    return;
  }
  const rows = await tx.query(TAKE, [marketId, (-deltaMicro).toString()], 'ledger_pool_take');
  if (!rows[0]) throw new Error(`pool ${marketId} cannot pay ${-deltaMicro}: its cash is short`);
}

/** A pool's cash now (0 when it has none), read in the caller's transaction (lock the pool's row first to hold it). */
export async function poolCash(q: Queryable, marketId: string): Promise<Micro> {
  const rows = await q.query<{ cash_micro: bigint }>('SELECT cash_micro FROM pool_balances WHERE market_id = $1::uuid', [marketId], 'ledger_pool_cash');
  return BigInt(rows[0]?.cash_micro ?? 0n);
}
