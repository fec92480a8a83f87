import type { Queryable } from '../../db/database';

/**
 * The journal of transfers: the one table every movement of cash or shares is written to, by this module alone. A
 * `posted` transfer moves its amount; a `pending` one holds it for its order (a reservation), and a `post` (at a fill)
 * or `void` (cancel, expiry, amend, settlement) releases part or all of what it holds — those carry the pending's
 * accounts and order, so what an order holds is its pending amounts less what was posted or voided (heldBy()).
 */
export type Phase = 'posted' | 'pending' | 'post' | 'void';

/** What moved a person's cash (and the kind of its transfer): a grant, a trade's price, a settlement, a reward, a pool's funding or return, a venue's fee. */
export type CashKind = 'grant' | 'buy' | 'sell' | 'settlement' | 'challenge_reward' | 'pool_fund' | 'pool_return' | 'fee';

/** What a transfer was for: a cash movement's kind, a settlement's shares, or a reservation's step. */
export type TransferKind = CashKind | 'settle' | 'reserve';

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

/**
 * What an order holds now (cash of a buy, shares of a sell), as an SQL expression over the order's id (`order`, e.g.
 * `o.id`): its pending transfers less what was posted or voided of them. The one answer to "what does order X hold":
 * no other copy of it is kept. An index lookup (transfers_order).
 */
export const heldByOrderSql = (order: string) =>
  `(SELECT coalesce(sum(CASE WHEN h.phase = 'pending' THEN h.amount_micro ELSE -h.amount_micro END), 0) FROM transfers h WHERE h.order_id = ${order})::bigint`;

/** What order `orderId` holds now (heldByOrderSql). */
export async function heldBy(q: Queryable, orderId: string): Promise<bigint> {
  const rows = await q.query<{ held: bigint }>(`SELECT ${heldByOrderSql('$1::uuid')} AS held`, [orderId], 'ledger_held_by');
  return BigInt(rows[0]?.held ?? 0n);
}

/** What each of orders `orderIds` holds now (heldByOrderSql), by order id; one statement. */
export async function heldByEach(q: Queryable, orderIds: readonly string[]): Promise<Map<string, bigint>> {
  const rows = await q.query<{ id: string; held: bigint }>(
    `SELECT o.id, ${heldByOrderSql('o.id')} AS held FROM unnest($1::uuid[]) AS o(id)`,
    [orderIds],
    'ledger_held_by_each',
  );
  return new Map(rows.map((r) => [r.id, BigInt(r.held)]));
}

/**
 * The cash that moved into and out of one person's cash account (`user`: an SQL text expression of the user's id), one
 * row per posted transfer: `kind`, `amount_micro` (signed: + in, − out), `ref`, `created_at`. What the retired journal
 * (ledger_entries) answered; a subquery body for readers (a benchmark's flows, an export). Two index lookups.
 */
export const cashMovesSql = (user: string) =>
  `SELECT m.kind, CASE WHEN m.credit_account = ('cash:' || ${user}) THEN m.amount_micro ELSE -m.amount_micro END AS amount_micro, m.ref, m.created_at
   FROM transfers m WHERE m.asset = 'USD' AND m.phase = 'posted' AND (m.debit_account = ('cash:' || ${user}) OR m.credit_account = ('cash:' || ${user}))`;

/**
 * Every posted cash movement of every person's cash account, one row per side that touches one: `user_id` (text),
 * `kind`, `amount_micro` (signed: + in, − out), `ref`. For the audit's sums over all accounts.
 */
export const ALL_CASH_MOVES = `SELECT substr(credit_account, 6) AS user_id, kind, amount_micro, ref FROM transfers
     WHERE asset = 'USD' AND phase = 'posted' AND credit_account LIKE 'cash:%'
   UNION ALL
   SELECT substr(debit_account, 6), kind, -amount_micro, ref FROM transfers
     WHERE asset = 'USD' AND phase = 'posted' AND debit_account LIKE 'cash:%'`;

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
