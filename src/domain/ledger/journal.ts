import type { Queryable } from '../../db/database';
import type { Micro } from '../money/micro';

/**
 * Every kind of journal entry: what moved an account's cash. A balance is always the sum of its entries
 * (auditLedger checks it). Trades' entries (buy, sell, settlement) carry the trade's id as `ref`; a pool's
 * entries the community market's id; a grant or reward what it was for.
 */
export type LedgerType = 'grant' | 'buy' | 'sell' | 'settlement' | 'challenge_reward' | 'pool_fund' | 'pool_return';

/** Every account starts with this many micro-dollars (its first entry, a 'grant'). */
export const STARTING_BALANCE_MICRO: Micro = 1000n * 1_000_000n;

/**
 * The journal entry of a cash movement, as a data-modifying CTE body reading the row of the movement's CTE (`from`):
 * no row there (a refused debit), no entry. Arguments are SQL expressions (parameters like `$4`); `type` a
 * LedgerType or the parameter that carries one.
 */
export function entrySql(e: { from: string; user: string; type: LedgerType | `$${number}`; amount: string; ref: string; at: string }): string {
  const type = e.type.startsWith('$') ? `${e.type}::text` : `'${e.type}'`;
  return `INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at) SELECT ${e.user}, ${type}, ${e.amount}, ${e.ref}, ${e.at} FROM ${e.from}`;
}

const ADD_ENTRY = 'INSERT INTO ledger_entries (user_id, type, amount_micro, ref, created_at) VALUES ($1, $2, $3, $4, $5)';

/** One journal entry as a statement of its own (a trade's: ledger/trade-moves.ts). */
export async function addEntry(tx: Queryable, e: { userId: string; type: LedgerType; amountMicro: Micro; ref: string; at: Date }): Promise<void> {
  await tx.query(ADD_ENTRY, [e.userId, e.type, e.amountMicro.toString(), e.ref, e.at], 'ledger_entry');
}
