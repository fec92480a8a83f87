import type { Queryable } from '../../db/database';

/** What happened to an account, in the order it happened (see migration 18). */
export const ACCOUNT_EVENT_TYPES = [
  'order.accepted',
  'order.partially_filled',
  'order.filled',
  'order.cancelled',
  'order.expired',
  'order.rejected',
  'order.replaced',
  'trade',
  'settlement',
  'notification',
  'balance',
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** The channel every committed event is announced on (`<userId>:<seq>`), to this process and every other. */
export const ACCOUNT_EVENTS_CHANNEL = 'account_events';

/**
 * The statement body that advances an account's event sequence by `count` (SQL) and returns `event_seq`, the last seq
 * taken: the sequence's row (`account_event_seqs`, migration 1700000000077) is created by the account's first event and
 * locked by the advance until the transaction ends, so seqs commit in order. `when`: only if that holds. For the CTEs of
 * this module's statements and notify.ts's (the event log's owner is this folder).
 */
export const advanceSeqSql = (user: string, count: string, when?: string) =>
  `INSERT INTO account_event_seqs AS q (user_id, event_seq) SELECT ${user}, ${count}${when ? ` WHERE ${when}` : ''}
   ON CONFLICT (user_id) DO UPDATE SET event_seq = q.event_seq + EXCLUDED.event_seq RETURNING event_seq`;

/** The statement body that inserts one event at seq `seq` (SQL over the CTE `from`) and returns its seq. */
export const insertEventSql = (from: string, user: string, seq: string, type: string, data: string, at: string) =>
  `INSERT INTO account_events (user_id, seq, type, data, created_at) SELECT ${user}, ${seq}, ${type}, ${data}, ${at} FROM ${from} RETURNING seq`;

/** Announces the account's events up to `seq` (`<userId>:<seq>`) once the transaction commits (Queryable.notify). */
export function announce(tx: Queryable, userId: string, seq: bigint | string): void {
  tx.notify(ACCOUNT_EVENTS_CHANNEL, `${userId}:${seq}`);
}

/**
 * Appends one event to the account's log inside the caller's transaction and returns its sequence number; the
 * announcement goes out after the commit and never for a rolled-back event. `data` must be JSON (no bigint).
 */
export async function appendEvent(tx: Queryable, userId: string, type: AccountEventType, data: Record<string, unknown>, at: Date): Promise<bigint> {
  const rows = await tx.query<{ seq: bigint }>(
    `WITH s AS (${advanceSeqSql('$1::uuid', '1')}),
          e AS (${insertEventSql('s', '$1', 'event_seq', '$2', '$3', '$4')})
     SELECT seq FROM e`,
    [userId, type, JSON.stringify(data), at],
    'append_account_event',
  );
  const row = rows[0];
  if (!row) throw new Error(`appendEvent: account ${userId} does not exist`);
  announce(tx, userId, row.seq);
  return BigInt(row.seq);
}

/**
 * Locks the account's event sequence (creating its row if it has none) and returns the last seq taken: whoever needs
 * a cursor that no event slips past (a new webhook's) reads it so, in its transaction.
 */
export async function lockEventSeq(tx: Queryable, userId: string): Promise<bigint> {
  const rows = await tx.query<{ event_seq: bigint }>(`WITH s AS (${advanceSeqSql('$1::uuid', '0')}) SELECT event_seq FROM s`, [userId], 'lock_event_seq');
  return BigInt(rows[0]!.event_seq);
}

/** The last seq of the account's log, as committed (0: no event yet). */
export async function lastEventSeq(db: Queryable, userId: string): Promise<bigint> {
  const rows = await db.query<{ event_seq: bigint }>('SELECT event_seq FROM account_event_seqs WHERE user_id = $1', [userId]);
  return rows[0] ? BigInt(rows[0].event_seq) : 0n;
}

/**
 * The JSON of a `balance` event, computed in SQL from the account's `cash_balances` row (the ledger's): dollars as exact decimals (trim_scale drops
 * the trailing zeros, so 999.99 reads back as the number fromMicro would give).
 */
export const BALANCE_EVENT_DATA_SQL = `jsonb_build_object('balance', trim_scale(balance_micro::numeric / 1000000),
  'reserved', trim_scale(reserved_micro::numeric / 1000000), 'available', trim_scale((balance_micro - reserved_micro)::numeric / 1000000))`;

/**
 * The account's cash after a change, as a `balance` event: balance, reserved by resting orders, available. One statement,
 * so every change of cash pays one round trip for its event. The caller's change of cash holds the cash row, so the
 * figures read are the ones this transaction leaves.
 */
export async function appendBalanceEvent(tx: Queryable, userId: string, at: Date): Promise<bigint> {
  const rows = await tx.query<{ seq: bigint }>(
    `WITH b AS (SELECT ${BALANCE_EVENT_DATA_SQL} AS data FROM cash_balances WHERE user_id = $1),
          s AS (${advanceSeqSql('$1::uuid', '1', 'EXISTS (SELECT 1 FROM b)')}),
          e AS (${insertEventSql('s, b', '$1', 'event_seq', "'balance'", 'b.data', '$2')})
     SELECT seq FROM e`,
    [userId, at],
    'append_balance_event',
  );
  const row = rows[0];
  if (!row) throw new Error(`appendBalanceEvent: account ${userId} does not exist`);
  announce(tx, userId, row.seq);
  return BigInt(row.seq);
}

/** Parses an announcement payload; undefined for anything else on the channel. */
export function parseAnnouncement(payload: string): { userId: string; seq: bigint } | undefined {
  const m = /^([0-9a-f-]{36}):(\d+)$/i.exec(payload);
  return m ? { userId: m[1]!, seq: BigInt(m[2]!) } : undefined;
}
