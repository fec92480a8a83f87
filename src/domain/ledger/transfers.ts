import type { Queryable } from '../../db/database';

/**
 * The journal of transfers: the one table every movement of cash or shares is written to, by this module alone. A
 * `posted` transfer moves its amount; a `pending` one holds it for its order (a reservation), and a `post` (at a fill)
 * or `void` (cancel, expiry, amend, settlement) releases part or all of what it holds — those carry the pending's
 * accounts and order, so what an order holds is its pending amounts less what was posted or voided (heldBy()).
 */
export type Phase = 'posted' | 'pending' | 'post' | 'void';

/** What a transfer was for: a journal entry's type, the share side of a trade, or a reservation's step. */
export type TransferKind = 'grant' | 'buy' | 'sell' | 'settlement' | 'settle' | 'challenge_reward' | 'pool_fund' | 'pool_return' | 'reserve' | 'fee';

/** One transfer, its fields as SQL expressions (parameters, columns of the row it is selected from). */
export interface TransferSql {
  debit: string;
  credit: string;
  /** `'USD'` or a token id expression. */
  asset: string;
  amount: string;
  /** A kind, or the parameter that carries one. */
  kind: TransferKind | `$${number}`;
  phase?: Phase;
  order?: string;
  ref: string;
  at: string;
  /** Where the row comes from (`FROM ...`, a CTE that must have moved first), if anywhere. */
  from?: string;
}

/** The SELECT of one transfer's row (its amount > 0: a zero movement records nothing), for insertTransfersSql(). */
export function transferRowSql(t: TransferSql): string {
  const phase = t.phase ?? 'posted';
  const kind = t.kind.startsWith('$') ? `${t.kind}::text` : `'${t.kind}'`;
  return (
    `SELECT ${t.debit}, ${t.credit}, ${t.asset}::text, (${t.amount})::bigint, ${kind}, '${phase}', ${t.order ? `${t.order}::uuid` : 'NULL::uuid'}, ` +
    `${t.ref}::text, ${t.at}::timestamptz${t.from ? ` FROM ${t.from}` : ''} WHERE (${t.amount})::bigint > 0`
  );
}

/** An INSERT of the given transfers (a data-modifying CTE body, or a statement of its own). */
export function insertTransfersSql(rows: readonly TransferSql[]): string {
  return (
    'INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, phase, order_id, ref, created_at)\n   ' +
    rows.map(transferRowSql).join('\n   UNION ALL ')
  );
}

/** One transfer as values, for insertTransfer(). */
export interface Transfer {
  debit: string;
  credit: string;
  asset: string;
  amountMicro: bigint;
  kind: TransferKind;
  phase?: Phase;
  orderId?: string;
  ref: string;
  at: Date;
}

const INSERT_ONE = `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, phase, order_id, ref, created_at)
  SELECT $1, $2, $3, $4::bigint, $5, $6, $7::uuid, $8, $9 WHERE $4::bigint > 0`;

/** Records one transfer in the caller's transaction (nothing for a zero amount). Only this module's statements call it. */
export async function insertTransfer(tx: Queryable, t: Transfer): Promise<void> {
  if (t.amountMicro < 0n) throw new Error(`a transfer moves a non-negative amount, not ${t.amountMicro}`);
  await tx.query(
    INSERT_ONE,
    [t.debit, t.credit, t.asset, t.amountMicro.toString(), t.kind, t.phase ?? 'posted', t.orderId ?? null, t.ref, t.at],
    'ledger_transfer',
  );
}

/** What order `orderId` holds now (cash of a buy, shares of a sell): its pending transfers less what was posted or voided of them. */
export async function heldBy(q: Queryable, orderId: string): Promise<bigint> {
  const rows = await q.query<{ held: bigint | null }>(
    `SELECT sum(CASE WHEN phase = 'pending' THEN amount_micro ELSE -amount_micro END)::bigint AS held FROM transfers WHERE order_id = $1`,
    [orderId],
    'ledger_held_by',
  );
  return BigInt(rows[0]?.held ?? 0n);
}

/** Records several transfers in one statement (those of zero amount are left out). Only this module's statements call it. */
export async function insertTransfers(tx: Queryable, rows: readonly Transfer[]): Promise<void> {
  const moving = rows.filter((t) => {
    if (t.amountMicro < 0n) throw new Error(`a transfer moves a non-negative amount, not ${t.amountMicro}`);
    return t.amountMicro > 0n;
  });
  if (moving.length === 0) return;
  const params: unknown[] = [];
  const values = moving.map((t) => {
    const at = params.length;
    params.push(t.debit, t.credit, t.asset, t.amountMicro.toString(), t.kind, t.phase ?? 'posted', t.orderId ?? null, t.ref, t.at);
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}::bigint, $${at + 5}, $${at + 6}, $${at + 7}::uuid, $${at + 8}, $${at + 9}::timestamptz)`;
  });
  await tx.query(
    `INSERT INTO transfers (debit_account, credit_account, asset, amount_micro, kind, phase, order_id, ref, created_at) VALUES ${values.join(', ')}`,
    params,
    `ledger_transfers_${moving.length}`,
  );
}
